simulate --gpu h200 --model llama-3-8b --requests tests/data/serving/requests.csv --requests tests/data/serving/requests.csv
