"""Host cost of an eager prefill step whose token count the process has not run before, in steady state.

scripts/torch/serving/probe_host.py measured it right after start-up (three counts, +10-33 ms); a serving run has
warmed up long before most of its steps. This probe warms cb_engine's Llama-3-8B-shaped model up on a few counts,
then runs N fresh random token counts twice each, back to back: the first run of a count pays whatever the stack
does for a new shape (cuBLAS heuristics, Triton specialisations, SDPA dispatch), the second does not. Wall time
(host launch + GPU, synchronised) of both, and their difference, go to OUT as JSON.

  python3 scripts/torch/serving/probe_new_shapes.py --out new_shapes.json [--n 60] [--seed 5]
"""

import argparse
import json
import os
import random
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import torch  # noqa: E402

import cb_engine as cb  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--model", default="models/presets/llama-3-8b.json")
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--seed", type=int, default=5)
    args = ap.parse_args()
    cfg = json.load(open(args.model))
    m = cb.Model(cfg, 2048)

    def step(n):
        z = torch.zeros(n, dtype=torch.long, device="cuda")
        a = (z, torch.arange(n, device="cuda"), z, 0, torch.zeros(0, 1, dtype=torch.int32, device="cuda"),
             torch.zeros(0, dtype=torch.int32, device="cuda"), [(0, n)], torch.tensor([n - 1], device="cuda"))
        torch.cuda.synchronize()
        t = time.perf_counter()
        m.forward(*a)
        host = time.perf_counter() - t
        torch.cuda.synchronize()
        return host * 1e3, (time.perf_counter() - t) * 1e3

    warm = [512, 256, 1024, 333, 777, 2048, 100, 1500]
    for n in warm + warm:
        step(n)
    rng = random.Random(args.seed)
    seen = set(warm)
    rows = []
    while len(rows) < args.n:
        n = rng.randint(16, 4096)
        if n in seen:
            continue
        seen.add(n)
        h1, w1 = step(n)
        h2, w2 = step(n)
        rows.append({"tokens": n, "first_host_ms": h1, "first_wall_ms": w1, "again_host_ms": h2, "again_wall_ms": w2,
                     "extra_ms": w1 - w2})
        print("tokens %5d  first %.2f ms  again %.2f ms  extra %.2f ms" % (n, w1, w2, w1 - w2), flush=True)
    extra = [r["extra_ms"] for r in rows]
    q = statistics.quantiles(extra, n=10)
    summary = {"gpu": torch.cuda.get_device_name(0), "torch": torch.__version__, "n": len(rows),
               "extra_ms_median": statistics.median(extra), "extra_ms_mean": statistics.mean(extra),
               "extra_ms_p10": q[0], "extra_ms_p90": q[-1],
               "extra_ms_median_div16":
                   statistics.median([r["extra_ms"] for r in rows if r["tokens"] % 16 == 0] or [0]),
               "warmup_counts": warm, "rows": rows}
    print(json.dumps({k: v for k, v in summary.items() if k != "rows"}))
    json.dump(summary, open(args.out, "w"), indent=1)


if __name__ == "__main__":
    main()
