trace compact tests/data/trace/v2_missing_id.corpus.csv -o $TMPDIR/x.corpus.csv
