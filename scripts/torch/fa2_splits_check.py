"""Which split-KV count FlashAttention-2 launches for decode at tensor-parallel head layouts (1-2 KV heads per GPU),
to check loom's copy of FA2's num_splits_heuristic (src/analytical/attention_model.cpp). Runs torch SDPA with the
flash backend forced (PyTorch's vendored FA2 picks num_splits with that heuristic when seqlen_q == 1), profiles one
call per case and records the FA2 kernels' names and grids. No loom code runs here.

  python3 scripts/torch/fa2_splits_check.py --out fa2_splits.json
"""

import argparse
import json
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

CASES = [(b, h, kv, s, 128) for (h, kv) in [(8, 1), (16, 2), (4, 1), (32, 8)] for b in (1, 4, 16, 64)
         for s in (512, 2048, 8192)]


def call_for(batch, heads, kv_heads, seq_kv, head_dim, gqa):
    q = torch.randn(batch, heads, 1, head_dim, device="cuda", dtype=torch.bfloat16)
    k = torch.randn(batch, kv_heads, seq_kv, head_dim, device="cuda", dtype=torch.bfloat16)
    v = torch.randn_like(k)
    if not gqa:
        k, v = k.repeat_interleave(heads // kv_heads, 1), v.repeat_interleave(heads // kv_heads, 1)
        return lambda: F.scaled_dot_product_attention(q, k, v)
    return lambda: F.scaled_dot_product_attention(q, k, v, enable_gqa=True)


def grids(trace_path):
    with open(trace_path) as f:
        return [(ev["name"][:120], ev.get("args", {}).get("grid"), ev.get("args", {}).get("block"))
                for ev in json.load(f).get("traceEvents", []) if ev.get("cat") == "kernel"]


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--out", required=True)
    args = p.parse_args()
    gqa = True
    try:
        with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
            call_for(1, 8, 1, 512, 128, True)()
        torch.cuda.synchronize()
    except Exception as exc:  # noqa: BLE001
        print("flash backend refused enable_gqa (%s): K/V repeated to full heads" % exc, file=sys.stderr)
        gqa = False
    out = {"torch": torch.__version__, "gpu": torch.cuda.get_device_name(), "gqa_native": gqa, "cases": []}
    for batch, heads, kv_heads, seq_kv, hd in CASES:
        try:
            call = call_for(batch, heads, kv_heads, seq_kv, hd, gqa)
            with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
                call()
                torch.cuda.synchronize()
                with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
                    call()
                    torch.cuda.synchronize()
            path = "/tmp/fa2_case.json"
            prof.export_chrome_trace(path)
            ks = grids(path)
        except Exception as exc:  # noqa: BLE001
            ks = [("error: %s" % str(exc)[:200], None, None)]
        out["cases"].append({"batch": batch, "heads": heads, "kv_heads": kv_heads, "seq_kv": seq_kv, "head_dim": hd,
                             "kernels": [{"name": n, "grid": g, "block": b} for n, g, b in ks]})
        print(batch, heads, kv_heads, seq_kv, [(n[:40], g) for n, g, b in ks], flush=True)
    with open(args.out, "w") as f:
        json.dump(out, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
