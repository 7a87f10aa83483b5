whatif --model llama-3-8b --gpus h200,h100-sxm --rate 2 --pp 33
