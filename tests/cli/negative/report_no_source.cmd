report -o /tmp/loom-neg-report.html
