predict --gpu a40 --set dram.ecc=maybe --kernel "rms_norm rows=4096 cols=8192 dtype=bf16"
