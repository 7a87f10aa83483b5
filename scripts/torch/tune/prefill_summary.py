"""GPU time of the traced MoE prefills (traces/tune/<gpu>/moe-prefill.lct.gz, scripts/torch/tune/moe_prefill.py):
per (variant, tokens), the sum of kernel durations inside each `loom.prefill=...` NVTX range (median over reps, the
first two reps of each being warm-up), and the fused-MoE kernels' part of it. The CUDA-event times in
moe-prefill.json include the host: the PyTorch token sort synchronises twice per layer, which engines (one CUDA
kernel, no sync) do not; the kernel sum is the TTFT a launch-ahead engine would see.
  python3 scripts/torch/tune/prefill_summary.py traces/tune/h200/moe-prefill.lct.gz [...]
  python3 scripts/torch/tune/prefill_summary.py traces/tune/h200/moe-prefill-reps.csv [...]
  python3 scripts/torch/tune/prefill_summary.py X.lct.gz --reps-csv X-reps.csv   # the per-rep sums of a trace

The committed traces were replaced on 2026-11-28 by their per-rep sums (moe-prefill-reps.csv: every range's kernel
sum and fused-MoE part, in trace order), which give the same table; the traces themselves stay in git history
(`git log -- traces/tune/h200/moe-prefill.lct.gz`)."""

import gzip
import math
import statistics
import sys

USAGE = ("usage: prefill_summary.py TRACE.lct.gz|REPS.csv [...], or TRACE.lct.gz --reps-csv OUT.csv; give the files "
         "to summarise")


def die(msg):
    print("loom: " + msg, file=sys.stderr)  # one line and exit 2, as loom's own refusals
    sys.exit(2)


def rep_sums(path):
    """[(range name, kernel sum ms, fused-MoE kernels ms, line)] of every loom.prefill range, in start order."""
    if path.endswith(".csv"):
        try:
            with open(path, encoding="utf-8") as f:
                lines = [(n, line.rstrip("\r\n")) for n, line in enumerate(f, 1) if not line.startswith("#")]
        except (OSError, UnicodeDecodeError) as e:
            die("%s: cannot read (%s); give a --reps-csv file" % (path, e))
        if not lines or lines[0][1] != "range,gpu_ms,moe_ms":
            die("%s:%d: header must be range,gpu_ms,moe_ms" % (path, lines[0][0] if lines else 1))
        out = []
        for n, line in lines[1:]:
            r = line.split(",")
            try:
                if len(r) != 3:
                    raise ValueError("3 fields expected")
                tot, moe = float(r[1]), float(r[2])
                # nan, inf, a negative time or a MoE part above the total were printed as they came (round 15)
                if not (math.isfinite(tot) and math.isfinite(moe) and 0 <= moe <= tot):
                    raise ValueError("gpu_ms and moe_ms must be finite ms with 0 <= moe_ms <= gpu_ms")
                out.append((r[0].replace(";", ","), tot, moe, n))
            except ValueError as e:
                die("%s:%d: '%s': %s; fix the row" % (path, n, line[:60], e))
        return out
    ranges, kernels = [], []
    n = 0
    try:
        with gzip.open(path, "rt", encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                p = line.rstrip("\n").split("\t")
                if p[0] == "R" and len(p) >= 5 and p[4].startswith("loom.prefill="):
                    ranges.append((int(p[1]), int(p[2]), p[4][len("loom.prefill="):], n))
                elif p[0] == "K":
                    kernels.append((int(p[1]), int(p[2]), p[-1]))
                elif p[0] == "R" and len(p) < 5:
                    raise ValueError("a range record has 5 fields")
    except (OSError, EOFError, UnicodeDecodeError) as e:  # not gzip, truncated, a folder, missing
        die("%s: cannot read as a gzip .lct trace (%s); give a trace of scripts/torch/tune/moe_prefill.py" % (path, e))
    except (ValueError, IndexError) as e:
        die("%s:%d: not a trace record (%s); give a trace of scripts/torch/tune/moe_prefill.py" % (path, n, e))
    kernels.sort()
    sums = []
    for start, end, name, line in sorted(ranges):
        tot = moe = 0
        for ks, ke, kn in kernels:
            if ks >= start and ke <= end:
                tot += ke - ks
                moe += (ke - ks) if "fused_moe_kernel" in kn else 0
        sums.append((name, tot / 1e6, moe / 1e6, line))
    return sums


def summarise(path):
    reps = {}
    for name, tot, moe, line in rep_sums(path):
        variant, sep, tokens = name.partition(",tokens=")
        if not sep or not tokens.isdigit() or not variant:
            die("%s:%d: range '%s' is not VARIANT,tokens=N; give moe_prefill.py's ranges" % (path, line, name[:60]))
        reps.setdefault((variant, int(tokens)), []).append((tot, moe))
    if not reps:
        die("%s: no loom.prefill ranges (rows); give moe_prefill.py's trace or its --reps-csv" % path)
    out = {}
    for (variant, tokens), v in reps.items():
        v = v[2:] if len(v) > 2 else v
        out.setdefault(tokens, {})[variant] = (statistics.median(x[0] for x in v),
                                               statistics.median(x[1] for x in v))
    for t, d in sorted(out.items()):
        for variant in ("default", "loom"):
            if variant not in d:
                die("%s: tokens=%d has no '%s' ranges; the summary compares default with loom" % (path, t, variant))
            if d[variant][0] <= 0 or d[variant][1] <= 0:
                die("%s: tokens=%d: the %s ranges' kernel time (or its fused-MoE part) is 0 ms; give a trace whose "
                    "ranges hold their kernels" % (path, t, variant))
    return out


def main():
    args = sys.argv[1:]
    if "--reps-csv" in args:
        if len(args) != 3 or args[1] != "--reps-csv":
            die(USAGE)
        sums = rep_sums(args[0])  # read before the output is opened: a refused input leaves no file behind
        try:
            with open(args[2], "w") as f:
                f.write("# per-rep kernel sums of %s (scripts/torch/tune/prefill_summary.py --reps-csv); ms\n"
                        % args[0])
                f.write("range,gpu_ms,moe_ms\n")
                for name, tot, moe, _ in sums:
                    f.write("%s,%.6f,%.6f\n" % (name.replace(",", ";"), tot, moe))
        except OSError as e:
            die("%s: cannot write (%s); give a writable file for --reps-csv" % (args[2], e))
        return
    if not args or any(a.startswith("-") for a in args):
        die(USAGE)
    for path in args:
        table = summarise(path)  # a refusal before any of this file's lines
        print(path)
        print("tokens  default GPU ms (MoE)   loom GPU ms (MoE)   speedup total / MoE kernels")
        for t, d in sorted(table.items()):
            (dt, dm), (lt, lm) = d["default"], d["loom"]
            print("%6d  %8.2f (%7.2f)  %8.2f (%7.2f)   %.3fx / %.3fx" % (t, dt, dm, lt, lm, dt / lt, dm / lm))


if __name__ == "__main__":
    main()
