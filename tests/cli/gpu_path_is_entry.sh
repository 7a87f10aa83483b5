#!/usr/bin/env bash
# A catalogue file given by its path, or a byte-identical copy, is that entry (round 12): the same answer as its key,
# and `-o -` writes to stdout (not a file named '-').
set -u
loom=$1; src=$2; cd "$src" || exit 1
TMPDIR=$(mktemp -d "${TMPDIR:-/tmp}/loom-gpu-path.XXXXXX") || exit 1
trap 'rm -rf "$TMPDIR"' EXIT
fail=0
k="rms_norm rows=4096 cols=8192 dtype=bf16"
want=$("$loom" predict --gpu h200 --kernel "$k" --format json) || { echo "FAIL: predict --gpu h200"; exit 1; }
cp gpus/h200.yaml "$TMPDIR/mine.yaml"
for g in gpus/h200.yaml ./gpus//h200.yaml "$TMPDIR/mine.yaml"; do
  got=$("$loom" predict --gpu "$g" --kernel "$k" --format json)
  [ "$got" = "$want" ] || { echo "FAIL: --gpu $g differs from --gpu h200:"; diff <(echo "$want") <(echo "$got") | head; fail=1; }
done
(cd "$TMPDIR" && "$loom" report --sample -o - > page.html) || { echo "FAIL: report -o -"; fail=1; }
[ -e "$TMPDIR/-" ] && { echo "FAIL: report -o - wrote a file named '-'"; fail=1; }
grep -q '<!DOCTYPE' "$TMPDIR/page.html" || { echo "FAIL: report -o - printed no page"; fail=1; }
[ $fail = 0 ] && echo "gpu path, copy and -o -: ok"
exit $fail
