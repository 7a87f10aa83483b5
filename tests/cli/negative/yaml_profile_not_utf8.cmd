e2e --gpu h200 --model llama-3-8b --phase decode --batch 1 --context 64 --profile tests/data/e2e/profile_not_utf8.yaml
