#!/usr/bin/env python3
"""Where the held-out PyTorch GEMM error sits (traces/heldout/linear, `loom validate`'s dataset:linear-heldout-*
splits): per GPU, cold/warm, dtype, K/N alignment, M bucket, traced vs predicted cuBLAS path and launch count.

Usage: python3 scripts/gemm-heldout-breakdown.py [--loom build/loom] [--model-dir DIR] [--traces traces/heldout/linear]
                                                 [--rows rows.csv]
Runs `loom validate` on the held-out files alone (the committed model, nothing retrained: < 1 s) and `loom predict
--batch` for the chosen configs (split-K = a second launch), joins them with the corpus rows' traced kernel names,
and prints, per class, n, MAPE, its share of the summed absolute percentage error ("mass") and the mean signed error.
"""
import argparse
import collections
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from loom_corpus import read_corpus  # noqa: E402  (corpus versions 1 and 2)
from script_errors import Parser, fail, guarded, require_loom  # noqa: E402  (one loom: line, exit 2)

DTYPE_BYTES = {"fp32": 4, "tf32": 4, "fp16": 2, "bf16": 2, "fp8": 1}


def traced_path(kernels):
    """The code path of the main kernel, as src/trace/gemm_path.cpp classifies it."""
    for k in kernels.split(";"):
        if "splitKreduce" in k:
            continue
        if "gemv" in k or "gemmSN_" in k or "gemmk1" in k:
            return "gemv"
        if "ffma" in k:
            return "simt"
        if "nvjet_sm90" in k or "sm90_xmma" in k or "cutlass3x_sm90" in k:
            return "wgmma"
        if "_wmma_" in k:
            return "wmma"
        if "cutlass_75_tensorop" in k or "turing_" in k:
            return "sm75"
        if "cutlass_80_tensorop" in k or "sm80_xmma" in k or "ampere_" in k:
            return "mma_sync"
    return "other"


def align_bytes(k, n, dtype):
    """src/kernels/gemm_paths.cpp gemm_align_bytes."""
    b, a = DTYPE_BYTES[dtype], 16
    while a > b and ((k * b) % a or (n * b) % a):
        a //= 2
    return a


def m_bucket(m):
    return "m1" if m <= 1 else "m2-8" if m <= 8 else "m9-32" if m <= 32 else "m33-128" if m <= 128 else \
        "m129-512" if m <= 512 else "m513+"


def parse_spec(spec):
    p = dict(kv.split("=", 1) for kv in spec.split()[1:])
    return {"m": int(p["m"]), "n": int(p["n"]), "k": int(p["k"]), "batch": int(p.get("batch", 1)),
            "dtype": p["dtype"], "scales": p.get("scales", ""), "l2": p.get("l2", "")}


def main():
    ap = Parser(description=__doc__.split("\n")[0])
    ap.add_argument("--loom", default="build/loom")
    ap.add_argument("--model-dir", default="models/efficiency")
    ap.add_argument("--traces", default="traces/heldout/linear")
    ap.add_argument("--rows", help="also write the joined per-row table to this CSV")
    ap.add_argument("--split", default="dataset:",
                    help="points of the splits whose name starts with this (\"shapes\": the held-out 1 in 5 of "
                         "training sweeps given with --traces)")
    a = ap.parse_args()
    require_loom(a.loom)
    if not os.path.isdir(a.traces):
        fail(f"--traces {a.traces}: not a folder; give a folder of held-out corpora (traces/heldout/linear)")
    if not os.path.isfile(os.path.join(a.model_dir, "model.json")):
        fail(f"--model-dir {a.model_dir}: no model.json there; give a model folder (models/efficiency)")

    tmp = tempfile.mkdtemp(prefix="loom-heldout-")
    try:
        rows = []
        os.makedirs(os.path.join(tmp, "t"))
        corpora = sorted(os.path.join(d, f) for d, _, fs in os.walk(a.traces) for f in fs
                         if f.endswith(".corpus.csv.gz"))
        for i, path in enumerate(corpora):
            shutil.copy(path, os.path.join(tmp, "t", "%d-%s" % (i, os.path.basename(path))))
            meta, recs = read_corpus(path)
            warm = meta.get("flush") == "none" or meta.get("l2") == "warm"
            for r in recs:
                if r["family"] != "gemm" or not r["impl"].startswith("cublas"):
                    continue
                s = parse_spec(r["spec"])
                rows.append(dict(s, gpu=meta["gpu_key"], state="warm" if warm else "cold",
                                 spec=r["spec"] + (" l2=warm" if warm and " l2=" not in r["spec"] else ""),
                                 traced=traced_path(r["kernels"]), launches=len(r["kernels"].split(";")),
                                 measured_us=float(r["median_us"])))
        out = subprocess.run([a.loom, "validate", "--traces", os.path.join(tmp, "t"), "--model-dir", a.model_dir,
                              "--format", "json"], check=True, capture_output=True, text=True).stdout
        learned = {(p["gpu"], p["spec"]): p["predicted_us"]["learned"] for p in json.loads(out)["points"]
                   if p["split"].startswith(a.split) and p["family"] == "gemm"}
        rows = [r for r in rows if (r["gpu"], r["spec"]) in learned]
        batch = os.path.join(tmp, "batch.csv")
        with open(batch, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["family", "gpu", "m", "n", "k", "batch", "dtype", "scales", "l2"])
            for r in rows:
                w.writerow(["gemm", r["gpu"], r["m"], r["n"], r["k"], r["batch"] if r["batch"] > 1 else "",
                            r["dtype"], r["scales"], "warm" if r["state"] == "warm" else ""])
        # The chosen config (path, split-K) does not depend on the learned model.
        out = subprocess.run([a.loom, "predict", "--gpu", "h200", "--batch", batch, "--format", "json"],
                             check=True, capture_output=True, text=True)
        preds = json.loads(out.stdout)["predictions"]
    finally:
        shutil.rmtree(tmp)

    for r, p in zip(rows, preds):
        r["predicted_us"] = learned[(r["gpu"], r["spec"])]
        r["config"] = p["config"]
        reason = p.get("config_reason", "")
        r["pred_path"] = reason.split("traced cuBLAS path: ")[1].split(" ")[0] if "traced cuBLAS path: " in reason \
            else ("simt" if r["dtype"] == "fp32" else "wgmma")
        r["pred_launches"] = 2 if "_sk" in p["config"] else 1
        r["align"] = "a%d" % align_bytes(r["k"], r["n"], r["dtype"])
        r["mb"] = m_bucket(r["m"])
        r["op"] = "bmm" if r["batch"] > 1 else ("scaled_mm" if r["dtype"] == "fp8" else "linear")
        r["ape"] = 100 * abs(r["predicted_us"] - r["measured_us"]) / r["measured_us"]
        r["err"] = 100 * (r["predicted_us"] - r["measured_us"]) / r["measured_us"]
        r["path_match"] = "path ok" if r["pred_path"] == r["traced"] else "path %s->%s" % (r["pred_path"], r["traced"])
        r["launch_match"] = "launches %d/%d" % (r["pred_launches"], r["launches"])
        r["size"] = "<10us" if r["measured_us"] < 10 else "10-50us" if r["measured_us"] < 50 else \
            "50-200us" if r["measured_us"] < 200 else ">=200us"

    total = sum(r["ape"] for r in rows)
    print("held-out PyTorch GEMMs: %d rows, MAPE %.2f%% (cold %.2f%%, warm %.2f%%)\n" % (
        len(rows), total / len(rows),
        *[sum(r["ape"] for r in rows if r["state"] == st) / sum(1 for r in rows if r["state"] == st)
          for st in ("cold", "warm")]))

    def table(title, key):
        g = collections.defaultdict(list)
        for r in rows:
            g[key(r)].append(r)
        print("| %s | n | MAPE | share of error mass | mean signed | median APE |" % title)
        print("| --- | ---: | ---: | ---: | ---: | ---: |")
        for k, rs in sorted(g.items(), key=lambda kv: -sum(r["ape"] for r in kv[1])):
            apes = sorted(r["ape"] for r in rs)
            print("| %s | %d | %.1f%% | %.1f%% | %+.1f%% | %.1f%% |" % (
                k, len(rs), sum(apes) / len(rs), 100 * sum(apes) / total, sum(r["err"] for r in rs) / len(rs),
                apes[len(apes) // 2]))
        print()

    table("gpu / state", lambda r: "%s %s" % (r["gpu"], r["state"]))
    table("dtype", lambda r: r["dtype"] + (" " + r["scales"] if r["scales"] else ""))
    table("op", lambda r: r["op"])
    table("K/N alignment", lambda r: r["align"])
    table("M bucket", lambda r: r["mb"])
    table("measured time", lambda r: r["size"])
    table("predicted -> traced path", lambda r: r["path_match"])
    table("launches predicted/traced", lambda r: r["launch_match"])
    table("traced path x launches", lambda r: "%s x%d" % (r["traced"], r["launches"]))
    table("dtype x alignment x traced path", lambda r: "%s %s %s" % (r["dtype"], r["align"], r["traced"]))
    if a.rows:
        keys = ["gpu", "state", "spec", "op", "dtype", "scales", "align", "mb", "traced", "pred_path", "launches",
                "pred_launches", "config", "measured_us", "predicted_us", "err"]
        with open(a.rows, "w", newline="") as f:
            w = csv.DictWriter(f, keys, extrasaction="ignore")
            w.writeheader()
            w.writerows(rows)


if __name__ == "__main__":
    sys.exit(guarded(main))
