#!/usr/bin/env bash
# Browser test of `loom report`: renders the demo report, opens it in headless Chromium via chromedriver
# (tests/browser/report_check.mjs) and checks it renders without errors, with every section, working hover box
# and timeline zoom, and no network use. Screenshots go to $LOOM_ARTIFACTS (default: <build>/artifacts).
# Also checks that --json-out / --json-in round-trips to the same page, and renders a report from a small committed
# validation file (tests/data/report/validation_small.json) with its scatter (tests/browser/validation_check.mjs).
set -u
loom=$1; src=$2
fail() { echo "FAIL: $*"; exit 1; }
for bin in chromium chromedriver node; do
  command -v "$bin" >/dev/null 2>&1 ||
    fail "'$bin' not found: the browser test needs Debian's chromium, chromium-driver and nodejs" \
      "(run scripts/install-deps.sh as root)"
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/loom-report-test.XXXXXX"); trap 'rm -rf "$tmp"' EXIT
export TMPDIR=$tmp  # Chromium's scoped dirs and the driver's profile go there too, and leave with it
art=${LOOM_ARTIFACTS:-$(cd "$(dirname "$loom")" && pwd)/artifacts}

"$loom" report --sample -o "$tmp/report.html" --json-out "$tmp/report.json" || fail "loom report --sample exited $?"
[ -s "$tmp/report.html" ] || fail "no HTML written"
if grep -qE 'https?://' "$tmp/report.html"; then
  fail "report references the network: $(grep -oE 'https?://[^"<> ]*' "$tmp/report.html" | head -3)"
fi
"$loom" report --json-in "$tmp/report.json" -o "$tmp/again.html" >/dev/null || fail "loom report --json-in exited $?"
cmp -s "$tmp/report.html" "$tmp/again.html" || fail "--json-out then --json-in does not reproduce the same page"

# The analytical model's own report: one roofline per GPU, one SOL card per (GPU, kernel).
"$loom" report --gpu h100-sxm,b200 --kernel "gemm m=4096 n=4096 k=4096 dtype=bf16" \
  --kernel "gemm m=16 n=4096 k=4096 dtype=bf16" -o "$tmp/model.html" >/dev/null ||
  fail "loom report --gpu/--kernel exited $?"
for id in roofline-h100-sxm roofline-b200 sol-0 sol-3; do
  grep -q "id=\"$id\"" "$tmp/model.html" || fail "model report lacks #$id"
done

node "$src/tests/browser/report_check.mjs" "$tmp/report.html" "$art" || fail "browser checks failed (see above)"

# A report from a small committed `loom validate` file (10 measured kernels: 8 held-out shapes, 2 held-out GPU;
# 5 of them whole-chip H200 kernels): the scatter renders with every dot and baseline ring, the baseline toggle
# works, and the 5 H200 kernels sit on the H200 roofline as measured diamonds.
"$loom" report --validation "$src/tests/data/report/validation_small.json" --gpu h200 \
  --kernel "gemm m=8192 n=4096 k=4096 dtype=bf16" -o "$tmp/validation.html" >/dev/null ||
  fail "loom report --validation exited $?"
grep -q 'id="scatter-0"' "$tmp/validation.html" || fail "validation report lacks #scatter-0"
grep -q 'measured 397' "$tmp/validation.html" || fail "SOL card lacks the kernel's measured time from the file"
node "$src/tests/browser/validation_check.mjs" "$tmp/validation.html" "$art" 10 5 ||
  fail "validation report browser checks failed (see above)"
echo "report browser test passed; screenshot: $art/report.png"
