predict --gpu h200 --kernel "elementwise op=to_fp32 rows=4 cols=8 dtype=fp32"
