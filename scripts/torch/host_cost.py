"""Host speed of an eager PyTorch model (issue 12 item 6): the host time a kernel launch costs when Python modules
drive it, measured where GPU time cannot hide it. A Llama-like block stack in plain torch (RMS norm, q/k/v/o and
gate/up/down linears, a rotary-style elementwise chain, SDPA, SiLU-gated MLP) at hidden 64, 16 layers: every kernel
takes a few microseconds, so a forward's wall time is the Python + dispatcher + launch time of its launches.

`us_per_launch` divided into the same figure on the reference host (the host the serving profiles' host costs were
measured on) is the `host.cpu_speed` that `loom calibrate` writes. Used by calibrate.py; alone:

  python3 scripts/torch/host_cost.py
"""

import statistics
import time

import torch
import torch.nn.functional as F

from loom_torch import kernels_of

HIDDEN, HEADS, HEAD_DIM, FFN, LAYERS, TOKENS = 64, 2, 32, 128, 16, 128


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.norm1 = torch.nn.Parameter(torch.ones(HIDDEN))
        self.norm2 = torch.nn.Parameter(torch.ones(HIDDEN))
        self.q = torch.nn.Linear(HIDDEN, HEADS * HEAD_DIM, bias=False)
        self.k = torch.nn.Linear(HIDDEN, HEAD_DIM, bias=False)
        self.v = torch.nn.Linear(HIDDEN, HEAD_DIM, bias=False)
        self.o = torch.nn.Linear(HEADS * HEAD_DIM, HIDDEN, bias=False)
        self.gate = torch.nn.Linear(HIDDEN, FFN, bias=False)
        self.up = torch.nn.Linear(HIDDEN, FFN, bias=False)
        self.down = torch.nn.Linear(FFN, HIDDEN, bias=False)

    @staticmethod
    def rms(x, w):
        v = x.float().pow(2).mean(-1, keepdim=True)
        return (x.float() * torch.rsqrt(v + 1e-5)).to(x.dtype) * w

    @staticmethod
    def rotate(x, cos, sin):
        a, b = x.chunk(2, dim=-1)
        return x * cos + torch.cat((-b, a), dim=-1) * sin

    def forward(self, x, cos, sin):
        b, t, _ = x.shape
        h = self.rms(x, self.norm1)
        q = self.q(h).view(b, t, HEADS, HEAD_DIM).transpose(1, 2)
        k = self.k(h).view(b, t, 1, HEAD_DIM).transpose(1, 2)
        v = self.v(h).view(b, t, 1, HEAD_DIM).transpose(1, 2)
        q, k = self.rotate(q, cos, sin), self.rotate(k, cos, sin)
        a = F.scaled_dot_product_attention(q, k.expand(-1, HEADS, -1, -1), v.expand(-1, HEADS, -1, -1),
                                           is_causal=True)
        x = x + self.o(a.transpose(1, 2).reshape(b, t, HEADS * HEAD_DIM))
        h = self.rms(x, self.norm2)
        return x + self.down(F.silu(self.gate(h)) * self.up(h))


def tiny_forward(block_cls=None):
    """A no-argument eager forward of LAYERS blocks of `block_cls` (default Block) over TOKENS tokens, on the GPU."""
    with torch.device("cuda"):
        blocks = torch.nn.ModuleList((block_cls or Block)() for _ in range(LAYERS)).to(torch.bfloat16).eval()
        x = torch.randn(1, TOKENS, HIDDEN, dtype=torch.bfloat16)
        pos = torch.arange(TOKENS, dtype=torch.float32)[:, None] / 10000 ** (torch.arange(HEAD_DIM) / HEAD_DIM)
        cos, sin = pos.cos().to(torch.bfloat16), pos.sin().to(torch.bfloat16)

    def forward():
        h = x
        for blk in blocks:
            h = blk(h, cos, sin)
        return h
    return forward


@torch.no_grad()
def nvtx_host_probe(count):
    """The host probe of the traced end-to-end runs (hf_eager.py, tp_e2e.py --host-probe N): a function that adds
    `count` `loom.host_probe` NVTX ranges, each one synchronised tiny_forward(), or None when count is 0. The tiny
    model is built and warmed up here, out of the probes, as host_cost() does."""
    if count <= 0:
        return None
    probe = tiny_forward()
    for _ in range(10):
        probe()
    torch.cuda.synchronize()

    def run():
        for _ in range(count):
            torch.cuda.nvtx.range_push("loom.host_probe")
            probe()
            torch.cuda.synchronize()
            torch.cuda.nvtx.range_pop()
    return run


def host_cost(reps=30, launches=0):
    """Median host time a launch (us) of a 16-layer tiny eager forward, and the launches a forward makes (counted by
    the torch profiler; under loom's collector, which the profiler cannot share CUPTI with, give `launches`)."""
    forward = tiny_forward()
    for _ in range(10):  # lazy initialisation (cuBLAS handles, SDPA backend choice) out of the timed runs
        forward()
    torch.cuda.synchronize()
    walls = []
    for _ in range(reps):
        t = time.perf_counter()
        forward()
        torch.cuda.synchronize()
        walls.append((time.perf_counter() - t) * 1e6)
    n = launches or kernels_of(forward)
    if n == 0:
        raise SystemExit("host_cost.py: the torch profiler counted no launches (under loom's collector?); "
                         "give --launches N (the count a run without the collector prints)")
    us = statistics.median(walls) / n
    print("host: %.2f us a launch of an eager tiny-model forward (%d launches, median of %d)" % (us, n, reps),
          flush=True)
    return {"us_per_launch": us, "launches": n, "layers": LAYERS, "tokens": TOKENS, "reps": reps,
            "cpu": cpu_name()}


def cpu_name():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return ""


if __name__ == "__main__":
    import argparse
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--launches", type=int, default=0, help="launches a forward makes (when the profiler cannot count)")
    torch.cuda.init()
    host_cost(launches=ap.parse_args().launches)
