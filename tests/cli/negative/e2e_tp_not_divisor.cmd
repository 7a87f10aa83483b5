e2e --gpu h200 --model llama-3-8b --phase prefill --seq 128 --tp 3
