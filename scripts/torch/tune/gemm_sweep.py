"""Exhaustive tuning sweep of loom's Triton GEMM (gemm_triton.py) over the knobs Triton users and the engines tune, on
the linear layers of public LLMs at their tensor-parallel shards and some random shapes, at serving batch sizes
(M = tokens, 1..4096). Every shape is measured with every config (a complete shape is the ground truth of
`loom tune --validate`; sparse plans are subsets of it), plus cuBLAS on the same operands (F.linear, impl torch) as
the library reference. Cases follow loom's NVTX protocol (scripts/torch/loom_torch.py) and run under the CUPTI
collector; L2 is not flushed (as tuners time repeated launches). Spec:
  gemm m=M n=N k=K dtype=bf16|fp8 config=BMxBNxBK_sS_wW_gG, impl triton   (cuBLAS: the same spec without config=)
Shapes run in a seeded random order, each with all its configs (in random order) before the next, so a time budget
leaves complete shapes.  `--dry-run` prints the shape and config lists without a GPU."""

import itertools
import os
import random
import sys
import time

# (model, hidden, heads, kv_heads, head_dim, intermediate, TP degrees). Linear layers per shard (F.linear, N x K):
# qkv (heads+2*kv)*hd/tp x hidden, o hidden x heads*hd/tp, gate_up 2*inter/tp x hidden, down hidden x inter/tp.
MODELS = [
    ("llama-3.2-1b", 2048, 32, 8, 64, 8192, (1, 2)),
    ("llama-3.2-3b", 3072, 24, 8, 128, 8192, (1, 2)),
    ("phi-3-mini", 3072, 32, 32, 96, 8192, (1, 2)),
    ("qwen2.5-7b", 3584, 28, 4, 128, 18944, (1, 2, 4)),
    ("llama-3-8b", 4096, 32, 8, 128, 14336, (1, 2, 4, 8)),
    ("qwen3-8b", 4096, 32, 8, 128, 12288, (1, 2, 4)),
    ("gemma-2-9b", 3584, 16, 8, 256, 14336, (1, 2, 4)),
    ("mistral-nemo-12b", 5120, 32, 8, 128, 14336, (1, 2, 4)),
    ("mistral-small-24b", 5120, 32, 8, 128, 32768, (1, 2, 4, 8)),
    ("qwen3-32b", 5120, 64, 8, 128, 25600, (2, 4, 8)),
    ("llama-3-70b", 8192, 64, 8, 128, 28672, (2, 4, 8)),
    ("qwen2.5-72b", 8192, 64, 8, 128, 29568, (4, 8)),
]
# Serving batch sizes (tokens per step): decode batches up to 256, prefill chunks up to 4096.
TOKENS = [1, 2, 4, 8, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096]
RANDOM_SHAPES = 160  # (M, N, K) drawn log-uniform: M 1..4096, N and K 512..32768 in multiples of 64
# The knobs, a subset of what the Triton matmul tutorial's autotune list and the engines' tuners span.
SPACE = dict(bm=(16, 32, 64, 128), bn=(32, 64, 128, 256), bk=(64, 128), group=(1, 8), warps=(4, 8),
             stages=(3, 4))
# The config a user gets untuned: the first entry of Triton's matmul tutorial autotune list (the kernel this one is
# written after), which is also what the tutorial's kernel runs when autotuning is switched off.
DEFAULT = "128x256x64_s3_w8_g8"
# H100/H200 shared memory per block (opt-in); precompile keeps what Triton reports below the device's
SMEM_LIMIT = 232448


def all_configs(dtype="bf16"):
    """The grid, less tiles whose pipelining buffers (stages x (BM+BN) x BK x element bytes) cannot fit."""
    esize = 1 if dtype == "fp8" else 2
    out = []
    for bm, bn, bk, g, w, s in itertools.product(*SPACE.values()):
        if s * (bm + bn) * bk * esize > SMEM_LIMIT:
            continue
        if bm * bn // (w * 32) > 256:  # > 256 fp32 accumulators per thread: spills, never competitive
            continue
        out.append({"BLOCK_SIZE_M": bm, "BLOCK_SIZE_N": bn, "BLOCK_SIZE_K": bk, "GROUP_SIZE_M": g, "num_warps": w,
                    "num_stages": s})
    return out


def layer_shapes():
    """Distinct (N, K) of the models' linear layers at their TP shards, each with the first (model, tp, layer)."""
    seen = {}
    for name, h, heads, kv, hd, inter, tps in MODELS:
        for tp in tps:
            layers = {"qkv": ((heads + 2 * kv) * hd // tp, h), "o": (h, heads * hd // tp),
                      "gate_up": (2 * inter // tp, h), "down": (h, inter // tp)}
            for layer, nk in layers.items():
                seen.setdefault(nk, "%s tp%d %s" % (name, tp, layer))
    return seen


def all_shapes(seed):
    """(label, M, N, K) for every layer x batch size and the random shapes, in a seeded random order."""
    rng = random.Random(seed)
    shapes = [(label, m, n, k) for (n, k), label in layer_shapes().items() for m in TOKENS]
    for _ in range(RANDOM_SHAPES):
        m = int(round(2 ** rng.uniform(0, 12)))
        n, k = (64 * max(8, int(round(2 ** rng.uniform(9, 15) / 64))) for _ in range(2))
        shapes.append(("random", m, n, k))
    rng.shuffle(shapes)
    return shapes


def main():
    if "--dry-run" in sys.argv:
        shapes = all_shapes(int(sys.argv[sys.argv.index("--seed") + 1]) if "--seed" in sys.argv else 7)
        cfgs = all_configs()
        assert DEFAULT in [config_name_plain(c) for c in cfgs]
        flops = sorted(2.0 * m * n * k for _, m, n, k in shapes)
        print("%d shapes (%d layer (N, K) pairs x %d M + %d random), %d bf16 / %d fp8 configs; median %.2g flop, "
              "first 10: %s" % (len(shapes), len(layer_shapes()), len(TOKENS), RANDOM_SHAPES, len(cfgs),
                                len(all_configs("fp8")), flops[len(flops) // 2], shapes[:10]))
        return 0
    return sweep_main()


def config_name_plain(cfg):
    return "%dx%dx%d_s%d_w%d_g%d" % (cfg["BLOCK_SIZE_M"], cfg["BLOCK_SIZE_N"], cfg["BLOCK_SIZE_K"],
                                     cfg["num_stages"], cfg["num_warps"], cfg["GROUP_SIZE_M"])


if __name__ == "__main__" and "--dry-run" not in sys.argv:
    import multiprocessing as mp  # noqa: E402

    import torch  # noqa: E402

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import loom_torch  # noqa: E402
    import gemm_triton as gt  # noqa: E402
    from gemm_precompile import precompile, check  # noqa: E402


def sweep_main():
    ap = loom_torch.common_args(__doc__.splitlines()[0])
    ap.add_argument("--dtypes", default="bf16")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--workers", type=int, default=max(1, min(15, (os.cpu_count() or 2) - 1)))
    ap.add_argument("--cool", type=float, default=0.5, help="idle this many times a case's GPU time after it")
    ap.add_argument("--shapes", default="", help="only the first N shapes of the seeded order (smoke test)")
    ap.add_argument("--skip", type=int, default=0, help="start after the first N shapes of the seeded order")
    ap.add_argument("--limit-configs", type=int, default=0, help="only N configs of the space (smoke test)")
    ap.add_argument("--deadline", type=float, default=0, help="stop starting cases at this Unix time (overrides "
                    "--max-seconds, which counts from after the precompile)")
    ap.set_defaults(warmup=1)
    args = ap.parse_args()
    args.warm = True
    dtypes = args.dtypes.split(",")
    # The collector must not follow the compile workers (they would write the same trace file).
    torch.cuda.init()
    torch.cuda.nvtx.range_push("loom.init")  # NVTX reads its injection variable at its first call: make it now
    torch.cuda.nvtx.range_pop()
    for var in ("CUDA_INJECTION64_PATH", "NVTX_INJECTION64_PATH"):
        os.environ.pop(var, None)
    space = {d: all_configs(d) for d in dtypes}
    if args.limit_configs:
        space = {d: random.Random(1).sample(c, args.limit_configs) for d, c in space.items()}
    ok = precompile(space, args.workers)
    kept = {d: [c for c in space[d] if gt.config_name(c) in ok[d]] for d in dtypes}
    check(kept)

    if args.deadline:
        args.max_seconds = args.deadline - time.time()
        print("sweep budget %.0f s" % args.max_seconds, flush=True)
    shapes = all_shapes(args.seed)[args.skip:]
    if args.shapes:
        shapes = shapes[:int(args.shapes)]
    sweep = loom_torch.Sweep(args, "gemm_sweep.py", {"space": SPACE, "default": DEFAULT,
                                                     "configs": {d: len(kept[d]) for d in dtypes}})
    rng = random.Random(args.seed + 1)
    done = 0
    for label, m, n, k in shapes:
        if sweep.out_of_time():
            break
        for dtype in dtypes:
            p = gt.GemmProblem(m, n, k, dtype)
            flops = 2.0 * m * n * k
            reps = 3 if flops > 2e9 else 5
            base = "gemm m=%d n=%d k=%d dtype=%s" % (m, n, k, dtype)
            sweep.run("gemm", base, "torch", p.cublas, reps=reps)
            order = list(kept[dtype])
            rng.shuffle(order)
            for cfg in order:
                sweep.run("gemm", base + " config=" + gt.config_name(cfg), "triton", lambda: p.launch(cfg), reps=reps)
            del p
        done += 1
        print("shape %d/%d done (%s M=%d N=%d K=%d), %.0f s" % (done, len(shapes), label, m, n, k,
                                                               time.time() - sweep.t0), flush=True)
    return sweep.finish()


if __name__ == "__main__":
    sys.exit(main())
