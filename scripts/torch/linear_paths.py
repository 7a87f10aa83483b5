"""GEMMs as PyTorch users launch them, off the library's fast path: F.linear / torch.bmm at random shapes with K or
N not a multiple of 8 (cuBLAS falls back to align-1/2/4 kernels), small M (split-K + reduce, GEMV), fp32 (FFMA
kernels) and tf32, and fp8 through torch._scaled_mm with per-tensor and row-wise (per-token x per-channel) scales.
The collector records which kernels each case launched (the `kernels` column of the corpus), which is what loom
learns the library's kernel choice from. Run under the collector (scripts/collect-linear.sh); --warm re-runs the
same cases without the L2 flush (inputs hot in L2, as a loop of one op finds them)."""

import random
import sys

import torch
import torch.nn.functional as F

import loom_torch

DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}


def log_uniform(rng, lo, hi):
    return int(round(2 ** rng.uniform(lo, hi)))


def misalign(rng, v, kind):
    """kind: 'a8' aligned to 8, 'a1' odd, 'a2' even not mult of 4, 'a4' mult of 4 not of 8."""
    v = max(16, v - v % 8)
    return {"a8": v, "a1": v + 1 + 2 * rng.randint(0, 2), "a2": v + 2, "a4": v + 4}[kind]


def shapes(rng, n, quick):
    """(m, n, k) triples: M 1..8192 log-uniform, N and K 256..16384, a third of them with a misaligned K or N."""
    out = []
    for i in range(4 if quick else n):
        m = log_uniform(rng, 0, 13)
        nn = log_uniform(rng, 8, 14)
        k = log_uniform(rng, 8, 14)
        which = rng.choice(["aligned", "aligned", "k", "n", "kn"])
        kind = rng.choice(["a1", "a2", "a4"])
        nn = misalign(rng, nn, kind if which in ("n", "kn") else "a8")
        k = misalign(rng, k, kind if which in ("k", "kn") else "a8")
        if m * k + k * nn + m * nn > 400_000_000:
            continue
        out.append((m, nn, k))
    return out


def linear_case(m, n, k, dt, tf32=False):
    x = torch.randn(m, k, device="cuda", dtype=DTYPES[dt])
    w = torch.randn(n, k, device="cuda", dtype=DTYPES[dt])
    name = "tf32" if tf32 else dt

    def fn():
        torch.backends.cuda.matmul.allow_tf32 = tf32
        F.linear(x, w)

    return "gemm m=%d n=%d k=%d dtype=%s" % (m, n, k, name), fn


def bmm_case(b, m, n, k, dt):
    x = torch.randn(b, m, k, device="cuda", dtype=DTYPES[dt])
    y = torch.randn(b, k, n, device="cuda", dtype=DTYPES[dt])
    return "gemm m=%d n=%d k=%d batch=%d dtype=%s" % (m, n, k, b, dt), lambda: torch.bmm(x, y)


def scaled_case(m, n, k, scales):
    """torch._scaled_mm: A row-major [m, k], B column-major [k, n] (as the fp8 kernels require), bf16 out."""
    a = torch.randn(m, k, device="cuda").to(torch.float8_e4m3fn)
    b = torch.randn(n, k, device="cuda").to(torch.float8_e4m3fn).t()
    if scales == "tensor":
        sa = torch.tensor(1.0, device="cuda")
        sb = torch.tensor(1.0, device="cuda")
    else:
        sa = torch.rand(m, 1, device="cuda", dtype=torch.float32) + 0.5
        sb = torch.rand(1, n, device="cuda", dtype=torch.float32) + 0.5
    spec = "gemm m=%d n=%d k=%d dtype=fp8 scales=%s" % (m, n, k, scales)
    return spec, lambda: torch._scaled_mm(a, b, scale_a=sa, scale_b=sb, out_dtype=torch.bfloat16)


def main():
    p = loom_torch.common_args(__doc__)
    p.add_argument("--seed", type=int, default=11)
    p.add_argument("--n", type=int, default=260, help="random shapes per dtype group")
    args = p.parse_args()
    sweep = loom_torch.Sweep(args, "scripts/torch/linear_paths.py", {"families": "gemm", "seed": str(args.seed)})
    rng = random.Random(args.seed)
    cases = []
    for m, n, k in shapes(rng, args.n, args.quick):
        cases.append((linear_case, (m, n, k, "bf16")))
    for m, n, k in shapes(rng, args.n // 2, args.quick):
        cases.append((linear_case, (m, n, k, "fp16")))
    for m, n, k in shapes(rng, args.n // 2, args.quick):
        cases.append((linear_case, (m, n, k, "fp32")))
    for m, n, k in shapes(rng, args.n // 3, args.quick):
        cases.append((linear_case, (m, n, k, "fp32", True)))
    for m, n, k in shapes(rng, args.n // 3, args.quick):
        b = log_uniform(rng, 0, 6)
        if b * (m * k + k * n + m * n) <= 400_000_000:
            cases.append((bmm_case, (b, m, n, k, "bf16")))
    for m, n, k in shapes(rng, args.n, args.quick):  # fp8 needs K and N multiples of 16
        m16, n16, k16 = m, max(16, n - n % 16), max(32, k - k % 16)
        cases.append((scaled_case, (m16, n16, k16, rng.choice(["tensor", "rowwise"]))))
    rng.shuffle(cases)  # a time budget then cuts a random subset, not one dtype group
    print("linear_paths: %d cases on %d SMs" % (len(cases), sweep.part.sms), flush=True)
    for builder, shape in cases:
        try:
            spec, fn = builder(*shape)
        except Exception as exc:  # noqa: BLE001 (allocation)
            print("skip %s: %s" % (shape, exc), flush=True)
            continue
        impl = "cublas"  # torch._scaled_mm rowwise runs cuBLASLt (nvjet ..._ovscale_) in torch 2.11, tensor-wise too
        sweep.run("gemm", spec, impl, fn)
        del fn
    torch.backends.cuda.matmul.allow_tf32 = False
    return sweep.finish()


if __name__ == "__main__":
    sys.exit(main())
