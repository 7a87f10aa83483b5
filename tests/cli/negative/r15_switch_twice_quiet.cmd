simulate --gpu h200 --model llama-3-8b --rate 2 --num-requests 20 --quiet --quiet
