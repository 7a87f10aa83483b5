trace import --from neusight tests/data/public/neusight_truncated.csv --out /tmp/loom-neg-public
