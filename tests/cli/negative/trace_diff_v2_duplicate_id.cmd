trace diff tests/data/trace/v2_duplicate_id.corpus.csv tests/data/trace/v2_missing_id.corpus.csv
