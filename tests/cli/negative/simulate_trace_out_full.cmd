simulate --gpu h200 --model llama-3-8b --rate 5 --num-requests 3 --trace-out /dev/full
