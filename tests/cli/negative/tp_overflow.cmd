e2e --gpu h200 --model llama-3-8b --phase decode --batch 1 --tp 4294967297 --context 128
