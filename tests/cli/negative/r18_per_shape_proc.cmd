tune --gpu h200 --family moe-triton-fp8 --validate --no-timing --traces traces/tune --per-shape /proc/r18.csv
