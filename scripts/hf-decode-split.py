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
    """Kernels (start, end, name) and ranges (start, end, name) of a collector trace; a malformed record names its
    line (a short or non-numeric one said only "list index out of range", with no file)."""
    kernels, ranges = [], []
    with reading(path), gzip.open(path, "rt") as f:
        for n, line in enumerate(f, 1):
            p = line.rstrip("\n").split("\t")
            if p[0] not in ("K", "R"):
                continue
            if len(p) < 5 or not p[1].isdigit() or not p[2].isdigit() or int(p[1]) > int(p[2]):
                fail(f"{path}:{n}: {p[0]} record '{line[:40].strip()}': not START END ... NAME with 0 <= START <= END; "
                     "give a collector trace")
            (kernels if p[0] == "K" else ranges).append((int(p[1]), int(p[2]), p[-1] if p[0] == "K" else p[4]))
    kernels.sort()
    return kernels, ranges


def read_specs(path):
    """case id -> spec of the run's case list (case_id,...,spec)."""
    specs = {}
    with reading(path), open(path, encoding="utf-8") as f:
        rows = csv.reader(line for line in f if not line.startswith("#"))
        if next(rows, None) is None:
            fail(f"{path}: no header; give the run's case list")
        for n, r in enumerate(rows, 2):
            if len(r) < 3 or not r[0].isdigit():
                fail(f"{path}: row {n}: not CASE_ID,...,SPEC; give the run's case list")
            specs[int(r[0])] = r[2]
    return specs


def is_attention(name):
    return "sdpa" in name or "flash" in name or "fmha" in name


def steps_of(folder):
    trace, cases = os.path.join(folder, "hf_eager.lct.gz"), os.path.join(folder, "hf_eager.cases.csv")
    kernels, ranges = read_trace(trace)
    specs = read_specs(cases)
    phases = sorted(r for r in ranges if r[2] == "loom.phase=decode")
    for c0, c1, name in sorted(r for r in ranges if r[2].startswith("loom.case=")):
        case_id = name.split("=")[1]
        if not case_id.isdigit() or int(case_id) not in specs:
            fail(f"{trace}: range '{name[:40]}' names no case of {cases}; give the run's own case list")
        spec = specs[int(case_id)]
        if not spec.startswith("e2e_decode"):
            continue
        steps = []
        for p0, p1, _ in phases:
            if not (c0 <= p0 and p1 <= c1):
                continue
            ks = [k for k in kernels if p0 <= k[0] < p1]
            att = [i for i, k in enumerate(ks) if is_attention(k[2]) and i > 0]
            gaps = [(ks[i][0] - ks[i - 1][1]) / 1e3 for i in att]
            if len(gaps) < 2:  # the plan gap (layer 0) and at least one ordinary one (layers 1..)
                fail(f"{trace}: case '{spec}': the decode step at {p0} has {len(gaps)} attention kernel(s) after its "
                     "first kernel, not one per layer; give the HF eager run's trace")
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
            if len(steps) < 2:  # the p10/p90 of the plan gap need two
                fail(f"{folder}: case '{spec}' has {len(steps)} decode step in hf_eager.lct.gz; give a run of 2 or "
                     "more")
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
