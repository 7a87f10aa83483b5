whatif --model llama-3-8b --gpus h200,h100-sxm --tp 1,2 --rate 30 --num-requests 200 --prompt-len 1024 --output-len 128 --slo ttft=1s,tpot=30ms --format csv
