"""Host (CPU) cost per eager PyTorch launch on this machine: each op on tiny CUDA tensors launched N times
back to back without synchronising (the GPU finishes each in ~2 us, so the loop runs at the host's dispatch +
launch rate), and the same op followed by a synchronise (launch + round trip). Writes JSON for loom's host model.

  python3 scripts/torch/host_overhead.py --json host.json [--n 2000]
"""

import argparse
import json
import os
import platform
import time

import torch
import torch.nn.functional as F


def cpu_name():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--json", required=True)
    p.add_argument("--n", type=int, default=2000)
    a = p.parse_args()
    dev = "cuda"
    x = torch.randn(1, 64, device=dev, dtype=torch.bfloat16)
    y = torch.randn(1, 64, device=dev, dtype=torch.bfloat16)
    w = torch.randn(64, 64, device=dev, dtype=torch.bfloat16)
    nw = torch.ones(64, device=dev, dtype=torch.bfloat16)
    q = torch.randn(1, 4, 1, 64, device=dev, dtype=torch.bfloat16)
    kv = torch.randn(1, 4, 16, 64, device=dev, dtype=torch.bfloat16)
    idx = torch.zeros(1, dtype=torch.long, device=dev)
    ops = {
        "add": lambda: x + y,
        "mul": lambda: x * y,
        "silu": lambda: F.silu(x),
        "to_fp32": lambda: x.float(),
        "rms_norm": lambda: F.rms_norm(x, (64,), nw, 1e-5),
        "linear": lambda: F.linear(x, w),
        "matmul": lambda: x @ w,
        "sdpa": lambda: F.scaled_dot_product_attention(q, kv, kv),
        "cat": lambda: torch.cat([x, y], dim=-1),
        "transpose_contig": lambda: w.t().contiguous(),
        "index_select": lambda: x.index_select(0, idx),
        "view_nolaunch": lambda: x.view(64),
        "argmax": lambda: x.argmax(-1),
    }
    out = {"cpu": cpu_name(), "cpus": os.cpu_count(), "torch": torch.__version__,
           "gpu": torch.cuda.get_device_name(0), "n": a.n, "ops": {}}
    for name, fn in ops.items():
        for _ in range(50):
            fn()
        torch.cuda.synchronize()
        t = time.perf_counter()
        for _ in range(a.n):
            fn()
        t_async = (time.perf_counter() - t) / a.n * 1e6
        torch.cuda.synchronize()
        t = time.perf_counter()
        m = max(a.n // 10, 50)
        for _ in range(m):
            fn()
            torch.cuda.synchronize()
        t_sync = (time.perf_counter() - t) / m * 1e6
        out["ops"][name] = {"async_us": round(t_async, 3), "sync_us": round(t_sync, 3)}
        print("%-18s async %7.2f us/op   with sync %7.2f us/op" % (name, t_async, t_sync), flush=True)
    t = time.perf_counter()
    for _ in range(10 ** 6):
        pass
    out["python_empty_loop_ns"] = round((time.perf_counter() - t) * 1e3, 2)
    json.dump(out, open(a.json, "w"), indent=1)


if __name__ == "__main__":
    main()
