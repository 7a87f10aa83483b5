#!/usr/bin/env python3
"""Splits the measured HF eager decode steps of traces/e2e/<gpu>/hf_eager.* (issue 12) into the host's cuDNN SDPA
plan build and the rest, per step, from the collector trace: the idle gap before the step's first attention kernel
(layer 0, where cuDNN builds the plan for the new KV length) against the gaps before the other layers' attention
kernels (ordinary launches). Prints one row per case (medians over its reps; "quiet plan": the median plan gap over the
steps whose attention gap is within 20% of the case's smallest, i.e. the host was not slowed by something else) and,
with --steps, one row per rep.
Analysis only: nothing is fitted to these validation runs.

  python3 scripts/hf-decode-split.py traces/e2e/h200 [traces/e2e/h100 ...] [--steps]
"""
import argparse
import csv
import gzip
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from script_errors import Parser, fail, guarded, reading  # noqa: E402  (one loom: line, exit 2)


def read_trace(path):
    kernels, ranges = [], []
    with reading(path), gzip.open(path, "rt") as f:
        for line in f:
            p = line.rstrip("\n").split("\t")
            if p[0] == "K":
                kernels.append((int(p[1]), int(p[2]), p[-1]))
            elif p[0] == "R":
                ranges.append((int(p[1]), int(p[2]), p[4]))
    kernels.sort()
    return kernels, ranges


def read_specs(path):
    rows = csv.reader(line for line in open(path) if not line.startswith("#"))
    if next(rows, None) is None:
        raise ValueError(f"{path}: no header; give the run's case list")
    return {int(r[0]): r[2] for r in rows}


def is_attention(name):
    return "sdpa" in name or "flash" in name or "fmha" in name


def steps_of(folder):
    kernels, ranges = read_trace(os.path.join(folder, "hf_eager.lct.gz"))
    specs = read_specs(os.path.join(folder, "hf_eager.cases.csv"))
    phases = sorted(r for r in ranges if r[2] == "loom.phase=decode")
    for c0, c1, name in sorted(r for r in ranges if r[2].startswith("loom.case=")):
        spec = specs[int(name.split("=")[1])]
        if not spec.startswith("e2e_decode"):
            continue
        steps = []
        for p0, p1, _ in phases:
            if not (c0 <= p0 and p1 <= c1):
                continue
            ks = [k for k in kernels if p0 <= k[0] < p1]
            att = [i for i, k in enumerate(ks) if is_attention(k[2]) and i > 0]
            gaps = [(ks[i][0] - ks[i - 1][1]) / 1e3 for i in att]
            steps.append({"wall_us": (p1 - p0) / 1e3, "gpu_us": sum(k[1] - k[0] for k in ks) / 1e3,
                          "kernels": len(ks), "plan_gap_us": gaps[0],
                          "attn_gap_us": statistics.median(gaps[1:]),  # layers 1..: an ordinary launch interval
                          "rest_us_per_launch": ((p1 - p0) / 1e3 - gaps[0]) / len(ks)})
        yield spec, steps


def main():
    p = Parser(description=__doc__.splitlines()[0])
    p.add_argument("folders", nargs="+")
    p.add_argument("--steps", action="store_true", help="one row per rep as well")
    a = p.parse_args()
    keys = ["wall_us", "gpu_us", "kernels", "plan_gap_us", "attn_gap_us", "rest_us_per_launch"]
    print("%-10s %-26s %9s %7s %5s %9s %9s %9s %8s %9s %12s" % (
        "gpu", "case", "wall", "gpu", "n", "plan gap", "plan p10", "plan p90", "attn gap", "rest/lnch", "quiet plan"))
    for folder in a.folders:
        gpu = os.path.basename(os.path.normpath(folder))
        if not os.path.isfile(os.path.join(folder, "hf_eager.lct.gz")):
            fail(f"{folder}: no hf_eager.lct.gz here; give a traces/e2e/<gpu> folder of the HF eager run")
        decode_cases = 0
        for spec, steps in steps_of(folder):
            decode_cases += 1
            if not steps:
                fail(f"{folder}: case '{spec}' has no decode step (loom.phase=decode range) in hf_eager.lct.gz")
            case = " ".join(w for w in spec.split() if w.startswith(("batch", "context")))
            if a.steps:
                for s in steps:
                    print("%-10s %-26s %9.0f %7.0f %5d %9.0f %9s %9s %8.0f %9.1f" % (
                        gpu, case, *[s[k] for k in keys[:4]], "", "", s["attn_gap_us"], s["rest_us_per_launch"]))
            m = {k: statistics.median(s[k] for s in steps) for k in keys}
            q = statistics.quantiles([s["plan_gap_us"] for s in steps], n=10)
            least = min(s["attn_gap_us"] for s in steps)
            quiet = [s["plan_gap_us"] for s in steps if s["attn_gap_us"] < 1.2 * least]
            print("%-10s %-26s %9.0f %7.0f %5d %9.0f %9.0f %9.0f %8.0f %9.1f %7.0f (%2d)" % (
                gpu, case + " med", m["wall_us"], m["gpu_us"], m["kernels"], m["plan_gap_us"], q[0], q[-1],
                m["attn_gap_us"], m["rest_us_per_launch"], statistics.median(quiet), len(quiet)))
        if not decode_cases:
            fail(f"{folder}: no e2e_decode case (loom.case= range of an e2e_decode spec) in hf_eager.lct.gz")


if __name__ == "__main__":
    sys.exit(guarded(main))
