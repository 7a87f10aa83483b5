"""PyTorch SDPA attention sweep (prefill causal/non-causal, decode) over common LLM head layouts, for loom's corpus.
Run under libloom_cupti.so; writes PREFIX.cases.csv with loom.case / loom.rep NVTX ranges (traces/FORMAT.md).

  python3 scripts/torch/attention_sweep.py --out traces/run/attn.132 [--sms 32] [--quick] [--tp-layouts]

--tp-layouts sweeps the per-GPU head layouts of tensor-parallel serving instead (one or two KV heads per GPU:
Llama-3-70B / Qwen3-32B at TP 8 is 8 query heads on 1 KV head), decode at more batch sizes, causal prefill.
"""

import sys

import torch
import torch.nn.functional as F

import loom_torch

# (heads, kv_heads, head_dim): Llama-3-8B/Mistral-7B (32,8,128), Llama-2-13B-like GQA (40,8,128),
# Llama-3-70B (64,8,128), Llama-3.2-1B (32,8,64).
HEAD_LAYOUTS = [(32, 8, 128), (40, 8, 128), (64, 8, 128), (32, 8, 64)]
PREFILL_SEQ = [128, 512, 1024, 2048, 4096, 8192, 16384]
PREFILL_BATCH = [1, 4, 16, 64]
PREFILL_MAX_TOKENS = 65536  # batch * seq cap: keeps each case under ~50 ms and the sweep bounded
DECODE_BATCH = [1, 8, 32, 64]
DECODE_SEQ_KV = [512, 2048, 8192, 16384]
# Per-GPU layouts under tensor parallelism (heads/TP, kv_heads/TP): Llama-3-70B TP 8 / TP 4 (8,1) (16,2),
# Llama-3-8B TP 8 / TP 4 (4,1) (8,2), Qwen2.5-14B TP 8 (5,1), Qwen2.5-72B TP 8 (8,1, as 70B),
# Llama-3.2-1B TP 8 (4,1,64), Qwen2.5-7B TP 4 (7,1).
TP_LAYOUTS = [(8, 1, 128), (16, 2, 128), (4, 1, 128), (8, 2, 128), (5, 1, 128), (7, 1, 128), (4, 1, 64)]
TP_DECODE_BATCH = [1, 4, 16, 32, 64, 128]
TP_DECODE_SEQ_KV = [512, 2048, 8192]


def gqa_native_ok():
    """True if SDPA accepts enable_gqa (torch >= 2.5) for bf16 on this GPU."""
    try:
        q = torch.randn(1, 8, 16, 64, device="cuda", dtype=torch.bfloat16)
        k = torch.randn(1, 2, 16, 64, device="cuda", dtype=torch.bfloat16)
        F.scaled_dot_product_attention(q, k, k, is_causal=True, enable_gqa=True)
        torch.cuda.synchronize()
        return True
    except Exception as exc:  # noqa: BLE001
        print("enable_gqa unavailable (%s): K/V are repeated to full heads before timing" % exc, file=sys.stderr)
        return False


def make_fn(batch, heads, kv_heads, q_len, kv_len, head_dim, causal, native):
    q = torch.randn(batch, heads, q_len, head_dim, device="cuda", dtype=torch.bfloat16)
    k = torch.randn(batch, kv_heads, kv_len, head_dim, device="cuda", dtype=torch.bfloat16)
    v = torch.randn(batch, kv_heads, kv_len, head_dim, device="cuda", dtype=torch.bfloat16)
    if native:
        return lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal, enable_gqa=True)
    rep = heads // kv_heads  # expanded outside the timed region; impl says so
    k, v = k.repeat_interleave(rep, dim=1), v.repeat_interleave(rep, dim=1)
    return lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal)


def main():
    p = loom_torch.common_args(__doc__)
    p.add_argument("--tp-layouts", action="store_true", help="tensor-parallel per-GPU head layouts (1-2 KV heads)")
    args = p.parse_args()
    sweep = loom_torch.Sweep(args, "scripts/torch/attention_sweep.py",
                             {"families": "attention_prefill,attention_decode"})
    native = gqa_native_ok()
    impl = "torch" if native else "torch_repeat_kv"
    layouts = HEAD_LAYOUTS[:2] if args.quick else HEAD_LAYOUTS
    decode_seq, decode_batch, prefill_causal = DECODE_SEQ_KV, DECODE_BATCH, (True, False)
    if args.tp_layouts:
        layouts, decode_seq, decode_batch, prefill_causal = TP_LAYOUTS, TP_DECODE_SEQ_KV, TP_DECODE_BATCH, (True,)
    cases = []  # (flops, family, spec, maker args); run cheapest first so a time budget drops the most expensive
    for heads, kv_heads, head_dim in layouts:
        for seq_kv in ([2048] if args.quick else decode_seq):
            for batch in ([1, 32] if args.quick else decode_batch):
                spec = ("attention_decode batch=%d heads=%d kv_heads=%d seq_kv=%d head_dim=%d dtype=bf16"
                        % (batch, heads, kv_heads, seq_kv, head_dim))
                cases.append((0, "attention_decode", spec, (batch, heads, kv_heads, 1, seq_kv, head_dim, False)))
    prefill = []
    for heads, kv_heads, head_dim in layouts:
        for causal in prefill_causal:
            for seq in ([512, 2048] if args.quick else PREFILL_SEQ):
                for batch in ([1, 4] if args.quick else PREFILL_BATCH):
                    if batch * seq > PREFILL_MAX_TOKENS:
                        continue
                    spec = ("attention_prefill batch=%d heads=%d kv_heads=%d seq=%d head_dim=%d causal=%d dtype=bf16"
                            % (batch, heads, kv_heads, seq, head_dim, int(causal)))
                    flops = 4 * batch * heads * seq * seq * head_dim // (2 if causal else 1)
                    prefill.append((flops, "attention_prefill", spec,
                                    (batch, heads, kv_heads, seq, seq, head_dim, causal)))
    cases += sorted(prefill, key=lambda c: c[0])
    print("attention_sweep: %d cases on %d SMs" % (len(cases), sweep.part.sms), flush=True)
    for _, family, spec, shape in cases:
        try:
            fn = make_fn(*shape, native)
        except Exception as exc:  # noqa: BLE001 (allocation)
            print("skip %s: %s" % (spec, exc), flush=True)
            continue
        sweep.run(family, spec, impl, fn)
        del fn
    return sweep.finish()


if __name__ == "__main__":
    sys.exit(main())
