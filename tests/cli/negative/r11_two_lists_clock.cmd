trace import --lct tests/data/r11/run.lct --cases tests/data/r11/run.cases.csv --cases tests/data/r11/clock_1500.cases.csv -o "$TMPDIR/r11d.csv"
