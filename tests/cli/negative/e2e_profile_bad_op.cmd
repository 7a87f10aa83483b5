e2e --gpu h200 --model llama-3.2-1b --phase decode --context 100 --profile tests/cli/negative/bad_norm_op_profile.yaml
