trace compact tests/data/r14/corpus/bad-spec.corpus.csv -o "$TMPDIR/r14c.corpus.csv.gz"
