report -o "$TMPDIR/loom-neg-report.html"
