e2e --gpu h200 --model llama-3-8b --phase decode --context 10 --profile tensorrt
