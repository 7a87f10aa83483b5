e2e --gpu h200 --model tests/data/e2e/bad_value.json --phase decode --context 10
