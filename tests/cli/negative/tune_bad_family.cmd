tune --gpu h200 --kernel "rms_norm rows=4 cols=4096"
