#!/usr/bin/env bash
# `loom tune --validate --heldout-traces DIR --heldout-only` scores only the separately measured grid: on the blind
# Triton fused-MoE sweep (traces/checks/tune-blind/h200, part 3 of the seeded shape order, measured after the method
# was frozen) the held-out count is that grid's complete fp8 shapes not already in the pool, and the sampled shapes
# still train the fit (the pool's 20). The by-batch bands partition the scored shapes. Without the folder the flag is
# refused.
set -eu
loom=$1; src=$2
export LOOM_HOME=$src
out=$("$loom" tune --validate --traces "$src/traces/tune" --gpu h200 --family moe-triton-fp8 --no-timing \
  --heldout-traces "$src/traces/checks/tune-blind/h200" --heldout-only --format json 2>/dev/null)
expected=$(python3 - "$src" <<'PY'
import collections, csv, glob, gzip, sys
def complete(paths):
    by = collections.defaultdict(set)
    for p in paths:
        with gzip.open(p, "rt") as f:
            for r in csv.DictReader(l for l in f if not l.startswith("#")):
                t = r["spec"].split()
                if "dtype=fp8" in t:
                    by[" ".join(x for x in t if not x.startswith("config="))].add(r["spec"].split("config=")[1])
    full = max(len(v) for v in by.values())
    return {k for k, v in by.items() if len(v) == full}
blind = complete([sys.argv[1] + "/traces/checks/tune-blind/h200/moe-triton-3.corpus.csv.gz"])
pool = complete(glob.glob(sys.argv[1] + "/traces/tune/h200/moe-triton-[0-9].corpus.csv.gz"))
print(len(blind - pool))  # a kernel shape of another model's shard can repeat one the pool has: not scored
PY
)
python3 - "$expected" <<PY
import json, sys
d = json.loads('''$out''')
assert d["heldout_shapes"] == int(sys.argv[1]), (d["heldout_shapes"], sys.argv[1])
assert d["sampled_shapes"] == 20, d["sampled_shapes"]
bands = [b["band"] for b in d["by_batch"]]  # the wave tuner by batch band: every held-out shape in one band
assert bands == [b for b in ("1-3", "4-16", "17-128", ">128") if b in bands], bands
assert sum(b["shapes"] for b in d["by_batch"]) == d["heldout_shapes"], d["by_batch"]
assert all(1.0 <= b["geomean_ratio"] <= b["max_ratio"] for b in d["by_batch"]), d["by_batch"]
assert d["engine_default"]["shapes"] == d["heldout_shapes"], d["engine_default"]  # defaults-3 beside the grid
print("heldout-only: %d blind shapes scored, %d sampled" % (d["heldout_shapes"], d["sampled_shapes"]))
PY
# The decode grid of 2026-11-28 (traces/checks/tune-blind2/h200/moe-triton-fp8: tokens 3, 6, 12, fp8 only) was swept
# with its configs in another order than the pool's: they are put in the pool's order, and every shape is new.
# --per-shape FILE: each scored shape's chosen and best config as CSV; its best is the grid's own minimum, and its
# rows reproduce the report's geomean and bands.
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
out2=$("$loom" tune --validate --traces "$src/traces/tune" --gpu h200 --family moe-triton-fp8 --no-timing \
  --heldout-traces "$src/traces/checks/tune-blind2/h200/moe-triton-fp8" --heldout-only --format json \
  --per-shape "$tmp/per-shape.csv" 2>/dev/null)
python3 - "$tmp/per-shape.csv" "$src/traces/checks/tune-blind2/h200/moe-triton-fp8/moe-triton-4.corpus.csv.gz" <<PY
import collections, csv, gzip, json, math, sys
d = json.loads('''$out2''')
assert d["heldout_shapes"] == 138, d["heldout_shapes"]  # 69 (model, TP, batch) shapes x w13, w2
assert [b["band"] for b in d["by_batch"]] == ["1-3", "4-16"], d["by_batch"]
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 138 and len({r["shape"] for r in rows}) == 138, len(rows)
grid = collections.defaultdict(dict)
with gzip.open(sys.argv[2], "rt") as f:
    for r in csv.DictReader(l for l in f if not l.startswith("#")):
        shape, cfg = r["spec"].split(" config=")
        grid[shape][cfg] = float(r["median_us"])
for r in rows:
    best = min(grid[r["shape"]].items(), key=lambda kv: kv[1])
    assert abs(float(r["best_us"]) - best[1]) < 1e-3 and abs(float(r["chosen_us"]) - grid[r["shape"]][r["chosen"]]) < 1e-3, r
    assert float(r["chosen_us"]) >= float(r["best_us"]), r
geo = math.exp(sum(math.log(float(r["chosen_us"]) / float(r["best_us"])) for r in rows) / len(rows))
tuner = [m for m in d["methods"] if m["method"] == "wave tuner (ratio)"][0]
assert abs(geo - tuner["geomean_ratio"]) < 1e-4, (geo, tuner["geomean_ratio"])
assert collections.Counter(r["band"] for r in rows) == {b["band"]: b["shapes"] for b in d["by_batch"]}
# The engines' default configs measured beside the grid (moe-triton-defaults-4, scripts/tune-blind-defaults-collect.sh)
# price every scored shape; the tuner's pick can be no faster than the best.
e = d["engine_default"]
assert e["shapes"] == 138 and 0 < e["best_over_reference"] <= e["tuned_over_reference"], e
print("reordered decode grid: %d shapes scored; per-shape CSV geomean %.4f" % (d["heldout_shapes"], geo))
PY
set +e
msg=$("$loom" tune --validate --traces "$src/traces/tune" --gpu h200 --family moe-triton-fp8 --per-shape - 2>&1)
rc=$?
set -e
[ "$rc" = 2 ] || { echo "expected exit 2 for --per-shape -, got $rc: $msg"; exit 1; }
set +e
msg=$("$loom" tune --validate --traces "$src/traces/tune" --gpu h200 --family moe-triton-fp8 --heldout-only 2>&1)
rc=$?
set -e
[ "$rc" = 2 ] || { echo "expected exit 2 without --heldout-traces, got $rc: $msg"; exit 1; }
case "$msg" in *"--heldout-only"*"--heldout-traces"*) ;; *) echo "unexpected message: $msg"; exit 1;; esac
echo ok
