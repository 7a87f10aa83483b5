tune --gpu h100-sxm --kernel "moe tokens=512 experts=8 topk=2 hidden=4096 inter=14336 dtype=bf16 stage=w2" --reps 0 --format json
