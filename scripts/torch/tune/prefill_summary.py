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
import statistics
import sys


def die(msg):
    print("loom: " + msg, file=sys.stderr)  # one line and exit 2, as loom's own refusals
    sys.exit(2)


def rep_sums(path):
    """[(range name, kernel sum ms, fused-MoE kernels ms)] of every loom.prefill range, in start order."""
    if path.endswith(".csv"):
        try:
            with open(path) as f:
                lines = [(n, line.rstrip("\n")) for n, line in enumerate(f, 1) if not line.startswith("#")]
        except (OSError, UnicodeDecodeError) as e:
            die("%s: cannot read (%s)" % (path, e))
        if not lines or lines[0][1] != "range,gpu_ms,moe_ms":
            die("%s:%d: header must be range,gpu_ms,moe_ms" % (path, lines[0][0] if lines else 1))
        out = []
        for n, line in lines[1:]:
            r = line.split(",")
            try:
                if len(r) != 3:
                    raise ValueError("3 fields expected")
                out.append((r[0].replace(";", ","), float(r[1]), float(r[2])))
            except ValueError as e:
                die("%s:%d: '%s': %s; fix the row" % (path, n, line[:60], e))
        return out
    ranges, kernels = [], []
    with gzip.open(path, "rt") as f:
        for line in f:
            p = line.rstrip("\n").split("\t")
            if p[0] == "R" and p[4].startswith("loom.prefill="):
                ranges.append((int(p[1]), int(p[2]), p[4][len("loom.prefill="):]))
            elif p[0] == "K":
                kernels.append((int(p[1]), int(p[2]), p[-1]))
    kernels.sort()
    sums = []
    for start, end, name in sorted(ranges):
        tot = moe = 0
        for ks, ke, kn in kernels:
            if ks >= start and ke <= end:
                tot += ke - ks
                moe += (ke - ks) if "fused_moe_kernel" in kn else 0
        sums.append((name, tot / 1e6, moe / 1e6))
    return sums


def summarise(path):
    reps = {}
    for name, tot, moe in rep_sums(path):
        reps.setdefault(name, []).append((tot, moe))
    out = {}
    for name, v in reps.items():
        v = v[2:] if len(v) > 2 else v
        variant, tokens = name.split(",tokens=")
        out.setdefault(int(tokens), {})[variant] = (statistics.median(x[0] for x in v),
                                                    statistics.median(x[1] for x in v))
    return out


def main():
    if len(sys.argv) == 4 and sys.argv[2] == "--reps-csv":
        with open(sys.argv[3], "w") as f:
            f.write("# per-rep kernel sums of %s (scripts/torch/tune/prefill_summary.py --reps-csv); ms\n"
                    % sys.argv[1])
            f.write("range,gpu_ms,moe_ms\n")
            for name, tot, moe in rep_sums(sys.argv[1]):
                f.write("%s,%.6f,%.6f\n" % (name.replace(",", ";"), tot, moe))
        return
    for path in sys.argv[1:]:
        table = summarise(path)  # a refusal before any of this file's lines
        print(path)
        print("tokens  default GPU ms (MoE)   loom GPU ms (MoE)   speedup total / MoE kernels")
        for t, d in sorted(table.items()):
            (dt, dm), (lt, lm) = d["default"], d["loom"]
            print("%6d  %8.2f (%7.2f)  %8.2f (%7.2f)   %.3fx / %.3fx" % (t, dt, dm, lt, lm, dt / lt, dm / lm))


if __name__ == "__main__":
    main()
