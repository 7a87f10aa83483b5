e2e --gpu h200 --model llama-3-8b --phase warmup --seq 10
