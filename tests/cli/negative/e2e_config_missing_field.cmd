e2e --gpu h200 --model tests/data/e2e/missing_field.json --phase decode --context 10
