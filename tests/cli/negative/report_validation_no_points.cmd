report --validation tests/data/report/validation_no_points.json -o /tmp/loom-neg-report.html
