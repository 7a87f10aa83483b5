simulate --gpu h200 --model llama-3-8b --rate 2 --num-requests 30 --arrivals gamma:cv=1e-300
