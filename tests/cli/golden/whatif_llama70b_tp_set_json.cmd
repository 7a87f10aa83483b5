whatif --model llama-3-70b --batch 8 --input-len 1024 --output-len 256 --gpus h100-sxm,h200 --tp 2,4 --set h200:dram.bandwidth=6.4TB/s --format json
