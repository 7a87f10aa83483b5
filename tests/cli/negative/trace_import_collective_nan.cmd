trace import --from pipeweave tests/data/public/collective/H20/all_reduce.csv --out /tmp/loom-neg-public
