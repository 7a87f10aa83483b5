e2e --gpu h200 --model tests/data/e2e/gpt2.json --phase decode --context 10
