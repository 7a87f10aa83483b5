"""Tensor-parallel end-to-end steps (issue 11/13: loom's TP > 1 predictions had never met a measurement): the
hf_eager.py model sharded Megatron-style over every GPU of the node, one process a GPU (torchrun), as vLLM/SGLang
shard a Llama: q/k/v/gate/up column-parallel, o/down row-parallel with an NCCL all_reduce after each, the
embedding vocab-parallel (masked lookup + all_reduce), lm_head vocab-parallel with an all_gather of the logits.
Random bf16 weights, nothing downloaded.

  torchrun --nproc_per_node 2 scripts/torch/e2e/tp_e2e.py --out DIR/tp2 [--model llama-3-8b] [--quick]

Rank 0 writes DIR/tp2.cases.csv with, per shape, `e2e_prefill ... mode=eager tp=N` (HF forward, fresh cache per
rep), `e2e_decode ... mode=eager tp=N` (HF forward with its dynamic cache) and `e2e_decode ... mode=cuda_graph tp=N`
(llama_model.ManualDecoder captured as a CUDA graph, static cache). Under the collector each rank traces to
LOOM_TRACE_OUT with `.rank<r>` before `.lct`; rank 0's trace goes with the case list (`loom validate --e2e`).
With --host-probe N every timed eager rep is followed on every rank by N `loom.host_probe` ranges (hf_eager.py's
probe), so the eager steps can be priced at the host speed measured beside them.
"""

import json
import os
import statistics
import sys
import time

if "LOOM_TRACE_OUT" in os.environ and "LOCAL_RANK" in os.environ:  # before CUDA starts: one trace per rank
    base = os.environ["LOOM_TRACE_OUT"]
    os.environ["LOOM_TRACE_OUT"] = base[:-4] + ".rank%s.lct" % os.environ["LOCAL_RANK"] if base.endswith(".lct") \
        else base + ".rank" + os.environ["LOCAL_RANK"]

import torch
import torch.distributed as dist

import graph_decode
import hf_eager
import llama_model
import loom_torch
from host_cost import nvtx_host_probe

EAGER = [(1, 512), (1, 2048), (8, 512), (32, 256)]
QUICK = [(1, 512)]


class VocabParallelEmbedding(torch.nn.Module):
    """The rank's vocabulary slice: ids outside it look up row 0 and are zeroed, then the ranks' rows are summed."""

    def __init__(self, emb, lo, hi):
        super().__init__()
        self.emb, self.lo, self.hi = emb, lo, hi
        self.weight = emb.weight

    def forward(self, ids):
        outside = (ids < self.lo) | (ids >= self.hi)
        local = (ids - self.lo).masked_fill(outside, 0)
        e = self.emb(local).masked_fill(outside.unsqueeze(-1), 0)
        dist.all_reduce(e)
        return e


def all_reduce_output(_mod, _inp, out):
    dist.all_reduce(out)
    return out


def gather_logits(_mod, _inp, out):
    world = dist.get_world_size()
    g = torch.empty((world,) + tuple(out.shape), dtype=out.dtype, device=out.device)
    dist.all_gather_into_tensor(g, out.contiguous())
    return torch.movedim(g, 0, -2).reshape(*out.shape[:-1], world * out.shape[-1])


def build_tp_model(name, rank, world):
    """hf_eager.py's model with every sharded dimension divided by `world`, plus the TP communication."""
    full = dict(llama_model.PRESETS[name])
    for k in ("num_attention_heads", "num_key_value_heads", "intermediate_size"):
        if full[k] % world:
            raise SystemExit("%s=%d does not divide by %d GPUs" % (k, full[k], world))
    shard = dict(full, num_attention_heads=full["num_attention_heads"] // world,
                 num_key_value_heads=full["num_key_value_heads"] // world,
                 intermediate_size=full["intermediate_size"] // world,
                 vocab_size=-(-full["vocab_size"] // world), tie_word_embeddings=False)
    llama_model.PRESETS[name + "@tp"] = shard
    model, cfg, meta = llama_model.build_model(name + "@tp")
    base = model.model
    lo = rank * shard["vocab_size"]
    base.embed_tokens = VocabParallelEmbedding(base.embed_tokens, lo, lo + shard["vocab_size"])
    for layer in base.layers:
        layer.self_attn.o_proj.register_forward_hook(all_reduce_output)
        layer.mlp.down_proj.register_forward_hook(all_reduce_output)
    model.lm_head.register_forward_hook(gather_logits)
    meta.update({"model": name, "model_config": dict(full, dtype="bf16", architecture="LlamaForCausalLM"),
                 "tp": world, "tp_shard_config": json.dumps(shard)})
    return model, cfg, meta, full["vocab_size"]


@torch.no_grad()
def main():
    p = llama_model.e2e_args(__doc__)
    p.set_defaults(model="llama-3-8b")
    p.add_argument("--shapes", default="", help="batch x length list, e.g. 1x4096,64x2048 (default: %s)"
                   % ",".join("%dx%d" % s for s in EAGER))
    p.add_argument("--host-probe", type=int, default=0, metavar="N",
                   help="after each timed eager rep, N loom.host_probe ranges on every rank (host_cost.py's tiny "
                   "forward), as hf_eager.py: `loom validate --e2e` prices the eager step at the measured host speed")
    args = p.parse_args()
    if args.host_probe < 0:
        p.error("--host-probe: %d is not a count >= 0" % args.host_probe)
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    local = int(os.environ.get("LOCAL_RANK", rank))
    torch.cuda.set_device(local)
    dist.init_process_group("nccl", device_id=torch.device("cuda", local))
    t0 = time.time()
    model, cfg, meta, vocab = build_tp_model(args.model, rank, world)
    shapes = QUICK if args.quick else EAGER
    if args.shapes:
        try:
            shapes = [tuple(int(v) for v in s.split("x")) for s in args.shapes.split(",")]
        except ValueError:
            p.error("--shapes: '%s' is not a list of BATCHxLENGTH" % args.shapes)
        if any(len(s) != 2 or min(s) < 1 for s in shapes):
            p.error("--shapes: '%s' is not a list of BATCHxLENGTH" % args.shapes)
    steps = args.steps or args.reps
    extra = steps + args.warmup + 16
    meta.update({"mode": "eager+cuda_graph", "batch_seq": json.dumps(shapes), "decode_steps": steps,
                 "prefill_reps": args.reps, "max_cache_len_extra": extra, "decode_impl": "manual_static_kv",
                 "families": "e2e_prefill,e2e_decode"})
    host_probe = nvtx_host_probe(args.host_probe) or (lambda: None)  # local to this rank: no collective inside
    if args.host_probe > 0:
        meta["host_probe"] = ("%d loom.host_probe ranges after each timed eager prefill and decode rep on every rank: "
                              "one synchronised forward of scripts/torch/host_cost.py's tiny eager model each"
                              % args.host_probe)
    out_prefix = args.out if rank == 0 else args.out + ".rank%d" % rank
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    cases = loom_torch.CaseList(out_prefix, "scripts/torch/e2e/tp_e2e.py", sms, meta)
    nvtx = torch.cuda.nvtx
    gen = torch.Generator(device="cuda").manual_seed(1234)  # the same ids on every rank
    tag = "tp=%d" % world
    for batch, seq in shapes:
        if time.time() - t0 > args.max_seconds:
            print("time budget reached; skipping the remaining shapes", flush=True)
            break
        ids = torch.randint(0, vocab, (batch, seq), device="cuda", generator=gen)
        cid = cases.new_id()
        nvtx.range_push("loom.case=%d" % cid)
        for _ in range(max(1, args.warmup)):
            hf_eager.forward(model, ids)
        pre = []
        for _ in range(args.reps):
            pre.append(llama_model.timed_rep("prefill", lambda: hf_eager.forward(model, ids))[0])
            host_probe()
        nvtx.range_pop()
        cases.add(cid, "e2e_prefill", "e2e_prefill model=%s batch=%d seq=%d dtype=bf16 mode=eager %s"
                  % (args.model, batch, seq, tag), "torch_hf_tp", pre)
        # Eager decode over HF's dynamic cache.
        cid = cases.new_id()
        nvtx.range_push("loom.case=%d" % cid)
        out = hf_eager.forward(model, ids)
        cache, nxt = out.past_key_values, out.logits[:, -1:].argmax(-1)
        dec = []
        for i in range(args.warmup + steps):
            def step():
                return hf_eager.forward(model, nxt, cache).logits[:, -1:].argmax(-1)
            if i < args.warmup:
                nxt = step()
            else:
                us, nxt = llama_model.timed_rep("decode", step)
                dec.append(us)
                host_probe()
        nvtx.range_pop()
        cases.add(cid, "e2e_decode", "e2e_decode model=%s batch=%d context=%d dtype=bf16 mode=eager %s"
                  % (args.model, batch, seq, tag), "torch_hf_tp", dec)
        del cache, out
        # CUDA-graph decode (static cache), as graph_decode.py's ManualDecoder.
        step, state = graph_decode.manual_step(model, cfg, batch, seq, seq + extra)
        graph, gout = graph_decode.capture(step, state, args.warmup)
        cid = cases.new_id()
        nvtx.range_push("loom.case=%d" % cid)
        gt = []
        for i in range(args.warmup + steps):
            if i < args.warmup:
                graph.replay()
            else:
                gt.append(llama_model.timed_rep("decode", graph.replay)[0])
            state["ids"].copy_(gout)
            state["pos"].add_(1)
        nvtx.range_pop()
        cases.add(cid, "e2e_decode", "e2e_decode model=%s batch=%d context=%d dtype=bf16 mode=cuda_graph %s"
                  % (args.model, batch, seq, tag), "torch_manual_graph_tp", gt)
        del graph, gout, step, state
        if rank == 0:
            print("  batch=%d seq=%d: prefill %.0f us, eager decode %.0f us, graph decode %.0f us (event medians), "
                  "%.1f s" % (batch, seq, statistics.median(pre), statistics.median(dec), statistics.median(gt),
                              time.time() - t0), flush=True)
    cases.close()
    if rank == 0:
        print("tp_e2e: %d cases written to %s, %.1f s" % (cases.rows, cases.path, time.time() - t0), flush=True)
    dist.barrier()
    dist.destroy_process_group()
    return 0 if cases.rows > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
