"""Host cost of cuDNN SDPA's plan build in an eager decode loop, apart from any model (issue 12; the HF eager decode
wall of traces/e2e): PyTorch 2.11's cuDNN SDPA builds a plan on the host for every attention shape the process has
not seen, and a decode step attends to one more key each time. One fresh process per setting; a step appends one
token to a DynamicCache-like K/V (torch.cat, as transformers does), synchronises, then calls
F.scaled_dot_product_attention once per layer on the same shape (q: one token, (b, 1, h, d) transposed as HF's
q_proj view; no mask, is_causal False, enable_gqa as HF's sdpa path without a mask), timing each call on the host.
The first call of a step pays the plan (if any), the others hit the cache. A host-speed probe (50 launches of a
one-element add) after each step tells how fast the host ran then, so noisy steps can be set apart.
After the sweep: the first lengths again (same batch: cache hits?) and again at twice the batch (is batch in the key?).

  python3 scripts/torch/e2e/sdpa_plan_sweep.py --cudnn 1 --batch 1 --heads 32 --kv-heads 8 --head-dim 64 \
      --kv-start 512 --layers 16 --tag llama-1b --out FILE.jsonl     (appends one JSON line)
"""
import argparse
import json
import os
import statistics
import sys
import time

PROBE_LAUNCHES = 50
SKIP_STEPS = 3  # the process's first plans (handle creation, library loading) are reported apart


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--cudnn", type=int, choices=[0, 1], required=True, help="torch.backends.cuda.enable_cudnn_sdp")
    p.add_argument("--batch", type=int, default=1)
    p.add_argument("--heads", type=int, default=32)
    p.add_argument("--kv-heads", type=int, default=8)
    p.add_argument("--head-dim", type=int, default=64)
    p.add_argument("--kv-start", type=int, default=512, help="keys in the cache before the first step")
    p.add_argument("--steps", type=int, default=40, help="decode steps, each over a new KV length")
    p.add_argument("--layers", type=int, default=16, help="SDPA calls a step on the same shape")
    p.add_argument("--gqa", choices=["enable", "repeat"], default="enable",
                   help="enable_gqa=True (HF without a mask) or K/V expanded to every head (repeat_kv)")
    p.add_argument("--revisit", type=int, default=5, help="steps replayed after the sweep, same and twice the batch")
    p.add_argument("--tag", default="")
    p.add_argument("--out", required=True)
    a = p.parse_args(argv)
    for name in ("batch", "heads", "kv_heads", "head_dim", "kv_start", "steps", "layers"):
        if getattr(a, name) < 1:
            p.error("--%s %d: give a positive number" % (name.replace("_", "-"), getattr(a, name)))
    if a.heads % a.kv_heads:
        p.error("--heads %d is not a multiple of --kv-heads %d" % (a.heads, a.kv_heads))
    if a.steps < SKIP_STEPS + 2:
        p.error("--steps %d: give at least %d (the first %d are reported apart)"
                % (a.steps, SKIP_STEPS + 2, SKIP_STEPS))
    if a.revisit < 0 or a.revisit > a.steps:
        p.error("--revisit %d: give 0..--steps" % a.revisit)
    return a


def main():
    a = parse_args()
    import torch  # after the arguments: `--help` and bad arguments answer without a GPU
    import torch.nn.functional as F

    torch.set_grad_enabled(False)
    torch.backends.cuda.enable_cudnn_sdp(bool(a.cudnn))
    dev, dt = "cuda", torch.bfloat16
    h, kvh, d = a.heads, a.kv_heads, a.head_dim
    gqa = a.gqa == "enable" and kvh < h

    def query(b):  # HF: q_proj(x).view(b, 1, h, d).transpose(1, 2)
        return torch.randn(b, 1, h * d, device=dev, dtype=dt).view(b, 1, h, d).transpose(1, 2)

    def expand(x):  # transformers' repeat_kv
        b, _, n, _ = x.shape
        return x[:, :, None].expand(b, kvh, h // kvh, n, d).reshape(b, h, n, d)

    def probe_us(x):
        t = time.perf_counter()
        for _ in range(PROBE_LAUNCHES):
            x.add_(1.0)
        us = (time.perf_counter() - t) * 1e6 / PROBE_LAUNCHES
        torch.cuda.synchronize()
        return us

    def step(q, k, v):
        """One decode step's attention calls (GPU idle before them); returns the host us of each call."""
        if a.gqa == "repeat" and kvh < h:
            k, v = expand(k), expand(v)
        torch.cuda.synchronize()
        calls = []
        for _ in range(a.layers):
            t = time.perf_counter()
            F.scaled_dot_product_attention(q, k, v, is_causal=False, **({"enable_gqa": True} if gqa else {}))
            calls.append((time.perf_counter() - t) * 1e6)
        t = time.perf_counter()
        torch.cuda.synchronize()
        return calls, (time.perf_counter() - t) * 1e6

    def sweep(b, lengths):
        k = torch.randn(b, kvh, lengths[0] - 1, d, device=dev, dtype=dt)
        v = torch.randn_like(k)
        q = query(b)
        x = torch.zeros(1, device=dev)
        rows = []
        for n in lengths:
            k = torch.cat([k, torch.randn(b, kvh, 1, d, device=dev, dtype=dt)], dim=2)  # DynamicCache.update
            v = torch.cat([v, torch.randn(b, kvh, 1, d, device=dev, dtype=dt)], dim=2)
            assert k.shape[2] == n
            t = time.perf_counter()
            calls, drain_us = step(q, k, v)
            wall_us = (time.perf_counter() - t) * 1e6
            rest = statistics.median(calls[1:]) if len(calls) > 1 else None
            rows.append({"kv_len": n, "first_call_us": calls[0], "rest_call_us": rest,
                         "plan_us": calls[0] - (rest if rest is not None else 0.0), "step_wall_us": wall_us,
                         "drain_us": drain_us, "probe_us_per_launch": probe_us(x)})
        return rows, (q, k, v)

    t0 = time.perf_counter()
    x = torch.zeros(1, device=dev)
    for _ in range(200):  # CUDA context and the dispatcher's first calls, before anything is timed
        x.add_(1.0)
    torch.cuda.synchronize()
    lengths = list(range(a.kv_start + 1, a.kv_start + 1 + a.steps))
    rows, (q, k, v) = sweep(a.batch, lengths)
    def choice(kk, vv, enable_gqa):  # which fused kernel SDPA picks (a private API; absent in some versions)
        try:
            return torch.nn.attention.SDPBackend(torch._fused_sdp_choice(q, kk, vv, None, 0.0, False,
                                                                         enable_gqa=enable_gqa)).name
        except Exception as e:  # noqa: BLE001
            return "unknown (%s)" % type(e).__name__
    backends = {"enable_gqa": choice(k, v, kvh < h), "repeat_kv": choice(expand(k), expand(v), False)}
    backend = backends["repeat_kv" if a.gqa == "repeat" or kvh == h else "enable_gqa"]
    revisit = batch2 = []
    if a.revisit:
        revisit, _ = sweep(a.batch, lengths[:a.revisit])  # lengths already seen, same batch
        batch2, _ = sweep(2 * a.batch, lengths[:a.revisit])  # the same lengths at twice the batch

    body = rows[SKIP_STEPS:]

    def med(rs, key):
        vals = [r[key] for r in rs if r[key] is not None]
        return statistics.median(vals) if vals else None

    quiet = statistics.median(r["probe_us_per_launch"] for r in body)
    summary = {
        "plan_us_median": med(body, "plan_us"),
        "plan_us_p10": statistics.quantiles([r["plan_us"] for r in body], n=10)[0],
        "plan_us_p90": statistics.quantiles([r["plan_us"] for r in body], n=10)[-1],
        # steps whose probe ran within 20% of the median probe: the host was not slowed by something else
        "plan_us_median_quiet": med([r for r in body if r["probe_us_per_launch"] < 1.2 * quiet], "plan_us"),
        "plan_over_probe_median": statistics.median(r["plan_us"] / r["probe_us_per_launch"] for r in body),
        "first_call_us_median": med(body, "first_call_us"),
        "rest_call_us_median": med(body, "rest_call_us"),
        "probe_us_per_launch_median": quiet,
        "first_steps_plan_us": [r["plan_us"] for r in rows[:SKIP_STEPS]],
        "revisit_first_call_us_median": med(revisit, "first_call_us"),
        "batch2_first_call_us_median": med(batch2, "first_call_us"),
    }
    import platform
    meta = {"gpu": torch.cuda.get_device_name(0), "torch": torch.__version__,
            "cudnn": torch.backends.cudnn.version(), "python": platform.python_version(),
            "cpu": next((ln.split(":", 1)[1].strip() for ln in open("/proc/cpuinfo") if ln.startswith("model name")),
                        ""),
            "nproc": os.cpu_count(), "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "process_s": time.perf_counter() - t0}
    r = {"tag": a.tag, "cudnn_sdp": a.cudnn, "batch": a.batch, "heads": h, "kv_heads": kvh, "head_dim": d,
         "kv_start": a.kv_start, "steps": a.steps, "layers": a.layers, "gqa": a.gqa, "backend": backend,
         "backends": backends,
         "summary": summary, "meta": meta, "rows": rows, "revisit": revisit, "batch2": batch2}
    print("%-14s cudnn %d b%-3d h%-3d kv%-3d d%-3d L%-5d layers %-3d %-7s %-16s plan %7.0f us (quiet %7.0f; p10-p90 "
          "%.0f-%.0f; %.0f probes) cached call %5.0f us probe %4.1f us/launch | revisit %s batch x2 %s"
          % (a.tag, a.cudnn, a.batch, h, kvh, d, a.kv_start, a.layers, a.gqa, backend, summary["plan_us_median"],
             summary["plan_us_median_quiet"] or 0, summary["plan_us_p10"], summary["plan_us_p90"],
             summary["plan_over_probe_median"], summary["rest_call_us_median"] or 0, quiet,
             "%.0f us" % summary["revisit_first_call_us_median"] if revisit else "-",
             "%.0f us" % summary["batch2_first_call_us_median"] if batch2 else "-"), flush=True)
    with open(a.out, "a") as f:  # one JSON line per run
        f.write(json.dumps(r) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
