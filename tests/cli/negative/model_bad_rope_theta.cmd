e2e --gpu h200 --model tests/data/models/bad_rope_theta.json --phase decode --batch 1 --context 64
