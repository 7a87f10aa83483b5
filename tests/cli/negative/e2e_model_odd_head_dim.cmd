e2e --gpu h200 --model tests/data/models/odd_head_dim.json --phase decode --context 100
