predict --gpu h100-sxm --set interconnect.topology=pcie --kernel "all_reduce bytes=67108864 gpus=8"
