trace import --lct tests/data/r11/sms_twice.lct --cases tests/data/r11/run.cases.csv -o "$TMPDIR/r11a.csv"
