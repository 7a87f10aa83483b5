trace import --from foo tests/data/public/neusight_ok.csv --out /tmp/loom-neg-public
