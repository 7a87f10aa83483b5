simulate --gpu h200 --model qwen3-30b-a3b --profile sglang --requests tests/data/serving/requests.jsonl --format csv
