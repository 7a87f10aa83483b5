e2e --gpu h200 --model llama-3-8b --phase decode --batch 0x10 --context 128
