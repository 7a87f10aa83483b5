trace compact tests/data/trace/v2_late_dict.corpus.csv -o $TMPDIR/x.corpus.csv
