"""Exhaustive tuning sweep of loom's Triton fused-MoE kernel (fused_moe_triton.py) over the engines' knobs, on the MoE
layer shapes of public models and their tensor-parallel shards, at the batch sizes vLLM's tuner uses. Every
(shape, stage, dtype) is measured with every config (a complete shape is the ground truth of `loom tune --validate`;
the sparse plans are subsets of it). Cases follow loom's NVTX protocol (scripts/torch/loom_torch.py) and run under the
CUPTI collector; L2 is not flushed (as the engines' tuners time repeated launches). Spec:
  moe tokens=M experts=E topk=K hidden=H inter=I dtype=bf16|fp8 stage=w13|w2 config=BMxBNxBK_sS_wW_gG, impl triton
Shapes run in a seeded random order, each with all its configs (in random order) before the next, so a time budget
leaves complete shapes."""

import itertools
import multiprocessing as mp
import os
import random
import re
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import loom_torch  # noqa: E402
import fused_moe_triton as fm  # noqa: E402

# (name, experts, topk, hidden, inter) and the TP degrees whose shards are swept (inter / tp per GPU).
MODELS = [
    ("mixtral-8x7b", 8, 2, 4096, 14336, (1, 2, 4, 8)),
    ("mixtral-8x22b", 8, 2, 6144, 16384, (2, 4, 8)),
    ("qwen3-30b-a3b", 128, 8, 2048, 768, (1, 2, 4)),
    ("qwen3-235b-a22b", 128, 8, 4096, 1536, (2, 4, 8)),
    ("deepseek-v2-lite", 64, 6, 2048, 1408, (1, 2)),
    ("qwen1.5-moe-a2.7b", 60, 4, 2048, 1408, (1, 2)),
    ("olmoe-1b-7b", 64, 8, 2048, 1024, (1,)),
    ("qwen2-57b-a14b", 64, 8, 3584, 2560, (1, 2, 4)),
    ("dbrx", 16, 4, 6144, 10752, (4, 8)),
]
# vLLM benchmark_moe.py's default batch sizes, up to 2048 tokens.
TOKENS = [1, 2, 4, 8, 16, 24, 32, 48, 64, 96, 128, 256, 512, 1024, 1536, 2048]
# The engines' knobs, a subset of vLLM's search space (BLOCK_SIZE_M 16-256, N 32-256, K 64-256, GROUP 1-64,
# warps 4/8, stages 2-5).
SPACE = dict(bm=(16, 32, 64, 128), bn=(32, 64, 128, 256), bk=(64, 128), group=(1, 16), warps=(4, 8), stages=(3, 4))


def all_configs():
    out = []
    for bm, bn, bk, g, w, s in itertools.product(*SPACE.values()):
        out.append({"BLOCK_SIZE_M": bm, "BLOCK_SIZE_N": bn, "BLOCK_SIZE_K": bk, "GROUP_SIZE_M": g, "num_warps": w,
                    "num_stages": s})
    return out


def _compile_worker(job):
    """Compiles configs in a spawned process (fills Triton's on-disk cache); returns (name, dtype, smem or error)."""
    dtype, cfgs = job
    torch.cuda.init()
    p = fm.MoeProblem(64, 8, 2, 256, 256, dtype)
    out = []
    for cfg in cfgs:
        try:
            k = p.launch("w13", cfg, warmup=True)
            out.append((fm.config_name(cfg), dtype, int(k.metadata.shared)))
        except Exception as exc:  # noqa: BLE001 - a config Triton cannot build is dropped
            out.append((fm.config_name(cfg), dtype, "error: " + (str(exc).splitlines() or ["?"])[0][:120]))
    return out


def precompile(cfgs, dtypes, workers):
    """Compiles every (config, dtype) in parallel; keeps those whose shared memory fits the device."""
    limit = torch.cuda.get_device_properties(0).shared_memory_per_block_optin
    jobs = [(d, cfgs[i::workers]) for d in dtypes for i in range(workers)]
    t0 = time.time()
    with mp.get_context("spawn").Pool(workers) as pool:
        results = [r for part in pool.map(_compile_worker, jobs) for r in part]
    ok = {d: set() for d in dtypes}
    dropped = 0
    for name, dtype, smem in results:
        if isinstance(smem, int) and smem <= limit:
            ok[dtype].add(name)
        else:
            dropped += 1
    print("compiled %d (config, dtype) pairs in %.0f s on %d processes; %d dropped (shared memory > %d B or "
          "compile error)" % (len(results), time.time() - t0, workers, dropped, limit), flush=True)
    return ok


def check(cfgs, dtypes):
    """Every kept config against an fp32 reference on one small shape per dtype (both stages)."""
    worst = 0.0
    for dtype in dtypes:
        p = fm.MoeProblem(40, 8, 2, 512, 384, dtype, seed=3)
        for stage in ("w13", "w2"):
            ref = p.reference(stage)
            for cfg in cfgs[dtype]:
                out = p.out13 if stage == "w13" else p.out2
                out.zero_()
                p.launch(stage, cfg)
                err = ((out.float() - ref).norm() / ref.norm()).item()
                worst = max(worst, err)
                if not err < 0.02:
                    raise SystemExit("check FAILED: %s %s %s relative error %.4f" % (dtype, stage,
                                                                                  fm.config_name(cfg), err))
    print("check: %d configs x %s x 2 stages match the fp32 reference (worst relative error %.4f)" % (
        max(len(v) for v in cfgs.values()), "/".join(dtypes), worst), flush=True)


def die(msg):
    print("loom: moe_sweep.py: " + msg, file=sys.stderr)  # one line and exit 2, as loom's own refusals
    sys.exit(2)


def parse_tokens(text):
    """--tokens: comma-separated batch sizes, each a plain integer 1..65536, no repeats."""
    out = []
    for t in text.split(","):
        t = t.strip()
        if not re.fullmatch(r"[0-9]{1,6}", t) or not 1 <= int(t) <= 65536:
            die("--tokens: '%s' in '%s' is not a batch size (an integer 1..65536)" % (t, text))
        if int(t) in out:
            die("--tokens: %s given twice in '%s'" % (t, text))
        out.append(int(t))
    return out


def main():
    ap = loom_torch.common_args(__doc__.splitlines()[0])
    ap.add_argument("--dtypes", default="bf16,fp8")
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--workers", type=int, default=max(1, min(15, (os.cpu_count() or 2) - 1)))
    ap.add_argument("--cool", type=float, default=1.0, help="idle this many times a case's GPU time after it")
    ap.add_argument("--shapes", default="", help="only the first N shapes of the seeded order (smoke test)")
    ap.add_argument("--skip", type=int, default=0, help="start after the first N shapes of the seeded order "
                    "(a second run extends the first)")
    ap.add_argument("--configs", default="", help="measure only these configs (comma-separated names), compiled "
                    "in-process, e.g. the engines' defaults; the case list's tool is then 'moe_sweep.py --configs' "
                    "(not a tuning grid: `loom tune` reads it only as the default baseline)")
    ap.add_argument("--limit-configs", type=int, default=0, help="only N configs of the space (smoke test)")
    ap.add_argument("--tokens", default="", help="batch sizes instead of vLLM's list (comma-separated), e.g. "
                    "3,6,12 for a grid of decode shapes no earlier part measured")
    ap.set_defaults(warmup=1)
    args = ap.parse_args()
    args.warm = True
    # Checked before the GPU is touched: a bad list used to surface as a traceback after minutes of compiling.
    tokens = parse_tokens(args.tokens) if args.tokens else TOKENS
    dtypes = args.dtypes.split(",")
    if not dtypes or any(d not in ("bf16", "fp8") for d in dtypes) or len(set(dtypes)) != len(dtypes):
        die("--dtypes: '%s' is not a comma-separated list of bf16 and fp8, each once" % args.dtypes)
    cfgs = all_configs()
    if args.limit_configs:
        cfgs = random.Random(1).sample(cfgs, args.limit_configs)
    # The collector must not follow the compile workers (they would write the same trace file).
    torch.cuda.init()
    torch.cuda.nvtx.range_push("loom.init")  # NVTX reads its injection variable at its first call: make it now
    torch.cuda.nvtx.range_pop()
    for var in ("CUDA_INJECTION64_PATH", "NVTX_INJECTION64_PATH"):
        os.environ.pop(var, None)
    if args.configs:
        cfgs = [fm.parse_config(n) for n in args.configs.split(",")]
        kept = {d: cfgs for d in dtypes}
    else:
        ok = precompile(cfgs, dtypes, args.workers)
        kept = {d: [c for c in cfgs if fm.config_name(c) in ok[d]] for d in dtypes}
    check(kept, dtypes)

    shapes = []
    for name, e, k, h, inter, tps in MODELS:
        for tp in tps:
            for m in tokens:
                shapes.append((name, tp, e, k, h, inter // tp, m))
    rng = random.Random(args.seed)
    rng.shuffle(shapes)
    shapes = shapes[args.skip:]
    if args.shapes:
        shapes = shapes[:int(args.shapes)]
    sweep = loom_torch.Sweep(args, "moe_sweep.py --configs" if args.configs else "moe_sweep.py",
                             {"space": SPACE, "routing": "round_robin", "configs": {d: len(kept[d]) for d in dtypes}})
    weights = {}
    done = 0
    for name, tp, e, k, h, inter, m in shapes:
        if sweep.out_of_time():
            break
        for dtype in dtypes:
            key = (e, h, inter, dtype)
            if key not in weights:
                weights[key] = fm.MoeWeights(e, h, inter, dtype)
            p = fm.MoeProblem(m, e, k, h, inter, dtype, weights=weights[key])
            flops = 2.0 * m * k * 3 * h * inter
            reps = 3 if flops > 1e11 else 5
            for stage in ("w13", "w2"):
                order = list(kept[dtype])
                rng.shuffle(order)
                for cfg in order:
                    spec = "moe tokens=%d experts=%d topk=%d hidden=%d inter=%d dtype=%s stage=%s config=%s" % (
                        m, e, k, h, inter, dtype, stage, fm.config_name(cfg))
                    sweep.run("moe", spec, "triton", lambda: p.launch(stage, cfg), reps=reps)
        done += 1
        print("shape %d/%d done (%s tp%d M=%d), %.0f s" % (done, len(shapes), name, tp, m,
                                                          time.time() - sweep.t0), flush=True)
    return sweep.finish()


if __name__ == "__main__":
    sys.exit(main())
