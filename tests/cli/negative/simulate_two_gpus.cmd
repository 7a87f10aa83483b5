simulate --gpu h200,h100-sxm --model llama-3-8b --rate 1
