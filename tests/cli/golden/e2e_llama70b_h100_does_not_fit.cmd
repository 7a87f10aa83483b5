e2e --gpu h100-sxm --model llama-3-70b --phase decode --batch 1 --context 1024 --top 3
