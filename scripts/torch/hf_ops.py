"""The small PyTorch kernels an unfused Hugging Face transformers step launches besides GEMMs and attention,
timed as loom kernel specs: dtype casts, vectorized and strided copies, broadcast multiplies, the RMSNorm mean,
the greedy argmax, GQA repeat_kv, and SDPA decode attention with an explicit mask (HF StaticCache). Run under
libloom_cupti.so; writes PREFIX.cases.csv (traces/FORMAT.md).

  python3 scripts/torch/hf_ops.py --out traces/run/hf_ops.132 [--sms 32] [--quick]

Spec vocabulary (rows x cols = the output for maps, the input for row reductions; dtype = the input's):
  elementwise op=to_fp32 dtype=bf16       x.float()                       (unrolled direct_copy kernel)
  elementwise op=to_bf16 dtype=fp32       x.to(bfloat16)                  (vectorized bfloat16_copy kernel)
  elementwise op=copy dtype=bf16|fp32     neg(x) / x.pow(2): one-in-one-out, contiguous (vectorized)
  elementwise op=copy_strided dtype=bf16  neg(x[..., :d/2]): a non-contiguous source (offset-calculator kernel),
                                          as rotate_half does
  elementwise op=mul_bcast dtype=bf16     weight[cols] * x (LlamaRMSNorm's scale, cos/sin broadcast in rotary)
  elementwise op=mul_bcast dtype=fp32     x * rsqrt(var)[rows, 1]
  elementwise op=mean dtype=fp32          x.mean(-1, keepdim=True)        (reduce_kernel over each row)
  elementwise op=argmax dtype=bf16        logits.argmax(-1)               (reduce_kernel over each row)
  elementwise op=expand_copy dtype=bf16   repeat_kv: [b, kv, L, d] expanded to 4x the heads, made contiguous;
                                          rows = b * heads * L, cols = d (output)
  elementwise op=cat dtype=bf16           torch.cat as HF launches it (CatArrayBatchedCopy): rotate_half's
                                          cat((-x2, x1), -1) over q/k laid out [b, h, s, d] as a transposed view,
                                          and DynamicCache's cat([cache, new], -2); rows x cols = the output
  attention_decode ... mask=1             SDPA with a boolean [b, 1, 1, L] mask over K/V already expanded to
                                          every query head (kv_heads = heads), as HF StaticCache decode runs it
"""

import sys

import torch
import torch.nn.functional as F

import loom_torch

ROWS = [1, 8, 64, 512, 2048, 8192, 32768]
COLS = [2048, 4096, 8192]
VOCAB = [32000, 128256, 152064]
ARGMAX_ROWS = [1, 8, 32, 64, 256]
MAX_ELEMS = 32768 * 8192
# repeat_kv: (batch, kv_heads, seq_kv, head_dim) with 4x query heads (Llama-3 GQA)
EXPAND = [(b, 8, L, d) for b in (1, 8, 32, 64) for L in (128, 512, 2048) for d in (64, 128)]
# masked decode attention: (batch, heads, seq_kv, head_dim)
# rotate_half cat: (heads, head_dim) x tokens; DynamicCache cat: (batch, kv_heads, cached, new, head_dim)
CAT_ROTARY = [(h, d, t) for h, d in ((32, 64), (8, 64), (32, 128), (8, 128))
              for t in (1, 8, 64, 512, 2048, 8192, 32768)]
CAT_KV = [(b, 8, L, n, d) for b in (1, 8, 32, 64) for L, n in ((0, 128), (0, 512), (128, 1), (512, 1), (2048, 1))
          for d in (64, 128)]
MASKED = [(b, h, L, d) for b in (1, 8, 32, 64) for L in (128, 512, 2048, 8192)
          for h, d in ((32, 64), (32, 128), (64, 128))]


def bf(*shape):
    return torch.randn(*shape, device="cuda", dtype=torch.bfloat16)


def f32(*shape):
    return torch.randn(*shape, device="cuda", dtype=torch.float32)


def map_cases(rows, cols):
    """(spec, fn) pairs for the row/element ops on a rows x cols tensor."""
    tag = "rows=%d cols=%d" % (rows, cols)
    x, xf = bf(rows, cols), f32(rows, cols)
    w, r = bf(cols), f32(rows, 1)
    half = bf(rows, 2 * cols)[:, :cols]
    return [
        ("elementwise op=to_fp32 %s dtype=bf16" % tag, lambda: x.float()),
        ("elementwise op=to_bf16 %s dtype=fp32" % tag, lambda: xf.to(torch.bfloat16)),
        ("elementwise op=copy %s dtype=bf16" % tag, lambda: torch.neg(x)),
        ("elementwise op=copy %s dtype=fp32" % tag, lambda: xf.pow(2)),
        ("elementwise op=copy_strided %s dtype=bf16" % tag, lambda: torch.neg(half)),
        ("elementwise op=mul_bcast %s dtype=bf16" % tag, lambda: w * x),
        ("elementwise op=mul_bcast %s dtype=fp32" % tag, lambda: xf * r),
        ("elementwise op=mean %s dtype=fp32" % tag, lambda: xf.mean(-1, keepdim=True)),
    ]


def main():
    p = loom_torch.common_args(__doc__)
    p.add_argument("--ops", default="", help="comma-separated subset of op groups: map,argmax,expand,masked,cat")
    args = p.parse_args()
    groups = set(args.ops.split(",")) if args.ops else {"map", "argmax", "expand", "masked", "cat"}
    sweep = loom_torch.Sweep(args, "scripts/torch/hf_ops.py", {"families": "elementwise,attention_decode"})
    rows_list = [8, 2048] if args.quick else ROWS
    cols_list = [4096] if args.quick else COLS
    cases = []  # (size, family, builder): smallest first so a time budget drops the largest
    for rows in (rows_list if "map" in groups else []):
        for cols in cols_list:
            if rows * cols <= MAX_ELEMS:
                cases.append((rows * cols, "elementwise", lambda rows=rows, cols=cols: map_cases(rows, cols)))
    for rows in ([1, 64] if args.quick else ARGMAX_ROWS) if "argmax" in groups else []:
        for vocab in ([128256] if args.quick else VOCAB):
            def argmax(rows=rows, vocab=vocab):
                x = bf(rows, vocab)
                return [("elementwise op=argmax rows=%d cols=%d dtype=bf16" % (rows, vocab), lambda: x.argmax(-1))]
            cases.append((rows * vocab, "elementwise", argmax))
    for b, kv, L, d in (EXPAND[:2] if args.quick else EXPAND) if "expand" in groups else []:
        def expand(b=b, kv=kv, L=L, d=d):
            k = bf(b, kv, L, d)
            fn = lambda: k[:, :, None, :, :].expand(b, kv, 4, L, d).reshape(b, kv * 4, L, d)
            return [("elementwise op=expand_copy rows=%d cols=%d dtype=bf16" % (b * kv * 4 * L, d), fn)]
        cases.append((b * kv * 4 * L * d, "elementwise", expand))
    for h, d, t in (CAT_ROTARY[:3] if args.quick else CAT_ROTARY) if "cat" in groups else []:
        def cat_rotary(h=h, d=d, t=t):
            b = 1 if t < 64 else 8
            q = bf(b, t // b, h, d).transpose(1, 2)  # [b, h, s, d] as HF's view(...).transpose(1, 2)
            x1, nx2 = q[..., : d // 2], -q[..., d // 2:]
            return [("elementwise op=cat rows=%d cols=%d dtype=bf16" % (t * h, d),
                     lambda: torch.cat((nx2, x1), dim=-1))]
        cases.append((t * h * d, "elementwise", cat_rotary))
    for b, kv, L, n, d in (CAT_KV[:2] if args.quick else CAT_KV) if "cat" in groups else []:
        def cat_kv(b=b, kv=kv, L=L, n=n, d=d):
            cache = bf(b, kv, L, d)
            new = bf(b, n, kv, d).transpose(1, 2)
            spec = "elementwise op=cat rows=%d cols=%d dtype=bf16" % (b * kv * (L + n), d)
            return [(spec, lambda: torch.cat([cache, new], dim=-2))]
        cases.append((b * kv * (L + n) * d, "elementwise", cat_kv))
    for b, h, L, d in (MASKED[:3] if args.quick else MASKED) if "masked" in groups else []:
        def masked(b=b, h=h, L=L, d=d):
            q, k, v = bf(b, h, 1, d), bf(b, h, L, d), bf(b, h, L, d)
            mask = torch.ones(b, 1, 1, L, device="cuda", dtype=torch.bool)
            mask[..., L - max(1, L // 16):] = False  # the unused tail of a static cache
            spec = ("attention_decode batch=%d heads=%d kv_heads=%d seq_kv=%d head_dim=%d dtype=bf16 mask=1"
                    % (b, h, h, L, d))
            return [(spec, lambda: F.scaled_dot_product_attention(q, k, v, attn_mask=mask))]
        cases.append((b * h * L * d, "attention_decode", masked))
    cases.sort(key=lambda c: c[0])
    print("hf_ops: %d shape groups on %d SMs" % (len(cases), sweep.part.sms), flush=True)
    for _, family, builder in cases:
        try:
            specs = builder()
        except Exception as exc:  # noqa: BLE001 (allocation)
            print("skip: %s" % exc, flush=True)
            continue
        for spec, fn in specs:
            sweep.run(family, spec, "torch", fn)
        del specs
    return sweep.finish()


if __name__ == "__main__":
    sys.exit(main())
