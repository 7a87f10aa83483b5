simulate --gpu l4 --model llama-3-70b --rate 1 --num-requests 5
