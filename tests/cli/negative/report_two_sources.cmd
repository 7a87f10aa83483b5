report --sample --json-in tests/data/report/unknown_key.json
