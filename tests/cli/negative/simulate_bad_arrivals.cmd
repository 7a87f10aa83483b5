simulate --gpu h200 --model llama-3-8b --rate 1 --arrivals gamma:cv=-2
