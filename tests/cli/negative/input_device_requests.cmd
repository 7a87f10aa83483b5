simulate --gpu h200 --model llama-3-8b --requests /dev/zero
