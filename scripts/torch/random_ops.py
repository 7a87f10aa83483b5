"""PyTorch ops at random shapes (issue 12's target set beyond GEMMs): rms_norm, layer_norm, softmax, elementwise (add,
mul, silu, gelu, silu_mul), rotary, SDPA prefill (causal and not) and decode, at shapes drawn from a seed instead of
the grids of memory_ops.py / attention_sweep.py. Seed 31 is the held-out set (traces/heldout/ops, never trained on:
scripts/collect-heldout.sh); other seeds are training sets (scripts/collect-random-ops.sh, seed 37). Cold (read
flush) by default; --warm times them as users do, the same call in a loop (memory-bound specs get l2=warm).
Run under libloom_cupti.so; writes PREFIX.cases.csv (traces/FORMAT.md).

  python3 scripts/torch/random_ops.py --out traces/run/ops_cold [--warm] [--seed 31] [--n 120] [--quick]

Shapes: rows (tokens) log-uniform 1-32,768; widths multiples of 64 from 512 to 16,384 (every hidden size of the
models loom knows is one) capped at ~0.9 GB a tensor; rotary and attention head layouts from the models in
models/presets and their tensor-parallel shards; decode batch 1-128 at KV 128-16,384; prefill batch 1-16, seq
64-8,192, batch x seq <= 65,536.
"""

import math
import random
import sys

import torch

import attention_sweep
import loom_torch
import memory_ops

OPS = ("rms_norm", "layer_norm", "softmax", "add", "mul", "silu", "gelu", "silu_mul")
HEADS = [(32, 8, 128), (40, 8, 128), (64, 8, 128), (32, 8, 64), (28, 4, 128), (16, 2, 128), (8, 1, 128),
         (32, 32, 128), (14, 2, 64), (48, 8, 128), (4, 1, 128), (24, 8, 128)]
MAX_ELEMS = memory_ops.MAX_ELEMS


def log_uniform(rng, lo, hi):
    return int(round(math.exp(rng.uniform(math.log(lo), math.log(hi)))))


def width(rng):
    return 64 * log_uniform(rng, 8, 256)


def memory_cases(rng, n):
    cases = []
    for _ in range(n):
        op, rows, cols = rng.choice(OPS), log_uniform(rng, 1, 32768), width(rng)
        if rows * cols * (2 if op == "silu_mul" else 1) <= MAX_ELEMS:
            cases.append((rows * cols, memory_ops.make, (op, rows, cols)))
    for _ in range(max(1, n // 8)):
        tokens, (heads, _, head_dim) = log_uniform(rng, 1, 32768), rng.choice(HEADS)
        cases.append((tokens * heads * head_dim, memory_ops.make_rotary, (tokens, heads, head_dim)))
    return cases


def attention_cases(rng, n):
    cases = []
    for _ in range(n):
        heads, kv_heads, head_dim = rng.choice(HEADS)
        batch, seq_kv = log_uniform(rng, 1, 128), log_uniform(rng, 128, 16384)
        spec = ("attention_decode batch=%d heads=%d kv_heads=%d seq_kv=%d head_dim=%d dtype=bf16"
                % (batch, heads, kv_heads, seq_kv, head_dim))
        cases.append((0, "attention_decode", spec, (batch, heads, kv_heads, 1, seq_kv, head_dim, False)))
    for _ in range(n):
        heads, kv_heads, head_dim = rng.choice(HEADS)
        batch, seq, causal = log_uniform(rng, 1, 16), log_uniform(rng, 64, 8192), rng.random() < 0.7
        if batch * seq > attention_sweep.PREFILL_MAX_TOKENS:
            continue
        spec = ("attention_prefill batch=%d heads=%d kv_heads=%d seq=%d head_dim=%d causal=%d dtype=bf16"
                % (batch, heads, kv_heads, seq, head_dim, int(causal)))
        flops = 4 * batch * heads * seq * seq * head_dim // (2 if causal else 1)
        cases.append((flops, "attention_prefill", spec, (batch, heads, kv_heads, seq, seq, head_dim, causal)))
    return cases


def main():
    p = loom_torch.common_args(__doc__)
    p.add_argument("--seed", type=int, default=31)
    p.add_argument("--n", type=int, default=120,
                   help="random memory-bound shapes (attention: n/2 decode + n/2 prefill)")
    args = p.parse_args()
    sweep = loom_torch.Sweep(args, "scripts/torch/random_ops.py",
                             {"families": "rms_norm,layer_norm,softmax,elementwise,rotary,attention_prefill,"
                                          "attention_decode", "seed": str(args.seed)})
    rng = random.Random(args.seed)
    n = 16 if args.quick else args.n
    mem, attn = memory_cases(rng, n), attention_cases(rng, max(1, n // 2))
    native = attention_sweep.gqa_native_ok()
    impl = "torch" if native else "torch_repeat_kv"
    # Shuffled: a time budget then cuts a random subset of both kinds, not the largest shapes of one.
    todo = ([("mem",) + c for c in sorted(mem, key=lambda c: c[0])]
            + [("attn",) + c for c in sorted(attn, key=lambda c: c[0])])
    rng.shuffle(todo)
    print("random_ops: %d memory-bound + %d attention cases on %d SMs" % (len(mem), len(attn), sweep.part.sms),
          flush=True)
    for case in todo:
        try:
            if case[0] == "mem":
                family, spec, fn = case[2](*case[3])
                sweep.run(family, spec, "torch", fn)
            else:
                fn = attention_sweep.make_fn(*case[4], native)
                sweep.run(case[2], case[3], impl, fn)
        except Exception as exc:  # noqa: BLE001 (allocation)
            print("skip %s: %s" % (case[1:], exc), flush=True)
            continue
        del fn
    return sweep.finish()


if __name__ == "__main__":
    sys.exit(main())
