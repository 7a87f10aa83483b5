simulate --gpu h200 --model llama-3-8b --tp 8 --rate 2 --num-requests 20 --set interconnect.gpus_per_node=4
