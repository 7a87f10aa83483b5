simulate --gpu h200 --model llama-3-8b --rate 2 --num-requests 30 --prompt-len 10000000
