validate --serving --traces tests/data/r8_serving_unknown_gpu
