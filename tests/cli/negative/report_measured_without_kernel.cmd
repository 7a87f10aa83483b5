report --sample --measured-us 5 -o "$TMPDIR/loom-neg-report2.html"
