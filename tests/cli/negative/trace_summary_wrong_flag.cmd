trace summary traces/h200 --gpu h200
