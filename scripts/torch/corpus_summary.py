"""Summary table of one collection run (scripts/collect.sh): per partition and step, case counts per family, trace
records, dropped records, kernels replayed from graphs, the CUPTI-vs-event check and the step's time and exit code.

  python3 scripts/torch/corpus_summary.py RUN_DIR [--steps steps.tsv] [--json summary.json]
"""

import argparse
import collections
import csv
import glob
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lct_check  # noqa: E402


def family_counts(cases_path):
    counts = collections.Counter()
    with open(cases_path) as f:
        lines = [l for l in f if not l.startswith("#")]
    reader = csv.DictReader(lines)
    if "family" not in (reader.fieldnames or []):
        raise ValueError("%s: no column 'family'; is this a loom-bench case list?" % cases_path)
    for row in reader:
        counts[row["family"]] += 1
    return counts


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("run_dir")
    p.add_argument("--steps")
    p.add_argument("--json")
    args = p.parse_args()
    if not os.path.isdir(args.run_dir):  # a typo printed an empty table and exit 0
        lct_check.fail("%s: not a directory; give a collection run's folder (scripts/collect.sh --out)" % args.run_dir)
    steps = {}
    if args.steps and os.path.exists(args.steps):
        with open(args.steps) as f:
            for row in csv.DictReader(f, delimiter="\t"):
                steps[(row["step"], row["partition"])] = row
    names = {"bench": "loom-bench", "attention": "attention", "memory_ops": "memory_ops",
             "hf_eager": "hf_eager", "graph_decode": "graph_decode"}
    out, problems = [], 0
    hdr = "%-7s %-12s %6s %-44s %8s %6s %6s %7s %5s %6s %4s %5s" % (
        "part", "step", "cases", "families", "records", "ranges", "graphK", "dropped", "noK", "cupti/ev", "rc", "secs")
    print(hdr)
    print("-" * len(hdr))
    for d in sorted(glob.glob(os.path.join(args.run_dir, "*")), key=lambda x: (not x.endswith("e2e"), x)):
        if not os.path.isdir(d):
            continue
        part = os.path.basename(d)
        for prefix in sorted({f[: -len(".log")] for f in glob.glob(os.path.join(d, "*.log"))}):
            base = os.path.basename(prefix)
            step_name = names.get(base, base)
            key = (step_name, part[3:] if part.startswith("sms") else "all")
            st = steps.get(key, {})
            s = {"partition": part, "step": step_name, "rc": st.get("rc", "?"), "seconds": st.get("seconds", "?")}
            cases_path, lct_path = prefix + ".cases.csv", prefix + ".lct"
            s["families"] = dict(family_counts(cases_path)) if os.path.exists(cases_path) else {}
            s["cases"] = sum(s["families"].values())
            if os.path.exists(lct_path):
                t = lct_check.parse_lct(lct_path)
                s.update({"records": sum(t["counts"].values()), "ranges": t["counts"]["R"],
                          "graph_kernels": sum(1 for k in t["kernels"] if k[2] != 0),
                          "dropped": int((t["end"] or {}).get("dropped", -1)), "trace_errors": t["errors"][:3]})
                if os.path.exists(cases_path):
                    s.update(lct_check.join(t, cases_path))
                if t["errors"] or s["dropped"] != 0:
                    problems += 1
            else:
                s.update({"records": 0, "dropped": -1, "trace_errors": ["no trace"]})
                problems += 1
            fams = ",".join("%s:%d" % kv for kv in sorted(s["families"].items())) or "-"
            print("%-7s %-12s %6d %-44s %8d %6s %6s %7d %5s %6s %4s %5s" % (
                part, step_name, s["cases"], fams[:44], s["records"], s.get("ranges", "-"), s.get("graph_kernels", "-"),
                s["dropped"], s.get("cases_without_kernels", "-"), s.get("cupti_over_event_median", "-"),
                s["rc"], s["seconds"]))
            for e in s.get("trace_errors", []):
                print("        trace problem: %s" % e)
            out.append(s)
    print("-" * len(hdr))
    print("%d steps, %d cases, %d trace records, %d dropped, %d traces with problems; "
          "noK = cases whose loom.rep ranges "
          "held no kernel; cupti/ev = median over cases of (summed CUPTI kernel time per rep) / (CUDA-event time)"
          % (
              len(out), sum(s["cases"] for s in out), sum(s["records"] for s in out),
              sum(max(s["dropped"], 0) for s in out), problems))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(lct_check.guarded(main))
