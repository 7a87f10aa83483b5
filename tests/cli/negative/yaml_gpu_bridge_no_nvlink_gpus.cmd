gpus show tests/data/bad_gpus/bridge_no_nvlink_gpus.yaml
