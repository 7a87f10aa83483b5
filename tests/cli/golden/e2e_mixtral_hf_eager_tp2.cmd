e2e --gpu h200 --model mixtral-8x7b --phase prefill --batch 2 --seq 128 --profile hf-eager --tp 2 --top 8
