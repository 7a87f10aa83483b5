"""How an HF eager decode step's host time follows the host's speed (issue 12): the lent hosts switch between speeds
within minutes, and the HF step does not slow by the same factor as host_cost.py's probe (docs/hf-decode-wall.md).
hf_host.py's tiny-dimension HF Llama (16 layers; kernels of a few microseconds, so a step's wall time is host time),
decode steps with cuDNN SDPA on (a plan built for every new KV length) and off alternating, each followed by one probe:
a synchronised forward of host_cost.py's tiny model, timed (us a launch, the figure host.cpu_speed is defined by).
Runs for --seconds, so the host's modes come as they come. No collector (probe and steps in the reference's units).
The llama-3.2-1b validation runs (traces/e2e) are not used here.

  python3 scripts/torch/e2e/host_slope.py --out host_slope.jsonl [--seconds 200]
One JSON line a step: {"step", "cudnn", "batch", "kv", "wall_us", "probe_us"}; the first line holds the launch counts.
"""

import argparse
import json
import os
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(1, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import hf_eager  # noqa: E402
import hf_host  # noqa: E402
from host_cost import tiny_forward  # noqa: E402
from loom_torch import kernels_of  # noqa: E402


@torch.no_grad()
def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", required=True)
    p.add_argument("--seconds", type=float, default=200)
    a = p.parse_args()
    probe = tiny_forward()
    for _ in range(10):
        probe()
    torch.cuda.synchronize()
    probe_launches = kernels_of(probe)
    m = hf_host.build(16)
    state = {}

    def prefill(batch):
        """A fresh cache of 128 tokens. The batch is part of cuDNN's plan key, so after a refill every KV length is
        new again (a refill at the same batch would revisit planned lengths)."""
        ids = torch.randint(0, hf_host.TINY["vocab_size"], (batch, 128), device="cuda")
        for _ in range(2):
            hf_eager.forward(m, ids)
        out = hf_eager.forward(m, ids)
        state.update(cache=out.past_key_values, nxt=out.logits[:, -1:].argmax(-1), batch=batch, kv=128)

    def step():
        state["nxt"] = hf_eager.forward(m, state["nxt"], state["cache"]).logits[:, -1:].argmax(-1)
        state["kv"] += 1

    prefill(1)

    launches = {}
    for on in (True, False):
        torch.backends.cuda.enable_cudnn_sdp(on)
        for _ in range(3):
            step()
        launches["cudnn" if on else "no_cudnn"] = kernels_of(step)
    torch.cuda.synchronize()
    f = open(a.out, "w")
    f.write(json.dumps({"launches": launches, "probe_launches": probe_launches, "gpu": torch.cuda.get_device_name(0),
                        "torch": torch.__version__, "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                        "layers": 16, "tiny_config": hf_host.TINY}) + "\n")
    t0 = time.time()
    i = 0
    while time.time() - t0 < a.seconds:
        if state["kv"] >= hf_host.TINY["max_position_embeddings"] - 8:
            prefill(state["batch"] + 1)
        on = i % 2 == 0
        torch.backends.cuda.enable_cudnn_sdp(on)
        torch.cuda.synchronize()
        t = time.perf_counter()
        step()
        torch.cuda.synchronize()
        wall = (time.perf_counter() - t) * 1e6
        t = time.perf_counter()
        probe()
        torch.cuda.synchronize()
        pr = (time.perf_counter() - t) * 1e6 / probe_launches
        f.write(json.dumps({"step": i, "cudnn": on, "batch": state["batch"], "kv": state["kv"],
                            "wall_us": round(wall, 1), "probe_us": round(pr, 3)}) + "\n")
        f.flush()
        if i % 200 == 0:
            print("step %d kv %d: %s %.0f us, probe %.2f us a launch, %.0f s" % (
                i, state["kv"], "cudnn" if on else "off", wall, pr, time.time() - t0), flush=True)
        i += 1
    f.close()
    print("host_slope: %d steps in %.0f s" % (i, time.time() - t0), flush=True)


if __name__ == "__main__":
    main()
