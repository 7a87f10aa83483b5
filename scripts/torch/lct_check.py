"""Checks `.lct` collector traces (traces/FORMAT.md section 1) and, given a case list, their join: per case, the
kernels inside each loom.rep range, summed, against the sweep's CUDA-event median. Used by scripts/collect.sh.

  python3 scripts/torch/lct_check.py TRACE.lct [--cases PREFIX.cases.csv] [--json OUT.json]

Prints one summary line per trace; exits 1 if a trace is truncated, malformed, or dropped records.
"""

import argparse
import bisect
import csv
import gzip
import json
import math
import os
import re
import statistics
import sys
import zlib

FIELDS = {"K": 17, "C": 7, "S": 6, "R": 4}


def open_text(path):
    return gzip.open(path, "rt") if path.endswith(".gz") else open(path)


def parse_lct(path):
    """Returns dict: meta, kernels [(start,end,graph_node,name)], ranges [(start,end,name)], counts, end, errors."""
    t = {"meta": {}, "kernels": [], "ranges": [], "counts": {k: 0 for k in FIELDS}, "end": None, "errors": []}
    with open_text(path) as f:
        first = f.readline().rstrip("\n")
        if first != "#loom-cupti 1":
            t["errors"].append("first line is %r, not '#loom-cupti 1'" % first)
        for n, line in enumerate(f, start=2):
            line = line.rstrip("\n")
            if line.startswith("#end "):
                t["end"] = dict(kv.split("=", 1) for kv in line[5:].split() if "=" in kv)
                continue
            if line.startswith("#"):
                k, _, v = line[1:].partition("=")
                t["meta"][k] = v
                continue
            parts = line.split("\t")
            kind = parts[0]
            if kind not in FIELDS or len(parts) - 1 != FIELDS[kind]:
                t["errors"].append("line %d: bad record %r" % (n, line[:80]))
                continue
            try:  # a record whose times are not integers is a bad record, not a traceback
                if kind == "K":
                    t["kernels"].append((int(parts[1]), int(parts[2]), int(parts[7]), parts[17]))
                elif kind == "R":
                    t["ranges"].append((int(parts[1]), int(parts[2]), parts[4]))
            except ValueError:
                t["errors"].append("line %d: bad number in record %r" % (n, line[:80]))
                continue
            t["counts"][kind] += 1
    if t["end"] is None:
        t["errors"].append("no #end line: truncated")
    elif not re.fullmatch(r"[0-9]+", t["end"].get("records", "")) or \
            not re.fullmatch(r"-?[0-9]+", t["end"].get("dropped", "0")):
        t["errors"].append("#end line without integer records= and dropped=: %r" % t["end"])
        t["end"] = None
    elif int(t["end"]["records"]) != sum(t["counts"].values()):
        t["errors"].append("#end records=%s but %d record lines" % (t["end"]["records"], sum(t["counts"].values())))
    t["kernels"].sort()
    return t


def join(trace, cases_path):
    """Per case: median over loom.rep ranges of the summed kernel time inside each; compares to event median."""
    starts = [k[0] for k in trace["kernels"]]
    case_ranges = {}
    reps = []
    for s, e, name in trace["ranges"]:
        if name.startswith("loom.case="):
            case_ranges[name.split("=", 1)[1]] = (s, e)
        elif name == "loom.rep":
            reps.append((s, e))
    reps.sort()
    rep_starts = [r[0] for r in reps]
    rows, ratios, empty = 0, [], 0
    with open(cases_path) as f:
        lines = [l for l in f if not l.startswith("#")]
    reader = csv.DictReader(lines)
    for col in ("case_id", "event_median_us"):
        if col not in (reader.fieldnames or []):
            raise ValueError("%s: no column %r; is this a loom-bench case list?" % (cases_path, col))
    for row in reader:
        rows += 1
        cr = case_ranges.get(row["case_id"])
        if cr is None:
            empty += 1
            continue
        sums = []
        for i in range(bisect.bisect_left(rep_starts, cr[0]), bisect.bisect_right(rep_starts, cr[1])):
            rs, re_ = reps[i]
            total = 0
            for j in range(bisect.bisect_left(starts, rs), bisect.bisect_right(starts, re_)):
                ks, ke, _, name = trace["kernels"][j]
                if ke <= re_ and "loom_l2_flush" not in name:
                    total += ke - ks
            if total > 0:
                sums.append(total / 1000.0)
        if not sums:
            empty += 1
            continue
        try:
            ev = float(row["event_median_us"])
        except (TypeError, ValueError):
            ev = 0.0
        if math.isfinite(ev) and ev > 0:  # nan/inf/empty event times join no ratio
            ratios.append(statistics.median(sums) / ev)
    return {"cases": rows, "cases_without_kernels": empty,
            "cupti_over_event_median": round(statistics.median(ratios), 3) if ratios else None}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("traces", nargs="+")
    p.add_argument("--cases", help="case list to join with (only with one trace)")
    p.add_argument("--json", help="write the summaries here")
    args = p.parse_args()
    bad = 0
    out = []
    for path in args.traces:
        try:
            t = parse_lct(path)
        except (OSError, EOFError, UnicodeDecodeError, zlib.error) as e:  # missing, a folder, not gzip, not text
            fail("%s: %s" % (path, getattr(e, "strerror", None) or e))
        names = [r[2] for r in t["ranges"]]
        s = {"trace": path, "gpu": t["meta"].get("gpu"), "sms": t["meta"].get("sms"),
             "records": sum(t["counts"].values()), "dropped": int((t["end"] or {}).get("dropped", -1)),
             "kernels": t["counts"]["K"], "memcpy": t["counts"]["C"], "memset": t["counts"]["S"],
             "ranges": t["counts"]["R"], "graph_kernels": sum(1 for k in t["kernels"] if k[2] != 0),
             "case_ranges": sum(n.startswith("loom.case=") for n in names),
             "rep_ranges": names.count("loom.rep"),
             "phase_ranges": sum(n.startswith("loom.phase=") for n in names), "errors": t["errors"][:5]}
        if args.cases and len(args.traces) == 1:
            s.update(join(t, args.cases))
        if t["errors"] or s["dropped"] != 0:
            bad += 1
        out.append(s)
        print(" ".join("%s=%s" % (k, v) for k, v in s.items() if k != "errors")
              + ("" if not t["errors"] else " ERRORS=%s" % t["errors"][:3]))
    if args.json:
        try:
            with open(args.json, "w") as f:
                json.dump(out, f, indent=1)
        except OSError as e:
            fail("%s: %s" % (args.json, e.strerror or e))
    return 1 if bad else 0


def fail(msg):
    """One line and exit 2, as loom's own refusals."""
    print("loom: " + msg, file=sys.stderr)
    sys.exit(2)


def guarded(main):
    """Runs main(); a bad input or output (a missing file, a malformed case list, stdout on a full disk) is one
    'loom: ' line and exit 2, not a traceback."""
    try:
        rc = main()
        sys.stdout.flush()
        return rc
    except (OSError, ValueError, csv.Error, UnicodeDecodeError) as e:
        try:
            sys.stdout = open(os.devnull, "w")  # the interpreter's final flush of a full stdout fails quietly
        except OSError:
            pass
        fail(str(e) if not isinstance(e, OSError) or not e.strerror else
             "%s: %s" % (e.filename or "stdout", e.strerror))


if __name__ == "__main__":
    sys.exit(guarded(main))
