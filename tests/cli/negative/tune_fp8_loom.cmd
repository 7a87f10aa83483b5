tune --gpu h200 --kernel "moe tokens=64 experts=8 topk=2 hidden=4096 inter=14336 dtype=fp8"
