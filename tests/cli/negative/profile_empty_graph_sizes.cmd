simulate --gpu h200 --model llama-3-8b --rate 1 --num-requests 5 --profile tests/data/e2e/profile_empty_graphs.yaml
