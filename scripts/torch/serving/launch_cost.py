"""Host cost of one eager launch of each kernel cb_engine.py issues (tiny shapes, 2000 async launches, one
synchronise at the end): the Triton kernels launched from Python, and the PyTorch ops. Writes JSON to --json.

  python3 scripts/torch/serving/launch_cost.py --json OUT.json
"""

import argparse
import json
import os
import sys
import time

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import serving_kernels as sk  # noqa: E402
import paged_decode as pd  # noqa: E402


def per_launch_us(fn, n=2000):
    for _ in range(50):
        fn()
    torch.cuda.synchronize()
    t = time.perf_counter()
    for _ in range(n):
        fn()
    host = (time.perf_counter() - t) / n * 1e6
    torch.cuda.synchronize()
    return host


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--json", required=True)
    a = ap.parse_args()
    dev, bf = "cuda", torch.bfloat16
    T, H, hq, hk, hd, inter = 4, 4096, 32, 8, 128, 14336
    x = torch.randn(T, H, device=dev, dtype=bf)
    r = torch.randn(T, H, device=dev, dtype=bf)
    w = torch.ones(H, device=dev, dtype=bf)
    qkv = torch.randn(T, (hq + 2 * hk) * hd, device=dev, dtype=bf)
    q = qkv[:, : hq * hd].view(T, hq, hd)
    k = qkv[:, hq * hd: (hq + hk) * hd].view(T, hk, hd)
    pos = torch.arange(T, device=dev)
    cs = torch.randn(4096, hd, device=dev, dtype=bf)
    gu = torch.randn(T, 2 * inter, device=dev, dtype=bf)
    act = torch.empty(T, inter, device=dev, dtype=bf)
    wl = torch.randn(1024, H, device=dev, dtype=bf)
    cache = torch.zeros(64 * 16, hk, hd, device=dev, dtype=bf)
    slots = torch.arange(T, device=dev)
    _, _, _, _, _, paged = pd.setup(T, hq, hk, 64)
    qs = torch.randn(1, hq, 16, hd, device=dev, dtype=bf)
    ks = torch.randn(1, hk, 16, hd, device=dev, dtype=bf)
    ops = {
        "triton_fused_add_rms_norm": lambda: sk.fused_add_rms_norm(x, r, w),
        "triton_rotary": lambda: sk.rotary(pos, q, k, cs),
        "triton_silu_and_mul": lambda: sk.silu_and_mul(gu, act),
        "triton_paged_decode": paged,
        "linear": lambda: F.linear(x, wl),
        "index_copy": lambda: cache.index_copy_(0, slots, k),
        "contiguous_copy": lambda: q.contiguous(),
        "sdpa_flash_gqa": lambda: F.scaled_dot_product_attention(qs, ks, ks, is_causal=True, enable_gqa=True),
        "rms_norm": lambda: F.rms_norm(x, (H,), w, 1e-5),
        "empty": lambda: torch.empty(T, hq, hd, device=dev, dtype=bf),
    }
    out = {"gpu": torch.cuda.get_device_name(), "torch": torch.__version__, "n": 2000,
           "host_us_per_launch": {name: round(per_launch_us(fn), 3) for name, fn in ops.items()}}
    json.dump(out, open(a.json, "w"), indent=1)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
