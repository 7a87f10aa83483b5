trace import --lct traces/e2e/h200/graph_decode.lct.gz --cases traces/e2e/h200/graph_decode.cases.csv -o "$TMPDIR/r12.corpus.csv" --dataset "$(printf 'a\nb')" --split test
