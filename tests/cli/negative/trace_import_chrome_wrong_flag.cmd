trace import --chrome tests/data/trace/torch_profile_sample.json --from neusight
