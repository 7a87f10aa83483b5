report --json-in tests/data/report/unknown_key.json -o /tmp/loom-neg-report.html
