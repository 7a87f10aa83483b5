e2e --gpu h200 --model llama-3-8b --phase prefill --batch 1 --seq 1024 --kernel-model bogus
