trace diff traces/h200/sms132-linear.corpus.csv.gz traces/h200/sms132-linear.corpus.csv.gz --format json
