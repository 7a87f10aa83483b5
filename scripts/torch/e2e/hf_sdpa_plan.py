"""Why HF eager decode is host-bound on Hopper (issue 12, item 6): with PyTorch 2.11's cuDNN SDPA backend, every
attention call on a KV length the process has not seen builds a cuDNN execution plan on the host; an eager decode
step attends to one more token each time, so every step pays it (a second model replaying the same lengths hits the
plan cache and runs 5-8x faster: scripts/torch/e2e/hf_why_probe.py). This measures the per-step cost in one fresh
process per setting: the tiny hf_host.py model, decode steps over new KV lengths, cuDNN SDPA on vs off.

  python3 scripts/torch/e2e/hf_sdpa_plan.py --layers 8 --cudnn 1 --out FILE.jsonl   (appends one line)
"""
import argparse
import json
import statistics
import time

import torch

import hf_eager
import hf_host


@torch.no_grad()
def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--layers", type=int, required=True)
    p.add_argument("--cudnn", type=int, choices=[0, 1], required=True)
    p.add_argument("--out", required=True)
    a = p.parse_args()
    torch.backends.cuda.enable_cudnn_sdp(bool(a.cudnn))
    m = hf_host.build(a.layers)
    ids = torch.randint(0, 1024, (1, 100), device="cuda")
    out = hf_eager.forward(m, ids)
    cache, nxt = out.past_key_values, out.logits[:, -1:].argmax(-1)
    ts = []
    for _ in range(30):
        t = time.perf_counter()
        nxt = hf_eager.forward(m, nxt, cache).logits[:, -1:].argmax(-1)
        torch.cuda.synchronize()
        ts.append((time.perf_counter() - t) * 1e3)
    r = {"layers": a.layers, "cudnn_sdp": a.cudnn, "decode_ms_median": statistics.median(ts[5:]), "decode_ms": ts}
    print("layers %d cudnn %d: decode step %.2f ms" % (a.layers, a.cudnn, r["decode_ms_median"]), flush=True)
    with open(a.out, "a") as f:  # one JSON line per run
        f.write(json.dumps(r) + "\n")


if __name__ == "__main__":
    main()
