predict --gpu h200 --batch tests/data/batch_header_only.csv
