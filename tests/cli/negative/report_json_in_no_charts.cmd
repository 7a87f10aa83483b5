report --json-in tests/data/report/empty_object.json -o /tmp/loom-neg-report.html
