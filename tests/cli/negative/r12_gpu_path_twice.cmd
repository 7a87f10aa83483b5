whatif --model llama-3-8b --batch 8 --input-len 512 --output-len 64 --gpus h200,gpus/h200.yaml
