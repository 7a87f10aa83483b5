trace summary traces/h200 traces/h100
