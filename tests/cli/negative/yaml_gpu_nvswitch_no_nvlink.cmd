gpus show tests/data/bad_gpus/nvswitch_no_nvlink.yaml
