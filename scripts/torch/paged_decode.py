"""Paged decode attention (vLLM's paged-attention algorithm: KV cache in fixed blocks addressed through a block
table), written here in Triton, one program per (sequence, KV head) holding that head's GQA group of queries;
timed over KV heads 1-16 per GPU (tensor-parallel splits), batch 1-256 and context 128-32k. Writes PREFIX.cases.csv.

  python3 scripts/torch/paged_decode.py --out DIR/paged.132 [--warm] [--quick] [--check]

Spec (proposed): attention_decode batch= heads= kv_heads= seq_kv= head_dim=128 dtype=bf16 impl=paged block=16
(seq_kv = every sequence's context here; total KV tokens = batch * seq_kv, max context = seq_kv).
"""

import sys

import torch
import triton
import triton.language as tl

import loom_torch


@triton.jit
def _paged_decode(q_ptr, k_ptr, v_ptr, bt_ptr, len_ptr, o_ptr, scale, max_blocks, HQ: tl.constexpr,
                  HK: tl.constexpr, G: tl.constexpr, GP: tl.constexpr, D: tl.constexpr, BS: tl.constexpr):
    b = tl.program_id(0)
    kh = tl.program_id(1)
    g = tl.arange(0, GP)
    d = tl.arange(0, D)
    gm = g < G
    q = tl.load(q_ptr + (b * HQ + kh * G + g[:, None]) * D + d[None, :], mask=gm[:, None], other=0.0)
    n = tl.load(len_ptr + b)
    m_i = tl.full([GP], -float("inf"), tl.float32)
    l_i = tl.zeros([GP], tl.float32)
    acc = tl.zeros([GP, D], tl.float32)
    s = tl.arange(0, BS)
    for j in range(0, tl.cdiv(n, BS)):
        blk = tl.load(bt_ptr + b * max_blocks + j).to(tl.int64)
        off = ((blk * BS + s[:, None]) * HK + kh) * D + d[None, :]
        k = tl.load(k_ptr + off)
        v = tl.load(v_ptr + off)
        qk = tl.dot(q, tl.trans(k)) * scale
        qk = tl.where((j * BS + s)[None, :] < n, qk, -float("inf"))
        m_new = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.exp(qk - m_new[:, None])
        alpha = tl.exp(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
        m_i = m_new
    acc = acc / l_i[:, None]
    tl.store(o_ptr + (b * HQ + kh * G + g[:, None]) * D + d[None, :], acc.to(o_ptr.dtype.element_ty), mask=gm[:, None])


BS = 16


def setup(batch, hq, hk, ctx, d=128):
    nb = -(-ctx // BS)
    q = torch.randn(batch, hq, d, device="cuda", dtype=torch.bfloat16)
    k = torch.randn(batch * nb, BS, hk, d, device="cuda", dtype=torch.bfloat16)
    v = torch.randn(batch * nb, BS, hk, d, device="cuda", dtype=torch.bfloat16)
    bt = torch.randperm(batch * nb, device="cuda", dtype=torch.int32).view(batch, nb)  # scattered blocks
    lens = torch.full((batch,), ctx, device="cuda", dtype=torch.int32)
    o = torch.empty_like(q)
    g = hq // hk
    fn = lambda: _paged_decode[(batch, hk)](q, k, v, bt, lens, o, d ** -0.5, nb, HQ=hq, HK=hk, G=g,
                                            GP=max(16, triton.next_power_of_2(g)), D=d, BS=BS)
    return q, k, v, bt, o, fn


def check():
    batch, hq, hk, ctx, d = 3, 8, 2, 100, 128
    q, k, v, bt, o, fn = setup(batch, hq, hk, ctx, d)
    fn()
    err = 0.0
    for b in range(batch):
        kk = k[bt[b].long()].reshape(-1, hk, d)[:ctx].float()
        vv = v[bt[b].long()].reshape(-1, hk, d)[:ctx].float()
        kk, vv = kk.repeat_interleave(hq // hk, 1), vv.repeat_interleave(hq // hk, 1)
        sc = torch.einsum("hd,thd->ht", q[b].float(), kk) * d ** -0.5
        ref = torch.einsum("ht,thd->hd", sc.softmax(-1), vv)
        err = max(err, ((o[b].float() - ref).abs().max() / ref.abs().max()).item())
    print("check: paged decode max relative error %.4f" % err, flush=True)
    return err


def main():
    p = loom_torch.common_args(__doc__)
    p.add_argument("--check", action="store_true")
    args = p.parse_args()
    if args.check and check() > 0.03:
        print("paged_decode: check FAILED", flush=True)
        return 1
    sweep = loom_torch.Sweep(args, "scripts/torch/paged_decode.py",
                             {"families": "attention_decode", "impl": "triton paged"})
    cases = []
    for hq, hk in ((32, 8), (8, 2), (4, 1), (16, 2), (64, 8), (16, 16), (8, 1)):
        for batch in ([1, 32] if args.quick else [1, 8, 32, 64, 128, 256]):
            for ctx in ([1024] if args.quick else [128, 1024, 4096, 16384, 32768]):
                kv = batch * ctx * hk * 128 * 4
                if kv <= (8 << 30):
                    cases.append((kv, batch, hq, hk, ctx))
    cases.sort()
    print("paged_decode: %d cases" % len(cases), flush=True)
    for _, batch, hq, hk, ctx in cases:
        *_, fn = setup(batch, hq, hk, ctx)
        spec = ("attention_decode batch=%d heads=%d kv_heads=%d seq_kv=%d head_dim=128 dtype=bf16 impl=paged block=16"
                % (batch, hq, hk, ctx))
        sweep.run("attention_decode", spec, "triton", fn)
        del fn
        torch.cuda.empty_cache()
    return sweep.finish()


if __name__ == "__main__":
    sys.exit(main())
