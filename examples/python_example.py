#!/usr/bin/env python3
"""Notebook-style tour of loom's Python module. Run after building:  PYTHONPATH=build/python python3 examples/python_example.py"""
import time

import loom

print("loom", loom.__version__, "-", len(loom.gpus()), "GPUs:", ", ".join(loom.gpus()[:6]), "...")

# One kernel, one GPU: a dict with the prediction, the speed-of-light ceiling and the modelled config.
p = loom.predict("h200", "gemm m=4096 n=4096 k=4096 dtype=bf16")
print(f"gemm 4096^3 bf16 on h200: {p['latency_us']:.1f} us ({p['model']}), ceiling {p['ceiling_us']:.1f} us, "
      f"{p['bottleneck']}-bound, config {p['config']}")

# The same kernel on every GPU of the catalogue: a what-if in one line.
for gpu in ("h100-sxm", "h200", "b200", "a100-sxm4-80gb"):
    print(f"  {gpu:16s} {loom.predict(gpu, 'gemm m=4096 n=4096 k=4096 dtype=bf16')['latency_us']:8.1f} us")

# Many kernels at once: a list of dicts (or a NumPy structured array, or a pandas DataFrame) -> arrays.
rows = [{"family": "gemm", "m": m, "n": 14336, "k": 4096, "dtype": "bf16"} for m in (1, 16, 64, 256, 1024, 4096)]
rows += [{"family": "rms_norm", "rows": r, "cols": 4096, "dtype": "bf16"} for r in (1, 64, 4096)]
out = loom.predict_batch("h200", rows)
t0 = time.perf_counter()
out = loom.predict_batch("h200", rows)  # timed warm: the first call also imports NumPy and loads forests
dt = time.perf_counter() - t0
for r, lat in zip(rows, out["latency_us"]):
    print(f"  {r['family']:9s} {r.get('m', r.get('rows')):>5}  {lat:8.2f} us")
print(f"{len(rows)} predictions in {dt * 1e3:.2f} ms")

try:
    import pandas as pd  # optional
    df = pd.DataFrame(rows)
    df["latency_us"] = loom.predict_batch("h200", df)["latency_us"]
    print(df.head())
except ImportError:
    pass

# Why is a decode GEMM slow? The speed-of-light table.
d = loom.diagnose("h200", "gemm m=8 n=14336 k=4096 dtype=bf16")
for pipe in d["pipelines"]:
    print(f"  {pipe['pipe']:7s} {pipe['time_us']:8.2f} us  {100 * pipe['share_of_ceiling']:5.1f}% of ceiling")

# One Llama-3-8B decode step (batch 16, 2k context, CUDA graphs) and a tile decision.
s = loom.e2e("h200", "llama-3-8b", "decode", batch=16, context=2048, mode="graph")
print(f"llama-3-8b decode step on h200: {s['wall_time_us']:.0f} us wall, {s['tokens_per_s']:.0f} tokens/s")
print("tune:", loom.tune("h200", "gemm m=3000 n=6144 k=4096 dtype=bf16"))

# Errors are ValueError with the CLI's one-line message.
try:
    loom.predict("h200", "gemm m=0 n=1 k=1 dtype=bf16")
except ValueError as e:
    print("ValueError:", e)
