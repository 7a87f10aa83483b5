report --validation tests/data/report/validation_no_points.json -o "$TMPDIR/loom-neg-report.html"
