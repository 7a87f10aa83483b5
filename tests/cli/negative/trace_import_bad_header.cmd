trace import --from neusight tests/data/public/unknown_header.csv --out /tmp/loom-neg-public
