e2e --gpu h200 --model llama-3-8 --phase decode --context 5
