whatif --model llama-3-8b --input-len 10 --output-len 10 --gpus h200 --set a100-sxm4-80gb:dram.bandwidth=3TB/s
