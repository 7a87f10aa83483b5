"""A Llama-style HF transformers model built from a config (random bf16 weights, nothing downloaded), plus the
NVTX/event timing of one end-to-end repetition shared by hf_eager.py and graph_decode.py."""

import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import loom_torch  # noqa: E402

# Dimensions from the models' published config.json files (meta-llama/Llama-3.2-1B, meta-llama/Meta-Llama-3-8B,
# meta-llama/Meta-Llama-3-70B, as models/presets holds them).
# rope scaling (llama3 type) is left out: it changes inv_freq values, not the kernels that run.
PRESETS = {
    "llama-3.2-1b": dict(vocab_size=128256, hidden_size=2048, intermediate_size=8192, num_hidden_layers=16,
                         num_attention_heads=32, num_key_value_heads=8, head_dim=64, max_position_embeddings=131072,
                         rms_norm_eps=1e-5, rope_theta=500000.0, tie_word_embeddings=True),
    "llama-3-8b": dict(vocab_size=128256, hidden_size=4096, intermediate_size=14336, num_hidden_layers=32,
                       num_attention_heads=32, num_key_value_heads=8, head_dim=128, max_position_embeddings=8192,
                       rms_norm_eps=1e-5, rope_theta=500000.0, tie_word_embeddings=False),
    "llama-3-70b": dict(vocab_size=128256, hidden_size=8192, intermediate_size=28672, num_hidden_layers=80,
                        num_attention_heads=64, num_key_value_heads=8, head_dim=128, max_position_embeddings=8192,
                        rms_norm_eps=1e-5, rope_theta=500000.0, tie_word_embeddings=False),
}


def e2e_args(description):
    p = loom_torch.common_args(description)
    p.add_argument("--model", default="llama-3.2-1b", choices=sorted(PRESETS))
    p.add_argument("--steps", type=int, default=0, help="decode steps per case (default: --reps)")
    return p


def build_model(name):
    """Returns (model, config, config_json) on the GPU in bf16 with random weights."""
    import transformers
    from transformers import LlamaConfig, LlamaForCausalLM

    cfg = LlamaConfig(**PRESETS[name])
    try:
        cfg._attn_implementation = "sdpa"
    except Exception:  # noqa: BLE001 - read-only in some versions; sdpa is the default anyway
        pass
    old = torch.get_default_dtype()
    torch.set_default_dtype(torch.bfloat16)
    try:
        with torch.device("cuda"):
            model = LlamaForCausalLM(cfg)
    finally:
        torch.set_default_dtype(old)
    model = model.to(device="cuda", dtype=torch.bfloat16).eval()
    meta = {"model": name, "transformers": transformers.__version__,
            "attn_implementation": str(getattr(model.config, "_attn_implementation", "?")),
            "model_config": dict(PRESETS[name], dtype="bf16", architecture="LlamaForCausalLM")}
    return model, cfg, meta


def timed_rep(phase, fn):
    """One repetition: loom.rep > loom.phase=<phase> ranges around fn(), synchronised before the pops.
    Returns (event time in us, fn's result)."""
    nvtx = torch.cuda.nvtx
    loom_torch.sync()
    timer = loom_torch.RepTimer(True)
    nvtx.range_push("loom.rep")
    nvtx.range_push("loom.phase=%s" % phase)
    timer.start()
    result = fn()
    us = timer.stop_us()  # synchronises before the pops
    nvtx.range_pop()
    nvtx.range_pop()
    return us, result


def rotate_half(x):
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


class ManualDecoder:
    """The HF model's decode step rewritten with a static KV cache and device-side position, so that it can be
    captured as a CUDA graph whatever the transformers version does. Uses the HF model's own weights."""

    def __init__(self, model, batch, max_len):
        cfg = model.config
        self.m = model
        self.batch, self.max_len = batch, max_len
        self.heads, self.kv_heads = cfg.num_attention_heads, cfg.num_key_value_heads
        self.head_dim = getattr(cfg, "head_dim", None) or cfg.hidden_size // cfg.num_attention_heads
        self.hidden, self.eps = cfg.hidden_size, cfg.rms_norm_eps
        shape = (batch, self.kv_heads, max_len, self.head_dim)
        n = cfg.num_hidden_layers
        # Random cache contents: decode time does not depend on the values, only on max_len and the mask.
        self.k = [torch.randn(shape, device="cuda", dtype=torch.bfloat16) for _ in range(n)]
        self.v = [torch.randn(shape, device="cuda", dtype=torch.bfloat16) for _ in range(n)]
        rope = getattr(cfg, "rope_parameters", None) or {}
        theta = float(getattr(cfg, "rope_theta", None) or rope.get("rope_theta", 500000.0))
        inv = 1.0 / (theta ** (torch.arange(0, self.head_dim, 2, device="cuda", dtype=torch.float32) / self.head_dim))
        freqs = torch.outer(torch.arange(max_len, device="cuda", dtype=torch.float32), inv)
        emb = torch.cat((freqs, freqs), dim=-1)
        self.cos, self.sin = emb.cos().to(torch.bfloat16), emb.sin().to(torch.bfloat16)
        self.positions = torch.arange(max_len, device="cuda")

    @torch.no_grad()
    def step(self, ids, pos):
        """ids [batch,1] int64, pos [1] int64 (device): one decode step; returns next ids [batch,1]."""
        F = torch.nn.functional
        b, base = self.batch, self.m.model
        h = base.embed_tokens(ids)
        cos = self.cos.index_select(0, pos)[None, None]
        sin = self.sin.index_select(0, pos)[None, None]
        mask = (self.positions <= pos)[None, None, None, :]
        for i, layer in enumerate(base.layers):
            att = layer.self_attn
            x = F.rms_norm(h, (self.hidden,), layer.input_layernorm.weight, self.eps)
            q = att.q_proj(x).view(b, 1, self.heads, self.head_dim).transpose(1, 2)
            k = att.k_proj(x).view(b, 1, self.kv_heads, self.head_dim).transpose(1, 2)
            v = att.v_proj(x).view(b, 1, self.kv_heads, self.head_dim).transpose(1, 2)
            q = q * cos + rotate_half(q) * sin
            k = k * cos + rotate_half(k) * sin
            self.k[i].index_copy_(2, pos, k)
            self.v[i].index_copy_(2, pos, v)
            a = F.scaled_dot_product_attention(q, self.k[i], self.v[i], attn_mask=mask, enable_gqa=True)
            h = h + att.o_proj(a.transpose(1, 2).reshape(b, 1, self.heads * self.head_dim))
            x = F.rms_norm(h, (self.hidden,), layer.post_attention_layernorm.weight, self.eps)
            mlp = layer.mlp
            h = h + mlp.down_proj(F.silu(mlp.gate_proj(x)) * mlp.up_proj(x))
        h = F.rms_norm(h, (self.hidden,), base.norm.weight, self.eps)
        return self.m.lm_head(h[:, -1]).argmax(-1, keepdim=True)

