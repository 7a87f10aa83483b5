e2e --gpu h200 --model llama-3-8b --phase decode --batch 1 --context 64 --from h100-sxm
