trace import --chrome tests/data/trace/no_kernels.json
