whatif --model llama-3-8b --input-len 10 --gpus h200
