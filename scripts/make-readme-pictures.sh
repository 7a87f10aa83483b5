#!/usr/bin/env bash
# Makes the README's pictures from the committed trace corpus and models (no GPU needed): runs `loom validate`,
# `loom e2e` and `loom whatif` with --format json, renders docs/report.html with `loom report`, and screenshots
# one section per picture into docs/img/*.png with headless Chromium.
# Usage: scripts/make-readme-pictures.sh [path/to/loom]   (default: build/loom; ~3 minutes, mostly validate)
#        LOOM_VALIDATION_JSON=FILE reuses a `loom validate --format json --out FILE` result instead of rerunning it.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
loom=$(realpath "${1:-$src/build/loom}")
cd "$src"
command -v chromium >/dev/null || { echo "chromium not found (scripts/install-deps.sh installs it)" >&2; exit 1; }
tmp=$(mktemp -d /tmp/loom-pictures.XXXXXX); trap 'rm -rf "$tmp"' EXIT
mkdir -p docs/img

if [ -n "${LOOM_VALIDATION_JSON:-}" ]; then
  cp "$LOOM_VALIDATION_JSON" "$tmp/validation.json"
else
  echo "validate (retrains one model per split, ~2-3 minutes)..." >&2
  "$loom" validate --format json --out "$tmp/validation.json" >/dev/null
fi
"$loom" e2e --gpu h200 --model llama-3-8b --phase decode --batch 16 --context 2048 --mode eager --format json \
  >"$tmp/e2e.json"
"$loom" whatif --model llama-3-8b --batch 16 --input-len 2048 --output-len 256 \
  --gpus h200,h100-sxm,b200,a100-sxm4-80gb,l40,l4,rtx-4090 --format json >"$tmp/whatif.json"

# The full report: validation scatters, the H200 roofline with its measured kernels, speed of light of two GEMMs
# of the corpus (a prefill-sized and a decode-sized one; their measured H200 times come from the validation file),
# the e2e step's timeline, the what-if ranking.
"$loom" report --validation "$tmp/validation.json" --gpu h200 \
  --kernel "gemm m=8192 n=4096 k=4096 dtype=bf16" --kernel "gemm m=16 n=4096 k=4096 dtype=bf16" \
  --scatter-max 100 --roofline-max 120 --e2e "$tmp/e2e.json" --whatif "$tmp/whatif.json" \
  --title "loom report — committed corpus (H200, H100)" \
  -o docs/report.html --json-out "$tmp/report.json" >&2

# One page per picture: the report JSON with only the sections that picture shows.
subset() {  # subset NAME KEY[:INDEX]... : keeps those sections, empties the others
  python3 - "$tmp/report.json" "$tmp/page-$1.json" "${@:2}" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
keep = {}
for k in sys.argv[3:]:
    key, _, idx = k.partition(":")
    keep.setdefault(key, []).extend(r[key] if idx == "" else [r[key][int(idx)]])
for key in ("rooflines", "sol", "scatters", "timelines", "tables", "sensitivities"):
    r[key] = keep.get(key, [])
r["subtitle"] = ""
json.dump(r, open(sys.argv[2], "w"))
PY
  "$loom" report --json-in "$tmp/page-$1.json" -o "$tmp/page-$1.html" >/dev/null
}
shot() {  # shot NAME WIDTH HEIGHT
  local profile; profile=$(mktemp -d "$tmp/chrome.XXXXXX")
  chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking \
    --disable-component-update --disable-sync --hide-scrollbars --user-data-dir="$profile" \
    --screenshot="$src/docs/img/$1.png" --window-size="$2,$3" "file://$tmp/page-$1.html" 2>/dev/null
  echo "docs/img/$1.png: $(($(stat -c %s "docs/img/$1.png") / 1024)) KiB" >&2
}
subset scatter scatters:0 && shot scatter 1280 1450
subset roofline rooflines:0 && shot roofline 900 860
subset sol sol && shot sol 1280 640
subset timeline timelines && shot timeline 1280 470
echo "wrote docs/report.html ($(($(stat -c %s docs/report.html) / 1024)) KiB) and docs/img/*.png" >&2
