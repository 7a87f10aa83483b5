report --json-in tests/data/report/empty_object.json -o "$TMPDIR/loom-neg-report.html"
