report --e2e tests/data/r13/e2e_no_schema.json -o "$TMPDIR/r13.html"
