calibrate --gpu h100-sxm
