"""Host cost of HF transformers' eager steps, measured where GPU time cannot hide it (issue 12, item 6): the
hf_eager.py model (Llama, sdpa, DynamicCache, last-token logits) with every dimension shrunk (hidden 64) so each
kernel takes a few microseconds, at 8, 16 and 32 layers. A step's wall time is then the Python + dispatcher + launch
time of its launches; divided by the kernels it launches (counted with the torch profiler) it gives the per-launch
host cost that loom's hf profiles use (`host_overhead_us`, on top of the GPU's `launch_overhead`). The model
dimensions differ from the validated runs in traces/e2e (llama-3.2-1b), which are not used here.

  python3 scripts/torch/e2e/hf_host.py --out DIR
"""

import argparse
import json
import os
import statistics
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(1, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # scripts/torch: loom_torch
import hf_eager  # noqa: E402  (its forward(): logits_to_keep=1, as the traced runs)
from loom_torch import kernels_of  # noqa: E402

TINY = dict(vocab_size=1024, hidden_size=64, intermediate_size=128, num_attention_heads=2, num_key_value_heads=1,
            head_dim=32, max_position_embeddings=4096, rms_norm_eps=1e-5, rope_theta=500000.0,
            tie_word_embeddings=True)


def build(layers):
    from transformers import LlamaConfig, LlamaForCausalLM
    cfg = LlamaConfig(num_hidden_layers=layers, **TINY)
    try:
        cfg._attn_implementation = "sdpa"
    except Exception:  # noqa: BLE001
        pass
    with torch.device("cuda"):
        m = LlamaForCausalLM(cfg).to(dtype=torch.bfloat16).eval()
    return m


@torch.no_grad()
def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", required=True)
    p.add_argument("--steps", type=int, default=40)
    p.add_argument("--tag", default="", help="suffix of the output file (e.g. 'cupti' for a run under the collector)")
    a = p.parse_args()
    os.makedirs(a.out, exist_ok=True)
    rows = []
    # Warm-up (lazy CUDA/cuBLAS/Python initialisation made the first model's steps 5x slower in a first run).
    w = build(4)
    ids = torch.randint(0, TINY["vocab_size"], (1, 64), device="cuda")
    for _ in range(20):
        hf_eager.forward(w, ids)
    torch.cuda.synchronize()
    del w
    for layers in (8, 16, 32):
        m = build(layers)
        for batch, seq in ((1, 128), (8, 128), (1, 512)):
            ids = torch.randint(0, TINY["vocab_size"], (batch, seq), device="cuda")
            for _ in range(3):
                hf_eager.forward(m, ids)
            torch.cuda.synchronize()
            pre = []
            for _ in range(10):
                t = time.perf_counter()
                hf_eager.forward(m, ids)
                torch.cuda.synchronize()
                pre.append((time.perf_counter() - t) * 1e6)
            k_pre = kernels_of(lambda: hf_eager.forward(m, ids))
            out = hf_eager.forward(m, ids)
            cache, nxt = out.past_key_values, out.logits[:, -1:].argmax(-1)

            def step():
                return hf_eager.forward(m, nxt, cache).logits[:, -1:].argmax(-1)
            for _ in range(5):
                nxt = step()
            torch.cuda.synchronize()
            dec = []
            for _ in range(a.steps):
                t = time.perf_counter()
                nxt = step()
                torch.cuda.synchronize()
                dec.append((time.perf_counter() - t) * 1e6)
            k_dec = kernels_of(step)
            r = {"layers": layers, "batch": batch, "seq": seq, "prefill_wall_us": statistics.median(pre),
                 "prefill_kernels": k_pre, "decode_wall_us": statistics.median(dec), "decode_kernels": k_dec}
            r["prefill_us_per_kernel"] = r["prefill_wall_us"] / k_pre if k_pre else None
            r["decode_us_per_kernel"] = r["decode_wall_us"] / k_dec if k_dec else None
            rows.append(r)
            print("layers %2d batch %d seq %4d: prefill %7.0f us (%4d kernels); decode %7.0f us (%4d kernels)"
                  % (layers, batch, seq, r["prefill_wall_us"], k_pre, r["decode_wall_us"], k_dec), flush=True)
        del m
    import transformers
    meta = {"gpu": torch.cuda.get_device_name(0), "torch": torch.__version__, "transformers": transformers.__version__,
            "cpu": open("/proc/cpuinfo").read().split("model name")[1].split("\n")[0].strip(": \t"),
            "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    meta["collector"] = bool(os.environ.get("CUDA_INJECTION64_PATH"))
    with open(os.path.join(a.out, "hf_host%s.json" % ("-" + a.tag if a.tag else "")), "w") as f:
        json.dump({"meta": meta, "tiny_config": TINY, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
