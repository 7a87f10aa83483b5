#!/usr/bin/env python3
"""Rewrites a cublaslt_sweep CSV (bench/cublaslt) in its compact form: a shape's m, n, k, source are left empty after
the shape's first row and a config's attributes after the config's first row (src/wave/lt_sweep.cpp fills them back).
Same data, about half the gzip size: the checkout shipped to the GPU machines has a 64 MiB limit.
  python3 scripts/compact-cublaslt-sweep.py IN.csv.gz OUT.csv.gz"""
import gzip
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from script_errors import fail, guarded, reading  # noqa: E402  (one loom: line, exit 2)

ATTRS = ("algo", "bm", "bn", "stages", "splitk", "reduction", "cta_swizzle", "custom", "inner", "cluster", "tile_id",
         "stages_id", "cluster_id")


def main(src, dst):
    out, header, seen_cfg, seen_shape = [], None, set(), set()
    with reading(src), gzip.open(src, "rt") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("#") or not line:
                out.append(line)
                continue
            cells = line.split(",")
            if header is None:
                header = {name: i for i, name in enumerate(cells)}
                missing = [c for c in ("config", "shape", "m", "n", "k", "source") + ATTRS if c not in header]
                if missing:
                    fail(f"{src}: no column {missing[0]!r}; give a cublaslt_sweep CSV (bench/cublaslt)")
                out.append(line)
                continue
            if len(cells) != len(header):
                fail(f"{src}: a row of {len(cells)} cells under a header of {len(header)}; give a cublaslt_sweep CSV")
            cfg = cells[header["config"]]
            if cfg != "heuristic0":
                if cfg in seen_cfg:
                    for a in ATTRS:
                        cells[header[a]] = ""
                seen_cfg.add(cfg)
            shape = cells[header["shape"]]
            if shape in seen_shape:
                for a in ("m", "n", "k", "source"):
                    cells[header[a]] = ""
            seen_shape.add(shape)
            out.append(",".join(cells))
    with gzip.GzipFile(dst, "wb", compresslevel=9, mtime=0) as g:
        g.write(("\n".join(out) + "\n").encode())


if __name__ == "__main__":
    if len(sys.argv) != 3:
        fail("usage: compact-cublaslt-sweep.py IN.csv.gz OUT.csv.gz")
    if os.path.isdir(sys.argv[2]):
        fail(f"{sys.argv[2]}: is a folder; give the output file's name")
    sys.exit(guarded(lambda: main(*sys.argv[1:3])))
