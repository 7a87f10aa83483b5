#!/usr/bin/env python3
"""Which GPUs does a change move? Predicts the same random GEMM and MoE batches on every catalogue GPU with two loom
binaries and reports, per GPU and family, how many rows changed and the after/before latency ratio (min, median,
max). For a model-side change that must stay confined to some GPUs (e.g. one architecture's analysis), every other
GPU must print `identical`.

  python3 scripts/predict_diff.py --before /tmp/loom-old --after build/loom [--seed 7] [--rows 600]

Exit 0 with the table; exit 2 with one `loom: ` line on a bad argument or a binary that fails.
"""
import argparse
import csv
import io
import os
import random
import re
import subprocess
import sys
import tempfile


def fail(msg):
    print(f"loom: {msg}", file=sys.stderr)
    sys.exit(2)


def batches(seed, rows):
    rng = random.Random(seed)
    gemm = ["family,m,n,k,dtype,batch"]
    for _ in range(rows):
        gemm.append("gemm,%d,%d,%d,%s,%d" % (
            rng.choice([1, 2, 4, 8, 16, 32, 64, 100, 128, 256, 512, 1000, 1024, 2048, 4096, 8192, 16384]),
            rng.choice([128, 256, 512, 1024, 2048, 3072, 4096, 5120, 7168, 8192, 11008, 13824, 14336, 27648]),
            rng.choice([128, 256, 512, 1024, 2048, 4096, 5120, 7168, 8192, 14336]),
            rng.choice(["bf16", "fp16", "fp8", "fp32", "bf16"]), rng.choice([1, 1, 1, 4])))
    moe = ["family,tokens,experts,topk,hidden,inter,dtype"]
    for _ in range(rows // 3):
        moe.append("moe,%d,%d,%d,%d,%d,%s" % (
            rng.choice([1, 8, 64, 256, 1024, 4096, 16384]), rng.choice([8, 64, 128]), rng.choice([2, 8]),
            rng.choice([2048, 4096, 7168]), rng.choice([768, 1408, 2048, 14336]), rng.choice(["bf16", "fp8"])))
    out = {}
    for fam, rows_ in (("gemm", gemm), ("moe", moe)):  # fp8 apart: GPUs without an fp8 path refuse those rows
        out[fam] = "\n".join(r for r in rows_ if not r.endswith(("fp8", "fp8,1", "fp8,4"))) + "\n"
        out[fam + "-fp8"] = "\n".join([rows_[0]] + [r for r in rows_[1:] if "fp8" in r]) + "\n"
    return out


def run(binary, args):
    r = subprocess.run([binary] + args, capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"{binary} {' '.join(args)}: exit {r.returncode}: {r.stderr.strip().splitlines()[-1:] or ''}")
    return r.stdout


def runnable(binary, gpu, path, out_path):
    """The rows of the batch `binary` does not refuse on `gpu` (dtype, memory; header first) and its CSV predictions
    of them, or (None, "") if none."""
    with open(path) as f:
        lines = f.read().splitlines()
    while len(lines) > 1:
        with open(out_path, "w") as f:
            f.write("\n".join(lines) + "\n")
        r = subprocess.run([binary, "predict", "--gpu", gpu, "--batch", out_path, "--format", "csv"],
                           capture_output=True, text=True)
        if r.returncode == 0:
            return lines, r.stdout
        m = re.search(re.escape(out_path) + r":(\d+):", r.stderr)
        if r.returncode != 2 or not m or not 2 <= int(m.group(1)) <= len(lines):
            fail(f"{binary} predict --gpu {gpu} --batch {out_path}: {r.stderr.strip()}")
        del lines[int(m.group(1)) - 1]
    return None, ""


def main():
    ap = argparse.ArgumentParser(add_help=True)
    ap.error = lambda message: fail(f"{message}; see --help")  # one line, not usage + error
    ap.add_argument("--before", required=True)
    ap.add_argument("--after", required=True)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--rows", type=int, default=600)
    a = ap.parse_args()
    for b in (a.before, a.after):
        if not (os.path.isfile(b) and os.access(b, os.X_OK)):
            fail(f"{b}: not an executable loom binary")
    if a.rows < 3:
        fail("--rows: give at least 3")
    gpus = [r.split(",")[0] for r in run(a.after, ["gpus", "--format", "csv"]).splitlines()[1:] if r]
    with tempfile.TemporaryDirectory() as tmp:
        files = {}
        for fam, text in batches(a.seed, a.rows).items():
            files[fam] = os.path.join(tmp, fam + ".csv")
            with open(files[fam], "w") as f:
                f.write(text)
        print(f"{'gpu':32} {'family':8} {'rows':>5} {'changed':>7} {'min':>6} {'median':>6} {'max':>6}"
              "  (rows: those the GPU runs)")
        for g in gpus:
            for fam, path in files.items():
                # Rows each binary refuses are dropped; rows only one of them refuses are a change too.
                runs = [runnable(b, g, path, os.path.join(tmp, f"{g}.{fam}.{i}.csv"))
                        for i, b in enumerate((a.before, a.after))]
                keep = [lines for lines, _ in runs]
                if keep[0] is None and keep[1] is None:
                    print(f"{g:32} {fam:8} {'':5} no row runs on this GPU (both binaries)")
                    continue
                before_rows, after_rows = set(keep[0] or []), set(keep[1] or [])
                only = len(before_rows - after_rows), len(after_rows - before_rows)
                common = [r for r in (keep[1] or []) if r in before_rows]
                # Each binary's predictions of the rows it runs are those of the common rows unless the other binary
                # refuses some of them: only then is the common batch predicted again.
                path = os.path.join(tmp, f"{g}.{fam}.common.csv")
                texts = []
                for b, (lines, text) in zip((a.before, a.after), runs):
                    if len(common) <= 1:
                        texts.append("")
                    elif lines == common:
                        texts.append(text)
                    else:
                        with open(path, "w") as f:
                            f.write("\n".join(common) + "\n")
                        texts.append(run(b, ["predict", "--gpu", g, "--batch", path, "--format", "csv"]))
                refusals = f"  refused by after only: {only[0]}, by before only: {only[1]}" if any(only) else ""
                out = [list(csv.DictReader(io.StringIO(t))) for t in texts]
                ratios = [float(y["latency_us"]) / float(x["latency_us"]) for x, y in zip(*out)
                          if x.get("latency_us") and y.get("latency_us")]
                changed = sum(1 for x, y in zip(*out) if x != y)
                if changed == 0 and len(out[0]) == len(out[1]) and not any(only):
                    print(f"{g:32} {fam:8} {len(out[1]):5} {'identical':>7}")
                    continue
                ratios.sort()
                mid = ratios[len(ratios) // 2] if ratios else float("nan")
                lo, hi = (ratios[0], ratios[-1]) if ratios else (float("nan"), float("nan"))
                print(f"{g:32} {fam:8} {len(out[1]):5} {changed:7} {lo:6.3f} {mid:6.3f} {hi:6.3f}{refusals}")


if __name__ == "__main__":
    main()
