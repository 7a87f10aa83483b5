report --gpu h200 -o "$TMPDIR/loom-neg-report.html"
