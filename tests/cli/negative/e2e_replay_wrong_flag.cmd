e2e --gpu h200 --replay tests/data/trace/torch_profile_sample.json --model llama-3-8b
