e2e --gpu h200 --model llama-3-8b --phase decode --batch 8 --context 1024 --profile tests/data/r15/share_without_cost.yaml
