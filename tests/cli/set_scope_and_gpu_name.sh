#!/usr/bin/env bash
# Round 13: a `GPU:key` --set is that GPU's value whether a general --set of the same key comes before or after it,
# and a GPU file with a catalogue entry's values keeps its own `name:` (its predictions stay the entry's).
set -u
loom=$1; src=$2; cd "$src" || exit 1
TMPDIR=$(mktemp -d "${TMPDIR:-/tmp}/loom-set-scope.XXXXXX") || exit 1
trap 'rm -rf "$TMPDIR"' EXIT
fail=0
p=(predict --gpu h200,h100-sxm --kernel "gemm m=4096 n=4096 k=4096 dtype=bf16" --format csv)
want=$("$loom" "${p[@]}" --set h200:sms=66 --set h100-sxm:sms=120) || { echo "FAIL: scoped --set"; exit 1; }
for order in "--set h200:sms=66 --set sms=120" "--set sms=120 --set h200:sms=66"; do
  # shellcheck disable=SC2086
  got=$("$loom" "${p[@]}" $order)
  [ "$got" = "$want" ] || { echo "FAIL: $order:"; diff <(echo "$want") <(echo "$got"); fail=1; }
done
printf 'extends: h200\nname: My Lab H200\n' > "$TMPDIR/lab.yaml"
show=$("$loom" gpus show "$TMPDIR/lab.yaml") || { echo "FAIL: gpus show lab.yaml"; exit 1; }
echo "$show" | head -1 | grep -q "^My Lab H200 (.*lab.yaml: the values of catalogue entry 'h200'" ||
  { echo "FAIL: gpus show header: $(echo "$show" | head -1)"; fail=1; }
k="rms_norm rows=4096 cols=8192 dtype=bf16"
entry=$("$loom" predict --gpu h200 --kernel "$k" --format csv)
lab=$("$loom" predict --gpu "$TMPDIR/lab.yaml" --kernel "$k" --format csv)
[ "$entry" = "$lab" ] || { echo "FAIL: lab.yaml predicts otherwise than h200"; fail=1; }
[ $fail = 0 ] && echo "--set scopes and a renamed entry file: ok"
exit $fail
