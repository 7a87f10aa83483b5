simulate --gpu h200 --model llama-3-8b --rate 1 --num-requests 2 --prompt-len 5000000
