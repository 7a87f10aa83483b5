predict --gpu h200 --kernel "softmax rows=64 cols=64 dtype=bf16 impl=cutlass"
