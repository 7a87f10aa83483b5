#!/usr/bin/env python3
"""Does loom split K where cuBLAS did? Per dtype: traced split (a splitKreduce launch, or an in-kernel split: the main
kernel's grid z > 1 in a non-batched GEMM) against loom's chosen config (`_sk`), with the committed model's learned
error per class (docs/gemm-heldout.md, "Split-K, measured again").

  python3 scripts/gemm-split-agreement.py [--loom build/loom] [--model-dir DIR] 'traces/heldout/linear41/*.gz'
"""
import argparse
import collections
import csv
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from loom_corpus import read_corpus  # noqa: E402  (corpus versions 1 and 2)
from script_errors import Parser, fail, guarded, require_loom  # noqa: E402  (one loom: line, exit 2)


def read(pattern):
    rows, files = [], sorted(glob.glob(pattern))
    for f in files:
        meta, recs = read_corpus(f)
        for r in recs:
            if r["family"] != "gemm" or not r["impl"].startswith("cublas") or "batch=" in r["spec"]:
                continue
            d = dict(re.findall(r"(\w+)=(\S+)", r["spec"]))
            z = r["grid"].split(":")[-1]
            split = any("splitKreduce" in k for k in r["kernels"].split(";")) or z not in ("1", "0", "")
            rows.append(dict(gpu=meta["gpu_key"], spec=r["spec"], dtype=d["dtype"], traced=int(split),
                             m=d["m"], n=d["n"], k=d["k"], scales=d.get("scales", "")))
    return files, rows


def main():
    ap = Parser()
    ap.add_argument("pattern")
    ap.add_argument("--loom", default="build/loom")
    ap.add_argument("--model-dir", default="models/efficiency")
    a = ap.parse_args()
    require_loom(a.loom)
    files, rows = read(a.pattern)
    if not rows:
        fail(f"{a.pattern}: no corpus file with cuBLAS GEMM rows matches; give a glob of corpora "
             "(quoted), e.g. 'traces/heldout/linear41/*.gz'")
    tmp = tempfile.mkdtemp(prefix="loom-split-")
    try:
        batch = os.path.join(tmp, "b.csv")
        with open(batch, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["family", "gpu", "m", "n", "k", "dtype", "scales"])
            for r in rows:
                w.writerow(["gemm", r["gpu"], r["m"], r["n"], r["k"], r["dtype"], r["scales"]])
        preds = json.loads(subprocess.run([a.loom, "predict", "--gpu", "h200", "--batch", batch, "--format", "json"],
                                          capture_output=True, text=True, check=True).stdout)["predictions"]
        os.makedirs(os.path.join(tmp, "t"))
        for i, f in enumerate(files):
            shutil.copy(f, os.path.join(tmp, "t", "%d-%s" % (i, os.path.basename(f))))
        pts = json.loads(subprocess.run([a.loom, "validate", "--traces", os.path.join(tmp, "t"), "--model-dir",
                                         a.model_dir, "--format", "json"], capture_output=True, text=True,
                                        check=True).stdout)["points"]
    finally:
        shutil.rmtree(tmp)
    learned = collections.defaultdict(list)
    for p in pts:
        if p["family"] == "gemm":
            learned[(p["gpu"], p["spec"])].append(abs(p["predicted_us"]["learned"] / p["measured_us"] - 1) * 100)
    ape = collections.defaultdict(list)
    for r, p in zip(rows, preds):
        key = (r["dtype"], r["traced"], int("_sk" in p["config"]))
        ape[key] += learned.get((r["gpu"], r["spec"]), [])
        ape[("all", "agree" if key[1] == key[2] else "differ", "")] += learned.get((r["gpu"], r["spec"]), [])
    print("| dtype | traced split | loom splits | n | learned MAPE |\n| --- | ---: | ---: | ---: | ---: |")
    for key in sorted(ape, key=str):
        v = ape[key]
        print("| %s | %s | %s | %d | %.1f%% |" % (*key, len(v), sum(v) / max(1, len(v))))


if __name__ == "__main__":
    sys.exit(guarded(main))
