trace import --from neusight tests/data/public/neusight_nan_latency.csv --out /tmp/loom-neg-public
