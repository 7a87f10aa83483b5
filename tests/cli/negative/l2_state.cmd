predict --gpu h200 --kernel "rms_norm rows=8 cols=8 dtype=bf16 l2=hot"
