"""Serving engines' fused memory-bound kernels, written here in Triton after vLLM's published CUDA kernels
(csrc/pos_encoding_kernels.cu, csrc/activation_kernels.cu, csrc/layernorm_kernels.cu), timed with loom's NVTX
protocol over serving token counts (1..64k) for loom's corpus. Run under libloom_cupti.so; writes PREFIX.cases.csv.

  python3 scripts/torch/serving_kernels.py --out DIR/serving.132 [--warm] [--quick] [--check]

Spec vocabulary (proposed; loom's parser does not take impl=fused / kv_heads= on these families yet):
  rotary tokens= heads= kv_heads= head_dim= dtype=bf16 impl=fused   neox style, in place on q [T,H,D] and k [T,KV,D],
                                                                     cos/sin from a [max_pos, D] cache by position
  elementwise op=silu_mul rows= cols= dtype=bf16 impl=fused          out[T,d] = silu(x[:, :d]) * x[:, d:], one kernel
  rms_norm rows= cols= dtype=bf16 residual=1 impl=fused              r += x (written back), x = rms_norm(r) * w
"""

import sys

import torch
import triton
import triton.language as tl

import loom_torch

TOKENS = [1, 8, 32, 128, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536]
HIDDEN = [2048, 4096, 5120, 8192]
INTER = [1792, 3584, 7168, 8192, 14336]          # per-GPU MLP widths (14336 / TP 1, 2, 4, 8; 8192)
ROT = [(32, 8), (48, 8), (8, 2), (4, 1), (16, 1), (64, 8)]   # (q heads, kv heads) per GPU under TP, head_dim 128
MAX_BYTES = 3 << 30


@triton.jit
def _rotary_neox(pos_ptr, q_ptr, k_ptr, cs_ptr, q_stride, k_stride, HQ: tl.constexpr, HK: tl.constexpr,
                 HALF: tl.constexpr, BH: tl.constexpr):
    t = tl.program_id(0)
    p = tl.load(pos_ptr + t)
    d = tl.arange(0, HALF)
    cos = tl.load(cs_ptr + p * 2 * HALF + d).to(tl.float32)[None, :]
    sin = tl.load(cs_ptr + p * 2 * HALF + HALF + d).to(tl.float32)[None, :]
    for h0 in range(0, HQ, BH):
        h = h0 + tl.arange(0, BH)[:, None]
        m = h < HQ
        base = q_ptr + t * q_stride + h * 2 * HALF + d[None, :]
        x1 = tl.load(base, mask=m).to(tl.float32)
        x2 = tl.load(base + HALF, mask=m).to(tl.float32)
        tl.store(base, (x1 * cos - x2 * sin).to(q_ptr.dtype.element_ty), mask=m)
        tl.store(base + HALF, (x2 * cos + x1 * sin).to(q_ptr.dtype.element_ty), mask=m)
    for h0 in range(0, HK, BH):
        h = h0 + tl.arange(0, BH)[:, None]
        m = h < HK
        base = k_ptr + t * k_stride + h * 2 * HALF + d[None, :]
        x1 = tl.load(base, mask=m).to(tl.float32)
        x2 = tl.load(base + HALF, mask=m).to(tl.float32)
        tl.store(base, (x1 * cos - x2 * sin).to(k_ptr.dtype.element_ty), mask=m)
        tl.store(base + HALF, (x2 * cos + x1 * sin).to(k_ptr.dtype.element_ty), mask=m)


@triton.jit
def _silu_and_mul(x_ptr, o_ptr, d, BLOCK: tl.constexpr):
    t = tl.program_id(0)
    c = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    m = c < d
    a = tl.load(x_ptr + t * 2 * d + c, mask=m).to(tl.float32)
    b = tl.load(x_ptr + t * 2 * d + d + c, mask=m).to(tl.float32)
    tl.store(o_ptr + t * d + c, (a / (1.0 + tl.exp(-a)) * b).to(o_ptr.dtype.element_ty), mask=m)


@triton.jit
def _fused_add_rms_norm(x_ptr, r_ptr, w_ptr, n, eps, BLOCK: tl.constexpr):
    t = tl.program_id(0)
    c = tl.arange(0, BLOCK)
    m = c < n
    s = tl.load(x_ptr + t * n + c, mask=m, other=0.0).to(tl.float32) + \
        tl.load(r_ptr + t * n + c, mask=m, other=0.0).to(tl.float32)
    tl.store(r_ptr + t * n + c, s.to(r_ptr.dtype.element_ty), mask=m)
    var = tl.sum(s * s, axis=0) / n
    w = tl.load(w_ptr + c, mask=m, other=0.0).to(tl.float32)
    tl.store(x_ptr + t * n + c, (s * tl.rsqrt(var + eps) * w).to(x_ptr.dtype.element_ty), mask=m)


def rotary(pos, q, k, cs):
    T, HQ, D = q.shape
    _rotary_neox[(T,)](pos, q, k, cs, q.stride(0), k.stride(0), HQ=HQ, HK=k.shape[1], HALF=D // 2, BH=4)


def silu_and_mul(x, out):
    d = out.shape[1]
    _silu_and_mul[(x.shape[0], triton.cdiv(d, 1024))](x, out, d, BLOCK=1024)


def fused_add_rms_norm(x, r, w, eps=1e-6):
    _fused_add_rms_norm[(x.shape[0],)](x, r, w, x.shape[1], eps, BLOCK=triton.next_power_of_2(x.shape[1]))


def rand(*shape):
    return torch.randn(*shape, device="cuda", dtype=torch.bfloat16)


def check():
    """Compares each kernel with an eager fp32 reference; returns the worst relative error."""
    T, HQ, HK, D = 37, 12, 4, 128
    q, k = rand(T, HQ, D), rand(T, HK, D)
    cs = rand(4096, D)
    pos = torch.randint(0, 4096, (T,), device="cuda")
    qr, kr = q.float().clone(), k.float().clone()
    cos, sin = cs[pos, :D // 2].float()[:, None, :], cs[pos, D // 2:].float()[:, None, :]
    for x in (qr, kr):
        x1, x2 = x[..., :D // 2].clone(), x[..., D // 2:].clone()
        x[..., :D // 2], x[..., D // 2:] = x1 * cos - x2 * sin, x2 * cos + x1 * sin
    rotary(pos, q, k, cs)
    errs = [((q.float() - qr).abs().max() / qr.abs().max()).item(),
            ((k.float() - kr).abs().max() / kr.abs().max()).item()]
    x = rand(T, 2 * 1000)
    o = torch.empty(T, 1000, device="cuda", dtype=torch.bfloat16)
    silu_and_mul(x, o)
    ref = torch.nn.functional.silu(x[:, :1000].float()) * x[:, 1000:].float()
    errs.append(((o.float() - ref).abs().max() / ref.abs().max()).item())
    x, r, w = rand(T, 4096), rand(T, 4096), rand(4096)
    s = x.float() + r.float()
    ref = s * torch.rsqrt((s * s).mean(-1, keepdim=True) + 1e-6) * w.float()
    fused_add_rms_norm(x, r, w)
    errs.append(((x.float() - ref).abs().max() / ref.abs().max()).item())
    errs.append(((r.float() - s).abs().max() / s.abs().max()).item())
    print("check: max relative errors rotary q/k, silu_mul, rms_norm out/residual: %s" % errs, flush=True)
    return max(errs)


def main():
    p = loom_torch.common_args(__doc__)
    p.add_argument("--check", action="store_true", help="compare with eager references first")
    args = p.parse_args()
    if args.check and check() > 0.02:
        print("serving_kernels: check FAILED", flush=True)
        return 1
    sweep = loom_torch.Sweep(args, "scripts/torch/serving_kernels.py",
                             {"families": "rotary,elementwise,rms_norm", "impl": "triton (vLLM algorithms)"})
    toks = [1, 128, 4096] if args.quick else TOKENS
    cases = []
    for t in toks:
        for hq, hk in ROT:
            cases.append((t * (hq + hk) * 128 * 2 * 2, "rot", (t, hq, hk)))
        for d in INTER:
            cases.append((t * d * 6, "silu", (t, d)))
        for h in HIDDEN:
            cases.append((t * h * 8, "norm", (t, h)))
    cases = [c for c in cases if c[0] <= MAX_BYTES]
    cases.sort(key=lambda c: c[0])
    print("serving_kernels: %d cases on %d SMs" % (len(cases), sweep.part.sms), flush=True)
    ang = torch.arange(131072, device="cuda", dtype=torch.float32)[:, None] * \
        (10000.0 ** (-torch.arange(64, device="cuda", dtype=torch.float32) / 64))[None, :]
    cs = torch.cat([ang.cos(), ang.sin()], dim=1).to(torch.bfloat16)  # vLLM's cos_sin_cache layout
    for _, kind, shape in cases:
        if kind == "rot":
            t, hq, hk = shape
            q, k = rand(t, hq, 128), rand(t, hk, 128)
            pos = torch.randint(0, 131072, (t,), device="cuda")
            spec = "rotary tokens=%d heads=%d kv_heads=%d head_dim=128 dtype=bf16 impl=fused" % (t, hq, hk)
            sweep.run("rotary", spec, "triton", lambda: rotary(pos, q, k, cs))
        elif kind == "silu":
            t, d = shape
            x, o = rand(t, 2 * d), torch.empty(t, d, device="cuda", dtype=torch.bfloat16)
            spec = "elementwise op=silu_mul rows=%d cols=%d dtype=bf16 impl=fused" % (t, d)
            sweep.run("elementwise", spec, "triton", lambda: silu_and_mul(x, o))
        else:
            t, h = shape
            x, r, w = rand(t, h), rand(t, h), rand(h)
            spec = "rms_norm rows=%d cols=%d dtype=bf16 residual=1 impl=fused" % (t, h)
            sweep.run("rms_norm", spec, "triton", lambda: fused_add_rms_norm(x, r, w))
    return sweep.finish()


if __name__ == "__main__":
    sys.exit(main())
