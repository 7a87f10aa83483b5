"""The decode step of hf_eager.py's model captured once as a CUDA graph (static KV cache) and replayed: each replay
is one repetition inside loom.case / loom.rep / loom.phase=decode ranges. Tests that the collector sees kernels
replayed from graphs (graph_node_id != 0) and gives loom graph-mode decode times.

  python3 scripts/torch/e2e/graph_decode.py --out traces/run/e2e_graph [--model llama-3.2-1b] [--quick]

First tries transformers' own forward with a StaticCache; if that cannot be captured (transformers versions
differ), it captures llama_model.ManualDecoder (same weights, same ops per layer, static cache + device-side
position). The metadata key `decode_impl` says which ran. Cases:
`e2e_decode model=M batch=B context=S dtype=bf16 mode=cuda_graph`.
"""

import json
import statistics
import sys
import time

import torch

import llama_model
import loom_torch

FULL = [(1, 512), (1, 2048), (8, 512), (32, 256), (64, 128)]
QUICK = [(1, 512), (8, 128)]


def hf_static_step(model, cfg, batch, context, max_len):
    """Returns (step_fn, state) for HF forward over a StaticCache, after a real prefill; raises if unsupported."""
    from transformers import StaticCache
    try:
        cache = StaticCache(config=cfg, max_batch_size=batch, max_cache_len=max_len, device="cuda",
                            dtype=torch.bfloat16)
    except TypeError:
        cache = StaticCache(config=cfg, max_cache_len=max_len)
    ids = torch.randint(0, cfg.vocab_size, (batch, context), device="cuda")
    out = model(input_ids=ids, past_key_values=cache, cache_position=torch.arange(context, device="cuda"),
                use_cache=True)
    state = {"ids": out.logits[:, -1:].argmax(-1), "pos": torch.tensor([context], device="cuda")}

    def step():
        o = model(input_ids=state["ids"], past_key_values=cache, cache_position=state["pos"],
                  position_ids=state["pos"].view(1, 1).expand(batch, 1), use_cache=True)
        return o.logits[:, -1:].argmax(-1)
    return step, state


def manual_step(model, cfg, batch, context, max_len):
    dec = llama_model.ManualDecoder(model, batch, max_len)
    state = {"ids": torch.randint(0, cfg.vocab_size, (batch, 1), device="cuda"),
             "pos": torch.tensor([context], device="cuda")}
    return (lambda: dec.step(state["ids"], state["pos"])), state


def capture(step, state, warmup):
    """Warm-up on a side stream (as torch.cuda.graphs requires), then capture one step. Returns (graph, out)."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(max(2, warmup)):
            step()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out = step()
    return graph, out


@torch.no_grad()
def main():
    p = llama_model.e2e_args(__doc__)
    p.add_argument("--impl", choices=["auto", "hf", "manual"], default="auto",
                   help="auto: HF StaticCache, falling back to ManualDecoder if capture fails")
    args = p.parse_args()
    t0 = time.time()
    torch.cuda.init()
    part = loom_torch.Partition(args.sms)
    model, cfg, meta = llama_model.build_model(args.model)
    shapes = QUICK if args.quick else FULL
    steps = args.steps or args.reps
    nvtx = torch.cuda.nvtx
    impls, rows = [], []
    use_hf = args.impl in ("auto", "hf")
    with part.active():
        for batch, context in shapes:
            if time.time() - t0 > args.max_seconds:
                print("time budget reached; skipping the remaining shapes", flush=True)
                break
            max_len = context + steps + args.warmup + 16
            impl = "hf_static_cache" if use_hf else "manual_static_kv"
            if use_hf:
                try:
                    step, state = hf_static_step(model, cfg, batch, context, max_len)
                    graph, out = capture(step, state, args.warmup)
                except Exception as exc:  # noqa: BLE001 - fall back to the capturable rewrite, from now on
                    reason = (str(exc).splitlines() or ["?"])[0][:160]
                    print("HF StaticCache capture failed (%s); using ManualDecoder" % reason, flush=True)
                    meta["hf_capture_error"] = reason
                    loom_torch.sync()
                    use_hf, impl = False, "manual_static_kv"
            if not use_hf:
                step, state = manual_step(model, cfg, batch, context, max_len)
                graph, out = capture(step, state, args.warmup)
            impls.append(impl)
            cid = len(rows) + 1
            nvtx.range_push("loom.case=%d" % cid)
            times = []
            for i in range(args.warmup + steps):
                if i < args.warmup:
                    graph.replay()
                else:
                    times.append(llama_model.timed_rep("decode", graph.replay)[0])
                state["ids"].copy_(out)  # feed the argmax back and advance the position, outside the rep
                state["pos"].add_(1)
            nvtx.range_pop()
            rows.append((cid, "e2e_decode", "e2e_decode model=%s batch=%d context=%d dtype=bf16 mode=cuda_graph"
                         % (args.model, batch, context), "torch_hf_graph" if impl == "hf_static_cache"
                         else "torch_manual_graph", times))
            print("  batch=%d context=%d: %s, graph decode step %.0f us (event median), %.1f s"
                  % (batch, context, impl, statistics.median(times), time.time() - t0), flush=True)
            del graph, out, step, state
    meta.update({"mode": "cuda_graph", "batch_seq": json.dumps(shapes), "decode_steps": steps,
                 "max_cache_len_extra": steps + args.warmup + 16,
                 "decode_impl": ",".join(sorted(set(impls))) or "none", "families": "e2e_decode"})
    cases = loom_torch.CaseList(args.out, "scripts/torch/e2e/graph_decode.py", part.sms, meta)
    for row in rows:
        cases.add(*row)
    cases.close()
    print("graph_decode: %d cases written to %s, %.1f s" % (cases.rows, cases.path, time.time() - t0), flush=True)
    return 0 if cases.rows > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
