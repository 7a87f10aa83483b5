whatif --model llama-3-8b --batch 1 --input-len 128 --output-len 16 --gpus h200 --tp 1,,2
