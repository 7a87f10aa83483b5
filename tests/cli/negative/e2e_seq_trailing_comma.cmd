e2e --gpu h200 --model llama-3-8b --phase prefill --batch 2 --seq 512,
