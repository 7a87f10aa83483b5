trace import --lct tests/data/r11/run.lct --cases tests/data/r11/run.cases.csv --cases tests/data/r11/copy.cases.csv -o "$TMPDIR/r11e.csv"
