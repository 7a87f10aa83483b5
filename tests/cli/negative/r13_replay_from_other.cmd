e2e --gpu h100-sxm --replay tests/data/trace/torch_profile_sample.json --from a100-sxm4-80gb
