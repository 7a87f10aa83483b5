trace compact traces/h200/sms132-linear.corpus.csv.gz -o - >/dev/full
