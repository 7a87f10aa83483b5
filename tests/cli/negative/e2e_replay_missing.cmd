e2e --replay tests/data/nope.json --gpu h200
