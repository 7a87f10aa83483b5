#!/usr/bin/env python3
"""Shrinks a collector trace (.lct / .lct.gz) to what `loom validate --e2e` and `loom trace import` read: the NVTX
ranges, and the kernel, memcpy and memset records that start inside a `loom.rep` or `loom.host_probe` range (warm-up
launches, model building and graph capture are dropped). `--reps N` keeps only the first N reps of every case (their ranges too).
The header is kept and `#end records=` is rewritten; `#trimmed=` records what was done. Used for the tensor-parallel
end-to-end traces (traces/e2e/h200/tp*), whose full traces are 4-10 MB each.

  python3 scripts/trim-lct.py IN.lct.gz OUT.lct.gz [--reps 7]
"""
import argparse
import bisect
import gzip
import os
import re
import sys
import zlib


def die(msg):
    print("loom: " + msg, file=sys.stderr)  # one line, as loom's own refusals
    sys.exit(2)


class Parser(argparse.ArgumentParser):
    def error(self, message):  # argparse's usage + error lines -> one line
        die("trim-lct.py: %s; usage: python3 scripts/trim-lct.py IN.lct.gz OUT.lct.gz [--reps N]" % message)


def main():
    p = Parser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("src")
    p.add_argument("dst")
    p.add_argument("--reps", type=int, default=0, help="reps kept per case (0 = all)")
    a = p.parse_args()
    if a.reps < 0:
        die("--reps %d: give 0 (all) or a positive count" % a.reps)
    opener = gzip.open if a.src.endswith(".gz") else open
    try:
        with opener(a.src, "rt", encoding="utf-8") as f:
            lines = f.read().split("\n")
    except (OSError, EOFError, UnicodeDecodeError, zlib.error) as e:  # zlib.error: a corrupt stream (round 18)
        die("%s: cannot read (%s); give a collector trace (.lct or .lct.gz)" % (a.src, e))
    if not lines or lines[0] != "#loom-cupti 1":
        die("%s:1: not a loom collector trace (first line is not '#loom-cupti 1')" % a.src)
    if not any(l.startswith("#end ") for l in lines[-3:]):
        die("%s: truncated trace (no #end line); nothing written" % a.src)
    for n, l in enumerate(lines):
        if l.startswith("#end ") and not re.fullmatch(r"#end records=\d+( dropped=\d+)?", l):
            die("%s:%d: '%s': not '#end records=N dropped=N'; give a complete collector trace" % (a.src, n + 1, l[:60]))
    if os.path.exists(a.dst) and os.path.samefile(a.src, a.dst):  # the trace was rewritten trimmed, the full one lost
        die("%s: is also the input; give another output file" % a.dst)
    header = [l for l in lines if l.startswith("#") and not l.startswith("#end ")]
    end = [l for l in lines if l.startswith("#end ")][-1]
    dropped = end.split("dropped=")[1] if "dropped=" in end else "0"
    recs = [l for l in lines if l and not l.startswith("#")]
    ranges = [l.split("\t") for l in recs if l.startswith("R\t")]
    for n, l in enumerate(recs):
        f = l.split("\t")
        if f[0] in ("K", "C", "S", "R") and (len(f) < 5 or not f[1].isdigit() or not f[2].isdigit()):
            die("%s: record %d ('%s...'): fewer than 5 fields or a start/end that is not an integer"
                % (a.src, n + 1, l[:40]))
        if f[0] in ("K", "C", "S", "R") and int(f[1]) > int(f[2]):  # kept or dropped by a range it is not in
            die("%s: record %d ('%s...'): starts at %s, after its end %s; give a collector trace"
                % (a.src, n + 1, l[:40], f[1], f[2]))
    cases = sorted((int(r[1]), int(r[2])) for r in ranges if r[4].startswith("loom.case="))
    reps = sorted((int(r[1]), int(r[2])) for r in ranges if r[4] == "loom.rep")
    probes = sorted((int(r[1]), int(r[2])) for r in ranges if r[4] == "loom.host_probe")
    keep = []
    for c0, c1 in cases:
        inside = [r for r in reps if c0 <= r[0] and r[1] <= c1]
        kept = inside[:a.reps] if a.reps > 0 else inside
        # host probes (hf_eager.py --host-probe) after the kept reps stay with them
        until = inside[len(kept)][0] if len(kept) < len(inside) else c1
        keep += kept + [r for r in probes if c0 <= r[0] and r[1] <= c1 and r[0] < until]
    keep.sort()
    starts = [r[0] for r in keep]

    def in_kept(t0, t1=None):
        i = bisect.bisect_right(starts, t0) - 1
        if i < 0:
            return False
        r = keep[i]
        return r[0] <= t0 < r[1] if t1 is None else (r[0] <= t0 and t1 <= r[1])

    out = []
    for l in recs:
        f = l.split("\t", 4)
        if f[0] == "R":
            # case ranges stay; any other range (reps, phases, NCCL's own) only inside a kept rep
            if l.split("\t")[4].startswith("loom.case=") or in_kept(int(f[1]), int(f[2])):
                out.append(l)
        elif f[0] in ("K", "C", "S"):
            if in_kept(int(f[1])):
                out.append(l)
        else:
            out.append(l)
    header.append("#trimmed=scripts/trim-lct.py: records inside loom.rep and loom.host_probe ranges only%s; %d of %d records kept"
                  % (", first %d reps per case" % a.reps if a.reps else "", len(out), len(recs)))
    text = "\n".join(header + out + ["#end records=%d dropped=%s" % (len(out), dropped)]) + "\n"
    try:  # a missing or read-only folder, a full disk: one line, not a traceback
        with gzip.GzipFile(a.dst, "wb", compresslevel=9, mtime=0) as g:
            g.write(text.encode())
    except OSError as e:
        die("%s: write failed: %s; check that the folder exists, is writable and has free space"
            % (a.dst, e.strerror or e))
    try:
        print("%s: %d -> %d records" % (a.dst, len(recs), len(out)))
        sys.stdout.flush()
    except OSError as e:  # stdout on a full disk (> /dev/full)
        sys.stdout = None
        die("stdout: write failed: %s; check that the folder exists, is writable and has free space"
            % (e.strerror or e))


if __name__ == "__main__":
    main()
