whatif --model llama-3-70b --batch 1 --input-len 512 --output-len 64 --gpus t4 --tp 8
