e2e --gpu h200 --model /dev/urandom --phase decode --batch 1 --context 64
