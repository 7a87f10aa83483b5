e2e --gpu h200 --model tests/data/models/bad_hidden_act.json --phase decode --batch 1 --context 64
