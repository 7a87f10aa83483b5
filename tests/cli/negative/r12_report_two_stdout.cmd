report --sample --json-out -
