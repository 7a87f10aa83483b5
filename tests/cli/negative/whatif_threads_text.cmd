whatif --model llama-3-8b --gpus h200 --batch 1 --input-len 5 --output-len 5 --threads 2x
