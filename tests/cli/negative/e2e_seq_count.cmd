e2e --gpu h200 --model llama-3-8b --phase prefill --batch 3 --seq 10,20
