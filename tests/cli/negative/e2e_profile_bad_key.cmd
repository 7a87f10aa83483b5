e2e --gpu h200 --model llama-3-8b --phase decode --context 10 --profile tests/data/e2e/bad_profile.yaml
