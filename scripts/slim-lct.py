#!/usr/bin/env python3
"""Keeps of a loom-cupti trace (.lct.gz) its header lines, every NVTX range record (R) whose name starts with PREFIX,
and the kernel records (K) that lie inside one of those ranges; drops set-up work (weight initialisation, warm-up
outside the ranges) and the other record kinds. Used on traces whose only reader sums kernels inside named ranges
(scripts/torch/tune/prefill_summary.py), to keep the checkout the GPU machines receive under 64 MiB.
  python3 scripts/slim-lct.py IN.lct.gz OUT.lct.gz loom.prefill="""
import bisect
import gzip
import sys


def main(src, dst, prefix):
    head, ranges, kernels = [], [], []
    with gzip.open(src, "rt") as f:
        for line in f:
            p = line.rstrip("\n").split("\t")
            if line.startswith("#"):
                head.append(line)
            elif p[0] == "R" and p[4].startswith(prefix):
                ranges.append((int(p[1]), int(p[2]), line))
            elif p[0] == "K":
                kernels.append((int(p[1]), int(p[2]), line))
    ranges.sort()
    starts = [r[0] for r in ranges]
    kept = []
    for ks, ke, line in kernels:
        i = bisect.bisect_right(starts, ks) - 1
        # ranges of one process do not overlap; check the nearest earlier start and the one before it
        if any(0 <= j and ranges[j][0] <= ks and ke <= ranges[j][1] for j in (i, i - 1)):
            kept.append(line)
    with gzip.GzipFile(dst, "wb", compresslevel=9, mtime=0) as g:
        g.write("".join(head + [r[2] for r in ranges] + kept).encode())
    print("%s: %d ranges, %d of %d kernels kept" % (dst, len(ranges), len(kept), len(kernels)))


if __name__ == "__main__":
    main(*sys.argv[1:4])
