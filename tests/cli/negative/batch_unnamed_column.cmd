predict --gpu h200 --batch tests/data/batch_unnamed_column.csv
