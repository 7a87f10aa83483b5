simulate --gpu h200 --model llama-3-8b --rate 1 --prompt-len gauss:5:1
