predict --gpu h200 --kernel "all_reduce bytes=1048576 gpus=1"
