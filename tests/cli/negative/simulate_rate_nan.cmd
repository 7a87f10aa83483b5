simulate --gpu h200 --model llama-3-8b --rate nan
