e2e --gpu h200 --model no-such-model --phase decode --context 10
