"""loom's Triton GEMM, C = A @ B^T as F.linear computes it (A [M, K] activations, B [N, K] weights, C [M, N]), bf16 in
and out with fp32 accumulation, or fp8 w8a8 (e4m3, per-tensor scales) with bf16 out. The algorithm is Triton's matmul
tutorial's (one program per (M tile, N tile), GROUP_SIZE_M swizzle of the program order for L2 reuse, masked K tail),
the kernel the engines' Triton GEMMs (vLLM's triton_scaled_mm, SGLang's w8a8 kernels) are built on. Knobs, as they are
tuned: BLOCK_SIZE_M/N/K, GROUP_SIZE_M, num_warps, num_stages; a config is `BMxBNxBK_s<stages>_w<warps>_g<group>`.

M is not specialised (`do_not_specialize`), so one compiled kernel per config and dtype serves every batch size; N, K
and the strides keep Triton's divisibility-by-16 hints (every swept shape has N, K multiples of 16 and > 1), so the
sweep compiles each config once."""

import torch
import triton
import triton.language as tl

import fused_moe_triton  # noqa: E402  (same folder; sweeps put it on sys.path)


@triton.jit(do_not_specialize=["M"])
def gemm_kernel(a_ptr, b_ptr, c_ptr, a_scale_ptr, b_scale_ptr, M, N, K, stride_am, stride_ak, stride_bn, stride_bk,
                stride_cm, stride_cn, BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr,
                BLOCK_SIZE_K: tl.constexpr, GROUP_SIZE_M: tl.constexpr, USE_FP8: tl.constexpr):
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m

    # Rows/columns past the edge wrap (as the tutorial does) so loads need no M/N mask; the store is masked.
    offs_am = (pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)) % M
    offs_bn = (pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)) % N
    offs_k = tl.arange(0, BLOCK_SIZE_K)
    a_ptrs = a_ptr + (offs_am[:, None].to(tl.int64) * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :].to(tl.int64) * stride_bn)

    acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
        k_left = K - k * BLOCK_SIZE_K
        a = tl.load(a_ptrs, mask=offs_k[None, :] < k_left, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < k_left, other=0.0)
        acc = tl.dot(a, b, acc=acc)
        a_ptrs += BLOCK_SIZE_K * stride_ak
        b_ptrs += BLOCK_SIZE_K * stride_bk

    if USE_FP8:
        acc = acc * tl.load(a_scale_ptr) * tl.load(b_scale_ptr)
    offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None].to(tl.int64) + stride_cn * offs_cn[None, :]
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=(offs_cm[:, None] < M) & (offs_cn[None, :] < N))


# Config names and knob dicts are the fused-MoE kernel's (same knobs, same naming): one definition.
parse_config = fused_moe_triton.parse_config
config_name = fused_moe_triton.config_name


def invoke(a, b, c, a_scale, b_scale, cfg, warmup=False):
    """One launch: c = a @ b.T (a [M, K], b [N, K], c [M, N] bf16), scaled by a_scale * b_scale when fp8."""
    m, k = a.shape
    n = b.shape[0]
    bm, bn = cfg["BLOCK_SIZE_M"], cfg["BLOCK_SIZE_N"]
    grid = (triton.cdiv(m, bm) * triton.cdiv(n, bn),)
    args = (a, b, c, a_scale, b_scale, m, n, k, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0),
            c.stride(1))
    kw = dict(BLOCK_SIZE_M=bm, BLOCK_SIZE_N=bn, BLOCK_SIZE_K=cfg["BLOCK_SIZE_K"], GROUP_SIZE_M=cfg["GROUP_SIZE_M"],
              USE_FP8=a.dtype == torch.float8_e4m3fn, num_warps=cfg["num_warps"], num_stages=cfg["num_stages"])
    if warmup:
        return gemm_kernel.warmup(*args, grid=grid, **kw)
    gemm_kernel[grid](*args, **kw)
    return None


class GemmProblem:
    """Tensors of one linear layer: x [M, K] activations, w [N, K] weights (random, scale 0.05), out [M, N] bf16.
    dtype 'bf16' or 'fp8' (e4m3 x and w, per-tensor scales of 1). `weight` shares one layer's weights among M."""

    def __init__(self, m, n, k, dtype, seed=0, weight=None):
        self.fp8 = dtype == "fp8"
        self.dtype = torch.float8_e4m3fn if self.fp8 else torch.bfloat16
        g = torch.Generator(device="cuda").manual_seed(seed)
        if weight is None:
            weight = (torch.randn(n, k, device="cuda", generator=g) * 0.05).to(self.dtype)
        self.w = weight
        self.x = torch.randn(m, k, device="cuda", generator=g).to(self.dtype)
        self.out = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
        self.scale = torch.ones(1, device="cuda", dtype=torch.float32)
        self.m, self.n, self.k = m, n, k

    def launch(self, cfg, warmup=False):
        return invoke(self.x, self.w, self.out, self.scale, self.scale, cfg, warmup)

    def cublas(self):
        """The library's GEMM on the same operands (bf16: F.linear -> cuBLAS(Lt); fp8: torch._scaled_mm)."""
        if self.fp8:
            return torch._scaled_mm(self.x, self.w.t(), scale_a=self.scale, scale_b=self.scale,
                                    out_dtype=torch.bfloat16)
        return torch.nn.functional.linear(self.x, self.w)

    def reference(self):
        """fp32 reference (for the correctness check)."""
        return self.x.float() @ self.w.float().t()
