whatif --model llama-3-8b --gpus h200 --rate 5 --batch 8
