report --simulate tests/data/serving/requests.csv -o /tmp/loom-neg.html
