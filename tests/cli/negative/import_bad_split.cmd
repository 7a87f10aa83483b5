trace import --lct x.lct --cases x.cases.csv --out /tmp/x.corpus.csv.gz --dataset d --split maybe
