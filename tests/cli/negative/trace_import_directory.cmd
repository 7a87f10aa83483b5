trace import --from loom --gpu h200 tests/data --out /tmp/loom-neg-public
