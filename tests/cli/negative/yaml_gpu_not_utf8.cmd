gpus show tests/data/bad_gpus/not_utf8.yaml
