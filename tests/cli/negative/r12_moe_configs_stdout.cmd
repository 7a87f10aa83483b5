tune --export-moe-configs - --gpu h200 --model mixtral-8x7b
