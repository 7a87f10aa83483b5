tune --plan --gpu h200 --family attention_prefill
