whatif --model llama-3-8b --batch 100000000 --input-len 512 --output-len 64 --gpus h200
