trace import --lct tests/data/r11/clock_nan.lct --cases tests/data/r11/run.cases.csv -o "$TMPDIR/r11b.csv"
