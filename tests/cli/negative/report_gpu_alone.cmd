report --gpu h200 -o /tmp/loom-neg-report.html
