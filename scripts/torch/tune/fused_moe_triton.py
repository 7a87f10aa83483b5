"""loom's Triton fused-MoE grouped GEMM, written after the algorithm vLLM and SGLang publish for their
`fused_moe_kernel` (token-to-expert sorting padded to BLOCK_SIZE_M, one program per (M tile of the sorted rows,
N tile) with GROUP_SIZE_M swizzling, bf16 or fp8 w8a8 with per-tensor activation and per-expert weight scales,
routed weight applied in the w2 epilogue). The knobs are the engines' tuning knobs: BLOCK_SIZE_M/N/K,
GROUP_SIZE_M, num_warps, num_stages; a config is written `BMxBNxBK_s<stages>_w<warps>_g<group>` in loom specs.

Differences from the engines' kernel, on purpose: `top_k` and `mul_routed_weight` are runtime arguments (not
constexpr) and `EM`/`num_valid_tokens` are not specialised, so one compiled kernel per config and dtype serves every
shape (the tuning sweep compiles each config once); the token sort runs in PyTorch (`align_block_size`), outside the
timed kernel, as the engines' `moe_align_block_size` is its own launch."""

import torch
import triton
import triton.language as tl


@triton.jit(do_not_specialize=["EM", "num_valid_tokens", "top_k", "mul_routed_weight"])
def fused_moe_kernel(a_ptr, b_ptr, c_ptr, a_scale_ptr, b_scale_ptr, topk_weights_ptr, sorted_token_ids_ptr,
                     expert_ids_ptr, num_tokens_post_padded_ptr, N, K, EM, num_valid_tokens, top_k,
                     mul_routed_weight, stride_am, stride_ak, stride_be, stride_bk, stride_bn, stride_cm, stride_cn,
                     BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,
                     GROUP_SIZE_M: tl.constexpr, USE_FP8: tl.constexpr):
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(EM, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m

    num_tokens_post_padded = tl.load(num_tokens_post_padded_ptr)
    if pid_m * BLOCK_SIZE_M >= num_tokens_post_padded:
        return  # padding programs of the upper-bound grid exit at once
    offs_token_id = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M).to(tl.int64)
    offs_token = tl.load(sorted_token_ids_ptr + offs_token_id).to(tl.int64)
    token_mask = offs_token < num_valid_tokens
    off_expert = tl.load(expert_ids_ptr + pid_m).to(tl.int64)

    offs_bn = (pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N).to(tl.int64)) % N
    offs_k = tl.arange(0, BLOCK_SIZE_K)
    a_ptrs = a_ptr + (offs_token[:, None] // top_k * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + off_expert * stride_be + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)

    acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
        k_left = K - k * BLOCK_SIZE_K
        a = tl.load(a_ptrs, mask=token_mask[:, None] & (offs_k[None, :] < k_left), other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < k_left, other=0.0)
        acc = tl.dot(a, b, acc=acc)
        a_ptrs += BLOCK_SIZE_K * stride_ak
        b_ptrs += BLOCK_SIZE_K * stride_bk

    if USE_FP8:
        acc = acc * tl.load(a_scale_ptr) * tl.load(b_scale_ptr + off_expert)
    if mul_routed_weight:
        w = tl.load(topk_weights_ptr + offs_token, mask=token_mask, other=0.0)
        acc = acc * w[:, None]
    offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    c_ptrs = c_ptr + stride_cm * offs_token[:, None] + stride_cn * offs_cn[None, :]
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=token_mask[:, None] & (offs_cn[None, :] < N))


def round_robin_topk(tokens, experts, topk, device="cuda"):
    """Routing of the sweep: routed row t*topk+j goes to expert (t*topk+j) % experts (every expert gets the same
    number of rows, +-1), with routing weights 1/topk. src/wave/mapping.cpp moe_m_tiles counts tiles the same way."""
    ids = (torch.arange(tokens * topk, device=device, dtype=torch.int64) % experts).view(tokens, topk)
    w = torch.full((tokens, topk), 1.0 / topk, device=device, dtype=torch.float32)
    return ids.to(torch.int32), w


def align_block_size(topk_ids, block_m, experts):
    """The engines' moe_align_block_size, in PyTorch: routed rows sorted by expert (stable), each expert's segment
    padded to a multiple of block_m with the sentinel tokens*topk; expert of every M tile; padded row count.
    The sorted array has the engines' upper-bound length tokens*topk + experts*(block_m-1), so the grid is theirs."""
    flat = topk_ids.flatten().to(torch.int64)
    numel = flat.numel()
    # No host synchronisation (no bincount, no .item()), as the engines' kernel: a model step keeps launching ahead.
    counts = torch.zeros(experts, dtype=torch.int64, device=flat.device).scatter_add_(0, flat, torch.ones_like(flat))
    padded = (counts + block_m - 1) // block_m * block_m
    starts = torch.cumsum(padded, 0) - padded
    order = torch.argsort(flat, stable=True)
    seg_start = torch.cumsum(counts, 0) - counts
    rank = torch.arange(numel, device=flat.device) - seg_start[flat[order]]
    max_len = numel + experts * (block_m - 1)
    sorted_ids = torch.full((max_len,), numel, dtype=torch.int32, device=flat.device)
    sorted_ids[starts[flat[order]] + rank] = order.to(torch.int32)
    n_tiles = (max_len + block_m - 1) // block_m
    tile_end = torch.cumsum(padded // block_m, 0)
    expert_ids = torch.searchsorted(tile_end, torch.arange(n_tiles, device=flat.device), right=True)
    expert_ids = expert_ids.clamp_(max=experts - 1).to(torch.int32)  # tiles past the padded total exit at once
    post = padded.sum().to(torch.int32).view(1)
    return sorted_ids, expert_ids, post


def parse_config(name):
    """'64x128x64_s3_w4_g16' -> the engines' config dict (BLOCK_SIZE_M, ..., num_warps, num_stages)."""
    tile, s, w, g = name.split("_")
    bm, bn, bk = (int(x) for x in tile.split("x"))
    return {"BLOCK_SIZE_M": bm, "BLOCK_SIZE_N": bn, "BLOCK_SIZE_K": bk, "GROUP_SIZE_M": int(g[1:]),
            "num_warps": int(w[1:]), "num_stages": int(s[1:])}


def config_name(cfg):
    return "%dx%dx%d_s%d_w%d_g%d" % (cfg["BLOCK_SIZE_M"], cfg["BLOCK_SIZE_N"], cfg["BLOCK_SIZE_K"],
                                     cfg["num_stages"], cfg.get("num_warps", 4), cfg["GROUP_SIZE_M"])


def invoke(a, w, c, a_scale, w_scale, topk_weights, sorted_ids, expert_ids, post, top_k, mul_routed_weight, cfg,
           warmup=False):
    """One fused-MoE GEMM launch: c[row] = a[row // top_k] @ w[expert].T for every routed row (w: [E, N, K])."""
    em = sorted_ids.numel()
    n, k = w.shape[1], w.shape[2]
    bm, bn = cfg["BLOCK_SIZE_M"], cfg["BLOCK_SIZE_N"]
    grid = (triton.cdiv(em, bm) * triton.cdiv(n, bn),)
    args = (a, w, c, a_scale, w_scale, topk_weights, sorted_ids, expert_ids, post, n, k, em, c.shape[0], top_k,
            int(mul_routed_weight), a.stride(0), a.stride(1), w.stride(0), w.stride(2), w.stride(1), c.stride(0),
            c.stride(1))
    kw = dict(BLOCK_SIZE_M=bm, BLOCK_SIZE_N=bn, BLOCK_SIZE_K=cfg["BLOCK_SIZE_K"], GROUP_SIZE_M=cfg["GROUP_SIZE_M"],
              USE_FP8=a.dtype == torch.float8_e4m3fn, num_warps=cfg.get("num_warps", 4),
              num_stages=cfg.get("num_stages", 3))
    if warmup:
        return fused_moe_kernel.warmup(*args, grid=grid, **kw)
    fused_moe_kernel[grid](*args, **kw)
    return None


class MoeWeights:
    """Random expert weights of one MoE layer shard: w13 [E, 2*inter, hidden] and w2 [E, hidden, inter], bf16 or
    fp8 (e4m3, per-expert scales of 1)."""

    def __init__(self, experts, hidden, inter, dtype, seed=0):
        g = torch.Generator(device="cuda").manual_seed(seed)
        self.fp8 = dtype == "fp8"
        self.dtype = torch.float8_e4m3fn if self.fp8 else torch.bfloat16
        self.w13 = (torch.randn(experts, 2 * inter, hidden, device="cuda", generator=g) * 0.05).to(self.dtype)
        self.w2 = (torch.randn(experts, hidden, inter, device="cuda", generator=g) * 0.05).to(self.dtype)
        self.scale = torch.ones(experts, device="cuda", dtype=torch.float32)


class MoeProblem:
    """Tensors of one fused-MoE layer shape, both GEMMs: w13 (N = 2*inter, K = hidden) then w2 (N = hidden,
    K = inter, routed weight in the epilogue). dtype 'bf16' or 'fp8' (e4m3, per-tensor activation scale)."""

    def __init__(self, tokens, experts, topk, hidden, inter, dtype, seed=0, weights=None):
        w = weights or MoeWeights(experts, hidden, inter, dtype, seed)
        g = torch.Generator(device="cuda").manual_seed(seed + 1)
        self.tokens, self.experts, self.topk, self.hidden, self.inter = tokens, experts, topk, hidden, inter
        self.fp8 = w.fp8
        self.w13, self.w2, self.w_scale = w.w13, w.w2, w.scale
        self.x = torch.randn(tokens, hidden, device="cuda", generator=g).to(w.dtype)
        self.mid = torch.randn(tokens * topk, inter, device="cuda", generator=g).to(w.dtype)
        self.out13 = torch.empty(tokens * topk, 2 * inter, device="cuda", dtype=torch.bfloat16)
        self.out2 = torch.empty(tokens * topk, hidden, device="cuda", dtype=torch.bfloat16)
        self.a_scale = torch.ones(1, device="cuda", dtype=torch.float32)
        self.topk_ids, self.topk_w = round_robin_topk(tokens, experts, topk)
        self._aligned = {}

    def aligned(self, bm):
        if bm not in self._aligned:
            self._aligned[bm] = align_block_size(self.topk_ids, bm, self.experts)
        return self._aligned[bm]

    def launch(self, stage, cfg, warmup=False):
        s, e, p = self.aligned(cfg["BLOCK_SIZE_M"])
        if stage == "w13":
            return invoke(self.x, self.w13, self.out13, self.a_scale, self.w_scale, self.topk_w, s, e, p,
                          self.topk, False, cfg, warmup)
        return invoke(self.mid, self.w2, self.out2, self.a_scale, self.w_scale, self.topk_w, s, e, p, 1, True, cfg,
                      warmup)

    def reference(self, stage):
        """fp32 reference of one stage (for the correctness check)."""
        ids = self.topk_ids.flatten().long()
        if stage == "w13":
            a = self.x.float().repeat_interleave(self.topk, 0)
            return torch.einsum("rk,rnk->rn", a, self.w13.float()[ids])
        a = self.mid.float()
        return torch.einsum("rk,rnk->rn", a, self.w2.float()[ids]) * self.topk_w.flatten()[:, None]
