predict --gpu h100-sxm --set interconnect.nvlink=0GB/s --kernel "all_reduce bytes=67108864 gpus=8"
