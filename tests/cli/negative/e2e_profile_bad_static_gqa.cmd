e2e --gpu h200 --model llama-3-8b --phase decode --context 100 --profile tests/cli/negative/bad_gqa_profile.yaml
