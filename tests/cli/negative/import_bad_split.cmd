trace import --lct x.lct --cases x.cases.csv --out "$TMPDIR/x.corpus.csv.gz" --dataset d --split maybe
