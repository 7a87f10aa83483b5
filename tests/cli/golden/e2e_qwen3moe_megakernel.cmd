e2e --gpu h200 --model qwen3-30b-a3b --phase decode --batch 8 --context 2000 --mode megakernel --top 8
