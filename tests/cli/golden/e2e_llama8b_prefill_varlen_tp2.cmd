e2e --gpu h200 --model llama-3-8b --phase prefill --batch 4 --seq 256,512,1024,2048 --tp 2 --mode graph --top 8
