report --simulate tests/data/serving/requests.csv -o "$TMPDIR/loom-neg.html"
