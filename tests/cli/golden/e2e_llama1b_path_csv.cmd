e2e --gpu h200 --model models/presets/llama-3.2-1b.json --phase decode --batch 2 --context 100,300 --format csv
