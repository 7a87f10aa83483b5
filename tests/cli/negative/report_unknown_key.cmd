report --json-in tests/data/report/unknown_key.json -o "$TMPDIR/loom-neg-report.html"
