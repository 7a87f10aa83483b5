gpus show tests/data/bad_gpus/escape_name.yaml
