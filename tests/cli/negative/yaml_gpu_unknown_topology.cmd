predict --gpu tests/data/bad_gpus/unknown_topology.yaml --kernel "all_reduce bytes=67108864 gpus=8"
