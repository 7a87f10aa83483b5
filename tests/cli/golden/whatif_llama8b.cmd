whatif --model llama-3-8b --batch 4 --input-len 512 --output-len 128 --gpus h100-sxm,h200,a100-sxm4-80gb,l40
