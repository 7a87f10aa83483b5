"""A traced prefill of an MoE model with loom's Triton fused-MoE kernel, once with the engines' default configs (vLLM's
get_default_config when no tuned file exists: M <= E -> BLOCK 16x32x64 GROUP 1, else 64x64x32 GROUP 8; 4 warps,
3 stages, Triton's defaults) and once with the configs of a loom-exported engine file (nearest batch-size key, as the
engines pick). Qwen3-30B-A3B's shapes (48 layers, hidden 2048, 32 query / 4 KV heads of 128, 128 experts, top-8,
expert intermediate 768), random weights; one layer's weights serve every layer (the timing does not depend on the
values). Per layer: RMSNorm, QKV GEMM, causal SDPA, O GEMM, residual, RMSNorm, router GEMM + top-k, token sort,
w13 fused-MoE GEMM, SiLU*mul, w2 fused-MoE GEMM (routed weights), top-k sum, residual.
Variants alternate rep by rep; each forward is an NVTX range `loom.prefill=<variant>,tokens=<T>` (the CUPTI trace
gives the kernels' GPU time); CUDA events give the forward's time (the TTFT of one prompt without sampling)."""

import argparse
import json
import os
import statistics
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fused_moe_triton as fm  # noqa: E402

H, HEADS, KV, HD, LAYERS, E, TOPK, INTER = 2048, 32, 4, 128, 48, 128, 8, 768


def default_config(m, experts):
    """vLLM's default fused-MoE config for bf16 without a tuned file (fused_moe.py get_default_config)."""
    if m <= experts:
        return {"BLOCK_SIZE_M": 16, "BLOCK_SIZE_N": 32, "BLOCK_SIZE_K": 64, "GROUP_SIZE_M": 1}
    return {"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 8}


def load_engine_file(path):
    """Reads an engine config file exactly as the engines do: json.load, every key an int batch size."""
    with open(path) as f:
        return {int(k): v for k, v in json.load(f).items()}


def pick(configs, m):
    return configs[min(configs.keys(), key=lambda x: abs(x - m))]


class Layer:
    def __init__(self):
        g = torch.Generator(device="cuda").manual_seed(7)
        r = lambda *s: (torch.randn(*s, device="cuda", generator=g) * 0.02).to(torch.bfloat16)  # noqa: E731
        self.qkv, self.o = r((HEADS + 2 * KV) * HD, H), r(H, HEADS * HD)
        self.router = r(E, H)
        self.w = fm.MoeWeights(E, H, INTER, "bf16", seed=3)
        self.n1 = torch.ones(H, device="cuda", dtype=torch.bfloat16)
        self.n2 = torch.ones(H, device="cuda", dtype=torch.bfloat16)
        self.a_scale = torch.ones(1, device="cuda", dtype=torch.float32)

    def forward(self, x, cfg):
        t = x.shape[0]
        h = F.rms_norm(x, (H,), self.n1)
        q, k, v = F.linear(h, self.qkv).split([HEADS * HD, KV * HD, KV * HD], dim=-1)
        q = q.view(1, t, HEADS, HD).transpose(1, 2)
        k = k.view(1, t, KV, HD).transpose(1, 2)
        v = v.view(1, t, KV, HD).transpose(1, 2)
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
        x = x + F.linear(a.transpose(1, 2).reshape(t, HEADS * HD), self.o)
        h = F.rms_norm(x, (H,), self.n2)
        logits = F.linear(h, self.router).float()
        tw, ti = torch.topk(torch.softmax(logits, dim=-1), TOPK, dim=-1)
        tw = tw / tw.sum(dim=-1, keepdim=True)
        s, e, p = fm.align_block_size(ti.to(torch.int32), cfg["BLOCK_SIZE_M"], E)
        mid = torch.empty(t * TOPK, 2 * INTER, device="cuda", dtype=torch.bfloat16)
        fm.invoke(h, self.w.w13, mid, self.a_scale, self.w.scale, tw, s, e, p, TOPK, False, cfg)
        act = F.silu(mid[:, :INTER]) * mid[:, INTER:]
        out = torch.empty(t * TOPK, H, device="cuda", dtype=torch.bfloat16)
        fm.invoke(act, self.w.w2, out, self.a_scale, self.w.scale, tw, s, e, p, 1, True, cfg)
        return x + out.view(t, TOPK, H).sum(dim=1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--engine-file", required=True, help="E=128,N=768,device_name=...json written by loom")
    ap.add_argument("--tokens", default="512,1024,2048,4096")
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--json", required=True)
    args = ap.parse_args()
    tuned = load_engine_file(args.engine_file)
    layer = Layer()
    nvtx = torch.cuda.nvtx
    results = []
    for t in (int(x) for x in args.tokens.split(",")):
        x0 = torch.randn(t, H, device="cuda", dtype=torch.bfloat16)
        variants = {"default": dict(default_config(t, E), num_warps=4, num_stages=3), "loom": pick(tuned, t)}
        times = {k: [] for k in variants}
        for rep in range(args.reps + 2):
            for name, cfg in variants.items():
                torch.cuda.synchronize()
                s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                nvtx.range_push("loom.prefill=%s,tokens=%d" % (name, t))
                s.record()
                x = x0
                for _ in range(LAYERS):
                    x = layer.forward(x, cfg)
                e.record()
                torch.cuda.synchronize()
                nvtx.range_pop()
                if rep >= 2:
                    times[name].append(s.elapsed_time(e))
        row = {"tokens": t, "configs": {k: fm.config_name(dict(v, num_warps=v.get("num_warps", 4),
                                                               num_stages=v.get("num_stages", 3)))
                                        for k, v in variants.items()},
               "ttft_ms": {k: statistics.median(v) for k, v in times.items()}}
        row["speedup"] = row["ttft_ms"]["default"] / row["ttft_ms"]["loom"]
        results.append(row)
        print("tokens %5d: default %s %.2f ms, loom %s %.2f ms, speedup %.3fx" % (
            t, row["configs"]["default"], row["ttft_ms"]["default"], row["configs"]["loom"], row["ttft_ms"]["loom"],
            row["speedup"]), flush=True)
    with open(args.json, "w") as f:
        json.dump({"model": "qwen3-30b-a3b shapes (random weights)", "gpu": torch.cuda.get_device_name(),
                   "reps": args.reps, "results": results}, f, indent=1)


if __name__ == "__main__":
    main()
