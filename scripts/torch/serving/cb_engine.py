"""A continuous-batching LLM engine in plain PyTorch + Triton, to check `loom simulate` against a real serving loop.

Llama-architecture model from a loom preset (random bf16 weights; timing does not depend on values), the serving
engines' kernels (scripts/torch/serving_kernels.py: fused rotary, silu_and_mul, fused_add_rms_norm; paged decode
attention, scripts/torch/paged_decode.py; cuBLAS GEMMs; FlashAttention prefill through SDPA), a paged KV cache of
16-token blocks, vLLM V1's "mixed" schedule without chunking (running decodes first, then whole waiting prompts
while the token budget and max_num_seqs allow), CUDA-graph decode for batch sizes up to 128 (padded), greedy
sampling synchronised each step. Requests arrive at their file times (wall clock from the engine's start).
The matching loom profile: models/profiles/loom-cb.yaml.

  python3 scripts/torch/serving/cb_engine.py --model models/presets/llama-3-8b.json --requests R.csv --out DIR

Writes DIR/requests.csv (the input), DIR/per_request.csv (arrival_s, first_token_s, finish_s per request; times
from the engine's start) and DIR/iterations.csv (start/end wall time, GPU time by CUDA events, batch composition).
"""

import argparse
import csv
import json
import math
import os
import shutil
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F
import triton
from torch.nn.attention import SDPBackend, sdpa_kernel

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import serving_kernels as sk  # noqa: E402
import paged_decode as pd  # noqa: E402

BS = 16
GRAPH_SIZES = [1, 2, 4] + list(range(8, 129, 8))


_GQA_OK = [True]


def prefill_attention(q, k, v):
    """Causal FlashAttention over one prompt (GQA natively where SDPA's flash path takes it, else K/V repeated)."""
    if _GQA_OK[0]:
        try:
            with sdpa_kernel([SDPBackend.FLASH_ATTENTION]):
                return F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
        except RuntimeError as e:
            print(f"cb_engine: flash+GQA unavailable ({str(e)[:80]}); repeating K/V", flush=True)
            _GQA_OK[0] = False
    g = q.shape[1] // k.shape[1]
    with sdpa_kernel([SDPBackend.FLASH_ATTENTION]):
        return F.scaled_dot_product_attention(q, k.repeat_interleave(g, 1), v.repeat_interleave(g, 1), is_causal=True)


class Model:
    def __init__(self, cfg, kv_blocks):
        self.H = cfg["hidden_size"]
        self.L = cfg["num_hidden_layers"]
        self.hq = cfg["num_attention_heads"]
        self.hk = cfg["num_key_value_heads"]
        self.hd = cfg.get("head_dim", self.H // self.hq)
        self.I = cfg["intermediate_size"]
        self.V = cfg["vocab_size"]
        dev, bf = "cuda", torch.bfloat16
        r = lambda *s: (torch.randn(*s, device=dev, dtype=bf) * 0.02)
        self.embed = r(self.V, self.H)
        self.layers = []
        for _ in range(self.L):
            self.layers.append(dict(
                ln1=torch.ones(self.H, device=dev, dtype=bf), ln2=torch.ones(self.H, device=dev, dtype=bf),
                qkv=r((self.hq + 2 * self.hk) * self.hd, self.H), o=r(self.H, self.hq * self.hd),
                gu=r(2 * self.I, self.H), down=r(self.H, self.I)))
        self.norm = torch.ones(self.H, device=dev, dtype=bf)
        self.lm_head = r(self.V, self.H)
        self.k_cache = [torch.zeros(kv_blocks, BS, self.hk, self.hd, device=dev, dtype=bf) for _ in range(self.L)]
        self.v_cache = [torch.zeros(kv_blocks, BS, self.hk, self.hd, device=dev, dtype=bf) for _ in range(self.L)]
        pos = torch.arange(65536, device=dev, dtype=torch.float32)[:, None]
        inv = 1.0 / (500000.0 ** (torch.arange(0, self.hd, 2, device=dev, dtype=torch.float32) / self.hd))
        ang = pos * inv[None, :]
        self.cos_sin = torch.cat([ang.cos(), ang.sin()], dim=1).to(bf).contiguous()

    def forward(self, ids, pos, slots, n_dec, bt, lens, prefills, last_rows):
        """ids/pos/slots: [T] (decode tokens first); bt/lens: block tables and keys of the n_dec decodes;
        prefills: (row0, n) per whole-prompt prefill; last_rows: rows whose logits are sampled."""
        x = F.embedding(ids, self.embed)
        res = None
        T = ids.shape[0]
        for li, w in enumerate(self.layers):
            if res is None:
                res = x
                h = F.rms_norm(x, (self.H,), w["ln1"], 1e-5)
            else:
                h = x
                sk.fused_add_rms_norm(h, res, w["ln1"], 1e-5)
            qkv = F.linear(h, w["qkv"])
            q = qkv[:, : self.hq * self.hd].view(T, self.hq, self.hd)
            k = qkv[:, self.hq * self.hd: (self.hq + self.hk) * self.hd].view(T, self.hk, self.hd)
            v = qkv[:, (self.hq + self.hk) * self.hd:].view(T, self.hk, self.hd)
            sk.rotary(pos, q, k, self.cos_sin)
            kc, vc = self.k_cache[li].view(-1, self.hk, self.hd), self.v_cache[li].view(-1, self.hk, self.hd)
            kc.index_copy_(0, slots, k)
            vc.index_copy_(0, slots, v)
            attn = torch.empty(T, self.hq, self.hd, device="cuda", dtype=torch.bfloat16)
            if n_dec > 0:
                g = self.hq // self.hk
                qd = q[:n_dec].contiguous()  # the kernel reads [B, HQ, D] rows
                pd._paged_decode[(n_dec, self.hk)](qd, self.k_cache[li], self.v_cache[li], bt, lens, attn,
                                                   self.hd ** -0.5, bt.shape[1], HQ=self.hq, HK=self.hk, G=g,
                                                   GP=max(16, triton.next_power_of_2(g)), D=self.hd, BS=BS)
            for row0, n in prefills:
                qs = q[row0:row0 + n].transpose(0, 1).unsqueeze(0)
                ks = k[row0:row0 + n].transpose(0, 1).unsqueeze(0)
                vs = v[row0:row0 + n].transpose(0, 1).unsqueeze(0)
                o = prefill_attention(qs, ks, vs)
                attn[row0:row0 + n] = o[0].transpose(0, 1)
            x = F.linear(attn.view(T, self.hq * self.hd), w["o"])
            sk.fused_add_rms_norm(x, res, w["ln2"], 1e-5)
            gu = F.linear(x, w["gu"])
            act = torch.empty(T, self.I, device="cuda", dtype=torch.bfloat16)
            sk.silu_and_mul(gu, act)
            x = F.linear(act, w["down"])
        sk.fused_add_rms_norm(x, res, self.norm, 1e-5)
        logits = F.linear(x.index_select(0, last_rows), self.lm_head)
        return logits.argmax(dim=-1)


class Graphs:
    """CUDA graphs of the decode step per padded batch size, over static input buffers."""

    def __init__(self, model, max_blocks):
        self.m, self.max_blocks, self.g = model, max_blocks, {}
        dev = "cuda"
        n = GRAPH_SIZES[-1]
        self.ids = torch.zeros(n, dtype=torch.long, device=dev)
        self.pos = torch.zeros(n, dtype=torch.long, device=dev)
        self.slots = torch.zeros(n, dtype=torch.long, device=dev)
        self.bt = torch.zeros(n, max_blocks, dtype=torch.int32, device=dev)
        self.lens = torch.ones(n, dtype=torch.int32, device=dev)
        self.rows = torch.arange(n, dtype=torch.long, device=dev)
        self.out = {}
        pool = None
        for b in reversed(GRAPH_SIZES):
            args = (self.ids[:b], self.pos[:b], self.slots[:b], b, self.bt[:b], self.lens[:b], [], self.rows[:b])
            for _ in range(2):
                model.forward(*args)
            torch.cuda.synchronize()
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph, pool=pool):
                self.out[b] = model.forward(*args)
            pool = graph.pool()
            self.g[b] = graph

    def run(self, ids, pos, slots, bt, lens):
        n = ids.shape[0]
        b = next(s for s in GRAPH_SIZES if s >= n)
        self.ids[:n].copy_(ids)
        self.pos[:n].copy_(pos)
        self.slots[:n].copy_(slots)
        self.bt[:n, : bt.shape[1]].copy_(bt)
        self.lens[:n].copy_(lens)
        if b > n:  # padded rows: one key in block 0 (slot 0 is a scratch slot no request owns)
            self.slots[n:b].zero_()
            self.lens[n:b].fill_(1)
            self.bt[n:b].zero_()
        self.g[b].replay()
        return self.out[b][:n], b


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", required=True)
    ap.add_argument("--requests", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--kv-blocks", type=int, default=8192)
    ap.add_argument("--max-num-seqs", type=int, default=128)
    ap.add_argument("--max-batched-tokens", type=int, default=8192)
    ap.add_argument("--max-seconds", type=float, default=120)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    shutil.copy(a.requests, os.path.join(a.out, "requests.csv"))
    cfg = json.load(open(a.model))
    reqs = []
    with open(a.requests) as f:
        for row in csv.DictReader(f):
            reqs.append(dict(arrival=float(row["arrival_s"]), prompt=int(row["prompt_tokens"]),
                             output=int(row["output_tokens"]), id=len(reqs)))
    reqs.sort(key=lambda r: r["arrival"])
    torch.manual_seed(0)
    m = Model(cfg, a.kv_blocks)
    max_blocks = max(-(-(r["prompt"] + r["output"]) // BS) for r in reqs)
    t0 = time.perf_counter()
    graphs = Graphs(m, max_blocks)
    # Warm the eager path (cuBLAS heuristics, Triton JIT, SDPA) with a throwaway prompt written to the scratch page.
    for n in (512, 1024):
        z = torch.zeros(n, dtype=torch.long, device="cuda")
        m.forward(z, torch.arange(n, device="cuda"), z, 0, torch.zeros(0, 1, dtype=torch.int32, device="cuda"),
                  torch.zeros(0, dtype=torch.int32, device="cuda"), [(0, n)],
                  torch.tensor([n - 1], device="cuda"))
    torch.cuda.synchronize()
    print(f"cb_engine: model ready, graphs captured and eager path warm in {time.perf_counter() - t0:.1f}s", flush=True)
    free = list(range(a.kv_blocks - 1, 0, -1))  # block 0: the padded rows' scratch
    waiting, running, done = [], [], []
    its = []
    nxt = 0
    ev_s, ev_e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start = time.perf_counter()
    now = lambda: time.perf_counter() - start
    while len(done) < len(reqs):
        if now() > a.max_seconds:
            print("cb_engine: time budget reached", flush=True)
            break
        while nxt < len(reqs) and reqs[nxt]["arrival"] <= now():
            r = reqs[nxt]
            r.update(kv=0, gen=0, blocks=[], tok=1, first=None, finish=None)
            waiting.append(r)
            nxt += 1
        # Schedule: running decodes (one token each), then whole waiting prompts within the budgets.
        dec = []
        for r in running:
            need = -(-(r["kv"] + 1) // BS)
            if need > len(r["blocks"]):
                if not free:
                    raise SystemExit("cb_engine: KV cache full (use fewer/longer-spaced requests or more --kv-blocks)")
                r["blocks"].append(free.pop())
            dec.append(r)
        budget = a.max_batched_tokens - len(dec)
        pre = []
        while waiting and len(running) + len(pre) < a.max_num_seqs and waiting[0]["prompt"] <= budget:
            r = waiting[0]
            need = -(-r["prompt"] // BS)
            if need > len(free):
                break
            r["blocks"] = [free.pop() for _ in range(need)]
            pre.append(waiting.pop(0))
            budget -= r["prompt"]
        if not dec and not pre:
            if nxt < len(reqs):
                time.sleep(max(0.0, min(0.002, reqs[nxt]["arrival"] - now())))
            continue
        # Inputs: decode tokens first, then each prompt (numpy: host work stays small).
        ids = [np.array([r["tok"] for r in dec], dtype=np.int64)]
        pos = [np.array([r["kv"] for r in dec], dtype=np.int64)]
        slots = [np.array([r["blocks"][r["kv"] // BS] * BS + r["kv"] % BS for r in dec], dtype=np.int64)]
        prefills, last, row = [], list(range(len(dec))), len(dec)
        for r in pre:
            n = r["prompt"]
            p = np.arange(n, dtype=np.int64)
            ids.append((r["id"] * 7919 + p) % m.V)
            pos.append(p)
            slots.append(np.repeat(np.array(r["blocks"], dtype=np.int64) * BS, BS)[:n] + p % BS)
            prefills.append((row, n))
            last.append(row + n - 1)
            row += n
        ids, pos, slots = np.concatenate(ids), np.concatenate(pos), np.concatenate(slots)
        dev = "cuda"
        t_s = now()
        ev_s.record()
        ids_t = torch.from_numpy(ids).to(dev)
        pos_t = torch.from_numpy(pos).to(dev)
        slots_t = torch.from_numpy(slots).to(dev)
        graph_b = 0
        if dec:
            nb = max(len(r["blocks"]) for r in dec)
            bt = torch.tensor([r["blocks"] + [0] * (nb - len(r["blocks"])) for r in dec], dtype=torch.int32, device=dev)
            lens = torch.tensor([r["kv"] + 1 for r in dec], dtype=torch.int32, device=dev)
        else:
            bt = torch.zeros(0, 1, dtype=torch.int32, device=dev)
            lens = torch.zeros(0, dtype=torch.int32, device=dev)
        if not pre and len(dec) <= GRAPH_SIZES[-1]:
            toks, graph_b = graphs.run(ids_t, pos_t, slots_t, bt, lens)
        else:
            toks = m.forward(ids_t, pos_t, slots_t, len(dec), bt, lens, prefills,
                             torch.tensor(last, dtype=torch.long, device=dev))
        ev_e.record()
        toks = toks.tolist()  # the step's synchronisation, as an engine samples
        t_e = now()
        gpu_ms = ev_s.elapsed_time(ev_e)
        its.append(dict(start_s=t_s, end_s=t_e, gpu_ms=gpu_ms, decodes=len(dec), prefills=len(pre),
                        decode_kv=sum(r["kv"] + 1 for r in dec),
                        decode_kv_max=max([r["kv"] + 1 for r in dec], default=0),
                        prefill_tokens=sum(r["prompt"] for r in pre),
                        prefill_pairs=sum(r["prompt"] * (r["prompt"] + 1) // 2 for r in pre),
                        graph_batch=graph_b))
        for i, (r, t) in enumerate(zip(dec + pre, toks)):
            if i >= len(dec):  # a prompt's prefill samples its first token
                r["kv"] = r["prompt"]
                r["first"] = t_e
                running.append(r)
            else:
                r["kv"] += 1
            r["gen"] += 1
            r["tok"] = int(t)
            if r["gen"] >= r["output"]:
                r["finish"] = t_e
                running.remove(r)
                free.extend(r["blocks"])
                done.append(r)
    with open(os.path.join(a.out, "per_request.csv"), "w") as f:
        f.write("id,arrival_s,prompt_tokens,output_tokens,first_token_s,finish_s\n")
        for r in sorted(done, key=lambda r: r["id"]):
            f.write(f"{r['id']},{r['arrival']:.6f},{r['prompt']},{r['output']},{r['first']:.6f},{r['finish']:.6f}\n")
    with open(os.path.join(a.out, "iterations.csv"), "w") as f:
        keys = list(its[0].keys())
        f.write(",".join(keys) + "\n")
        for it in its:
            f.write(",".join(f"{it[k]:.6f}" if isinstance(it[k], float) else str(it[k]) for k in keys) + "\n")
    print(f"cb_engine: {len(done)}/{len(reqs)} requests, {len(its)} iterations, {now():.1f}s", flush=True)


if __name__ == "__main__":
    main()
