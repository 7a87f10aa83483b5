#!/usr/bin/env python3
"""Every `loom tune --kernel` choice of one loom binary, for regression checks of the decision code.

Shapes: every distinct shape of the Triton corpora under traces/tune/<gpu>/ (moe-triton, moe-triton-fp8 and
gemm-triton; held-out and sampled alike) plus --random seeded random shapes per GPU and family. Output: one line
per decision, "gpu<TAB>spec<TAB>the decision's JSON" (config, G, L, waves, bucket, predicted us), sorted; two
binaries' outputs must be identical (`diff`). Timing is off (--reps 0), so the output is deterministic.

  python3 scripts/tune-choices.py --loom /path/to/old/loom > old.tsv
  python3 scripts/tune-choices.py --loom build/loom > new.tsv && diff old.tsv new.tsv && echo identical
"""
import argparse
import concurrent.futures
import csv
import gzip
import io
import json
import os
import random
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from script_errors import Parser, fail, guarded, require_loom  # noqa: E402,F401  (one loom: line, exit 2)

GPUS = {"h100-sxm": "h100", "h200": "h200"}  # catalogue key -> traces/tune folder


def corpus_shapes(root, folder):
    shapes = set()
    base = os.path.join(root, "traces", "tune", folder)
    for name in sorted(os.listdir(base)):
        if "triton" not in name or not name.endswith(".corpus.csv.gz"):
            continue
        with gzip.open(os.path.join(base, name), "rt") as f:
            rows = csv.DictReader(io.StringIO("".join(l for l in f if not l.startswith("#"))))
            for row in rows:
                spec = " ".join(t for t in row["spec"].split() if not t.startswith("config="))
                shapes.add(spec + " impl=triton")
    return shapes


def random_shapes(seed, count):
    rng = random.Random(seed)
    out = set()
    while len(out) < count:
        if rng.random() < 0.5:
            m = int(2 ** rng.uniform(0, 13))
            n = rng.choice([128, 256, 512, 1024, 1536, 2048, 3072, 4096, 5120, 6144, 7168, 8192, 14336, 28672])
            k = rng.choice([256, 512, 1024, 2048, 3072, 4096, 5120, 7168, 8192, 14336]) + rng.choice([0, 0, 0, 8, 64])
            out.add(f"gemm m={m} n={n} k={k} dtype=bf16 impl=triton")
        else:
            e = rng.choice([8, 16, 60, 64, 128, 256])
            topk = rng.choice([1, 2, 4, 6, 8])
            topk = min(topk, e)
            tokens = int(2 ** rng.uniform(0, 12))
            hidden = rng.choice([1024, 2048, 3584, 4096, 5120, 6144, 7168])
            inter = rng.choice([128, 256, 384, 512, 768, 1024, 1408, 2048, 2560, 4096, 14336])
            dtype = rng.choice(["bf16", "fp8"])
            stage = rng.choice(["w13", "w2"])
            out.add(f"moe tokens={tokens} experts={e} topk={topk} hidden={hidden} inter={inter} dtype={dtype} "
                    f"impl=triton stage={stage}")
    return out


def decide(loom, gpu, spec, env):
    r = subprocess.run([loom, "tune", "--gpu", gpu, "--kernel", spec, "--reps", "0", "--format", "json"],
                       capture_output=True, text=True, env=env)
    if r.returncode != 0:
        return f"{gpu}\t{spec}\terror: {r.stderr.strip()}"
    try:
        json.loads(r.stdout)
    except ValueError:
        raise ValueError(f"{loom}: 'tune --format json' printed no JSON (exit {r.returncode}); is it a loom binary?")
    return f"{gpu}\t{spec}\t{json.dumps(json.loads(r.stdout), sort_keys=True)}"


def main():
    ap = Parser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--loom", required=True)
    ap.add_argument("--random", type=int, default=300, help="random shapes per GPU (default 300)")
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    require_loom(a.loom)
    if a.random < 0:
        fail(f"--random {a.random}: give 0 or more shapes")
    if a.jobs < 1:
        fail(f"--jobs {a.jobs}: give 1 or more")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, LOOM_HOME=root)  # both binaries read this checkout's models/tune
    work = []
    for gpu, folder in GPUS.items():
        for spec in sorted(corpus_shapes(root, folder) | random_shapes(1 + list(GPUS).index(gpu), a.random)):
            work.append((gpu, spec))
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as ex:
        lines = list(ex.map(lambda w: decide(a.loom, w[0], w[1], env), work))
    sys.stdout.write("\n".join(sorted(lines)) + "\n")
    print(f"{len(lines)} decisions", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(guarded(main))
