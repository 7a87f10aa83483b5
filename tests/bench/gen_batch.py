#!/usr/bin/env python3
"""Writes a deterministic mixed-family batch CSV for `loom predict --batch` throughput and memory benchmarks.

usage: gen_batch.py ROWS [--repeat K] [--stats] > batch.csv
(9 families in turn, shapes drawn from serving-like ranges, seed 1)

--repeat K draws every row (seed 2) from the first K rows instead: a serving simulator's or sweep's batch, which asks
for the same few thousand shapes again and again.

--stats also prints to stderr how many rows are distinct, and how many repeat an earlier row of their 4,096-row block
(what `loom predict --batch` copies within a block) or any earlier row (what an unbounded memo would serve).
"""
import random
import sys

COLS = ["family", "m", "n", "k", "dtype", "rows", "cols", "op", "batch", "heads", "kv_heads", "seq", "seq_kv",
        "head_dim", "causal", "tokens", "experts", "topk", "hidden", "inter", "stage"]


def row(rng, i):
    p2 = lambda lo, hi: 2 ** rng.randint(lo, hi)
    fam = i % 9
    if fam == 0:
        return {"family": "gemm", "m": rng.randint(1, 8192), "n": p2(9, 14) * rng.choice([1, 3, 7]) // 1,
                "k": p2(9, 13), "dtype": "bf16"}
    if fam == 1:
        return {"family": "rms_norm", "rows": rng.randint(1, 16384), "cols": p2(10, 14), "dtype": "bf16"}
    if fam == 2:
        return {"family": "elementwise", "op": "silu_mul", "rows": rng.randint(1, 16384), "cols": p2(10, 14),
                "dtype": "bf16"}
    if fam == 3:
        return {"family": "attention_decode", "batch": rng.randint(1, 256), "heads": 32, "kv_heads": 8,
                "seq_kv": rng.randint(128, 32768), "head_dim": 128, "dtype": "bf16"}
    if fam == 4:
        return {"family": "attention_prefill", "batch": rng.randint(1, 8), "heads": 32, "kv_heads": 8,
                "seq": rng.randint(128, 8192), "head_dim": 128, "causal": 1, "dtype": "bf16"}
    if fam == 5:
        return {"family": "rotary", "tokens": rng.randint(1, 16384), "heads": 32, "head_dim": 128, "dtype": "bf16"}
    if fam == 6:
        return {"family": "softmax", "rows": rng.randint(1, 8192), "cols": p2(10, 15), "dtype": "fp32"}
    if fam == 7:
        return {"family": "layer_norm", "rows": rng.randint(1, 16384), "cols": p2(10, 14), "dtype": "bf16"}
    return {"family": "moe", "tokens": rng.randint(1, 4096), "experts": 8, "topk": 2, "hidden": 4096,
            "inter": 14336, "dtype": "bf16", "stage": rng.choice(["w13", "w2"])}


def main():
    args, stats, repeat = sys.argv[1:], "--stats" in sys.argv[1:], 0
    if stats:
        args.remove("--stats")
    if "--repeat" in args:
        i = args.index("--repeat")
        if i + 1 >= len(args) or not args[i + 1].isdigit() or int(args[i + 1]) < 1:
            sys.exit("gen_batch.py: --repeat needs a positive row count")
        repeat = int(args[i + 1])
        del args[i:i + 2]
    if len(args) != 1 or not args[0].isdigit():
        sys.exit("usage: gen_batch.py ROWS [--repeat K] [--stats] > batch.csv")
    n = int(args[0])
    rng = random.Random(1)
    lines = []
    if repeat:
        pool = [row(rng, i) for i in range(repeat)]
        pick = random.Random(2)
        lines = (pool[pick.randrange(repeat)] for _ in range(n))
    else:
        lines = (row(rng, i) for i in range(n))
    out = sys.stdout
    out.write(",".join(COLS) + "\n")
    seen, block, in_block = set(), set(), 0
    for i, r in enumerate(lines):
        line = ",".join(str(r.get(c, "")) for c in COLS)
        out.write(line + "\n")
        if stats:
            if i % 4096 == 0:
                block = set()
            in_block += line in block
            block.add(line)
            seen.add(line)
    if stats and n:
        sys.stderr.write(f"{n} rows, {len(seen)} distinct ({100 * len(seen) / n:.1f}%), "
                         f"{100 * in_block / n:.1f}% repeat a row of their 4096-row block, "
                         f"{100 * (n - len(seen)) / n:.1f}% repeat an earlier row\n")


if __name__ == "__main__":
    main()
