#!/usr/bin/env bash
# Plumbing of the gemm-triton tuning target end to end on a synthetic gemm_sweep.py corpus (a roofline-like law, not
# a measurement): --fit writes tables, --validate reads the cuBLAS rows beside the sweep and the tutorial default,
# --kernel "gemm ... impl=triton" answers a config of the grid. Accuracy needs the device sweep (models/tune/README.md).
set -eu
loom=$1; src=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/traces"
python3 - "$tmp/traces/gemm-triton-1.corpus.csv.gz" <<'PY'
import gzip, itertools, math, random, sys
rng = random.Random(3)
cfgs = []
for bm, bn, bk, g, w, s in itertools.product((16, 32, 64, 128), (32, 64, 128, 256), (64, 128), (1, 8), (4, 8), (3, 4)):
    if s * (bm + bn) * bk * 2 <= 232448 and bm * bn // (w * 32) <= 256:
        cfgs.append((bm, bn, bk, g, w, s))
out = ["#loom-corpus 1", "#gpu=NVIDIA H200", "#gpu_key=h200", "#sms=132", "#tool=gemm_sweep.py",
       "case_id,family,spec,impl,kernels,grid,block,regs,smem_bytes,reps,median_us,p10_us,p90_us,spread_pct,"
       "event_median_us"]
cid = 0
for m in (1, 4, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096):
    for n, k in ((6144, 4096), (4096, 14336), (28672, 4096), (1024, 8192)):
        spec = "gemm m=%d n=%d k=%d dtype=bf16" % (m, n, k)
        cid += 1
        lib = 2.0 * m * n * k / 6e8 + n * k * 2 / 3.5e6 + 4
        out.append("%d,gemm,%s,torch,nvjet,1:1:1,128:1:1,168,0,3,%.3f,%.3f,%.3f,0,%.3f"
                   % (cid, spec, lib, lib, lib, lib))
        for bm, bn, bk, g, w, s in cfgs:
            cid += 1
            ctas = max(1, min(232448 // (s * (bm + bn) * bk * 2), 2048 // (w * 32)))
            grid = math.ceil(m / bm) * math.ceil(n / bn)
            waves = math.ceil(grid / (132 * ctas))
            loops = math.ceil(k / bk)
            per_iter = bm * bn * bk * 2 / (4.5e6 * (1.3 if w == 8 and bm * bn < 8192 else 1.0)) + 0.02 * (5 - s)
            us = waves * loops * per_iter + n * k * 2 / 3.2e6 * (1 + 0.1 * (bn == 32)) + 3
            us *= 1 + 0.02 * rng.random()
            name = "%dx%dx%d_s%d_w%d_g%d" % (bm, bn, bk, s, w, g)
            out.append("%d,gemm,%s config=%s,triton,gemm_kernel,%d:1:1,%d:1:1,128,%d,3,%.3f,%.3f,%.3f,0,%.3f" % (
                cid, spec, name, grid, w * 32, s * (bm + bn) * bk * 2, us, us, us, us))
with gzip.open(sys.argv[1], "wt") as f:
    f.write("\n".join(out) + "\n")
PY
cd "$src"
"$loom" tune --fit --traces "$tmp/traces" --gpu h200 --family gemm-triton --sample-fraction 0.25 \
  --out "$tmp/t.json" > "$tmp/fit.txt" 2>&1
grep -q "tables written to" "$tmp/fit.txt" || { cat "$tmp/fit.txt"; exit 1; }
"$loom" tune --validate --traces "$tmp/traces" --gpu h200 --family gemm-triton --sample-fraction 0.25 --no-timing \
  --format json > "$tmp/v.json" 2>/dev/null
python3 - "$tmp/v.json" <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))
assert v["cublas"]["shapes"] > 20, v.get("cublas")
methods = {m["method"].split(" (")[0]: m for m in v["methods"]}
wave = methods["wave tuner"]
assert 1.0 <= wave["geomean_ratio"] < 1.5, wave
assert any(m.startswith("default 128x256x64_s3_w8_g8") for m in methods), list(methods)
PY
"$loom" tune --gpu h200 --kernel "gemm m=64 n=4096 k=4096 dtype=bf16 impl=triton" --tables "$tmp/t.json" --reps 0 \
  > "$tmp/d.txt"
[ -n "${KEEP:-}" ] && cp "$tmp"/*.txt "$tmp/v.json" "$KEEP"/
grep -Eq "[0-9]+x[0-9]+x[0-9]+_s[34]_w[48]_g[18]" "$tmp/d.txt" || { cat "$tmp/d.txt"; exit 1; }
echo "gemm-triton fit / validate / decide: ok"
