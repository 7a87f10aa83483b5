e2e --replay tests/data/trace/torch_profile_sample.json --gpu a100-sxm4-80gb
