trace import --lct tests/data/r11/run.lct --cases tests/data/r11/sms_text.cases.csv -o "$TMPDIR/r11c.csv"
