tune --gpu h200 --family moe-triton-fp8 --fit --traces traces/tune --out /dev/full
