predict --gpu h200 --batch tests/data
