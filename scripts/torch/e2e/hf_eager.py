"""End-to-end eager inference of a Llama-style HF transformers model (random bf16 weights from a preset config):
prefill, then decode steps, each one repetition inside loom.case / loom.rep / loom.phase=<prefill|decode> ranges.
Writes PREFIX.cases.csv whose metadata holds the model config, so a CPU-side predictor can replay the run.

  python3 scripts/torch/e2e/hf_eager.py --out traces/run/e2e_eager [--model llama-3.2-1b] [--quick]

With --host-probe N, every timed prefill and decode rep is followed (outside its loom.rep range, inside the case
range) by N `loom.host_probe` ranges, each one forward of scripts/torch/host_cost.py's tiny eager model, synchronised:
the range's length over the kernels it launched is the host's time a launch at that moment, the figure
`host.cpu_speed` is defined by (12.72 us on the reference host, without the collector). `loom validate --e2e` predicts
each eager step at that measured speed.

Cases: `e2e_prefill model=M batch=B seq=S dtype=bf16 mode=eager` (a rep = one prefill with a fresh cache) and
`e2e_decode model=M batch=B context=S dtype=bf16 mode=eager` (a rep = one decode step incl. greedy argmax;
step i attends to S+i tokens).
"""

import json
import statistics
import sys
import time

import torch

import llama_model
import loom_torch
from host_cost import nvtx_host_probe

FULL = [(1, 128), (1, 512), (1, 2048), (8, 512), (32, 256), (64, 128)]
QUICK = [(1, 512), (8, 128)]


def forward(model, ids, cache=None):
    kw = {"use_cache": True}
    if cache is not None:
        kw["past_key_values"] = cache
    try:
        return model(input_ids=ids, logits_to_keep=1, **kw)  # only the last position's logits, as serving does
    except TypeError:
        return model(input_ids=ids, **kw)


@torch.no_grad()
def main():
    parser = llama_model.e2e_args(__doc__)
    parser.add_argument("--host-probe", type=int, default=0, metavar="N",
                        help="after each timed rep, N loom.host_probe ranges (host_cost.py's tiny forward)")
    args = parser.parse_args()
    t0 = time.time()
    torch.cuda.init()
    part = loom_torch.Partition(args.sms)
    model, cfg, meta = llama_model.build_model(args.model)
    shapes = QUICK if args.quick else FULL
    steps = args.steps or args.reps
    meta.update({"mode": "eager", "batch_seq": json.dumps(shapes), "decode_steps": steps,
                 "prefill_reps": args.reps, "families": "e2e_prefill,e2e_decode"})
    host_probe = nvtx_host_probe(args.host_probe) or (lambda: None)
    if args.host_probe > 0:
        meta["host_probe"] = ("%d loom.host_probe ranges after each timed prefill and decode rep: one synchronised "
                              "forward of scripts/torch/host_cost.py's tiny eager model each" % args.host_probe)
    cases = loom_torch.CaseList(args.out, "scripts/torch/e2e/hf_eager.py", part.sms, meta)
    print("hf_eager: model built in %.1f s; %d shapes" % (time.time() - t0, len(shapes)), flush=True)
    nvtx = torch.cuda.nvtx
    vocab = cfg.vocab_size

    with part.active():
        for batch, seq in shapes:
            if time.time() - t0 > args.max_seconds:
                print("time budget reached; skipping the remaining shapes", flush=True)
                break
            ids = torch.randint(0, vocab, (batch, seq), device="cuda")
            # Prefill case: warm-up inside the case range, then one fresh prefill per rep.
            cid = cases.new_id()
            nvtx.range_push("loom.case=%d" % cid)
            for _ in range(max(1, args.warmup)):
                forward(model, ids)
            prefill_us = []
            for _ in range(args.reps):
                prefill_us.append(llama_model.timed_rep("prefill", lambda: forward(model, ids))[0])
                host_probe()
            nvtx.range_pop()
            cases.add(cid, "e2e_prefill", "e2e_prefill model=%s batch=%d seq=%d dtype=bf16 mode=eager"
                      % (args.model, batch, seq), "torch_hf", prefill_us)
            # Decode case: an untimed prefill builds the cache, warm-up steps, then one step per rep.
            cid = cases.new_id()
            nvtx.range_push("loom.case=%d" % cid)
            out = forward(model, ids)
            cache = out.past_key_values
            nxt = out.logits[:, -1:].argmax(-1)
            times = []
            for i in range(args.warmup + steps):
                def step():
                    o = forward(model, nxt, cache)
                    return o.logits[:, -1:].argmax(-1)
                if i < args.warmup:
                    nxt = step()
                else:
                    us, nxt = llama_model.timed_rep("decode", step)
                    times.append(us)
                    host_probe()
            nvtx.range_pop()
            cases.add(cid, "e2e_decode", "e2e_decode model=%s batch=%d context=%d dtype=bf16 mode=eager"
                      % (args.model, batch, seq), "torch_hf", times)
            print("  batch=%d seq=%d: prefill %.0f us, decode step %.0f us (event medians), %.1f s"
                  % (batch, seq, statistics.median(prefill_us), statistics.median(times), time.time() - t0), flush=True)
            del cache, out
    cases.close()
    print("hf_eager: %d cases written to %s, %.1f s" % (cases.rows, cases.path, time.time() - t0), flush=True)
    return 0 if cases.rows > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
