simulate --gpu h200 --model llama-3-8b --rate 1 --num-requests 5 --slo ttft=2s,
