"""Host cost of an eager tensor-parallel forward (issues 11/12): what an NCCL all-reduce costs the host in eager
PyTorch, measured where GPU time cannot hide it. host_cost.py's tiny Llama-like block stack (hidden 64, 16 layers,
every kernel a few microseconds) runs on every rank twice, with the same launches plus or minus Megatron's two
all-reduces a layer (after the attention output and the MLP down projection):

  torchrun --nproc_per_node N scripts/torch/tp_host_cost.py --out DIR

Per rank and variant: the median wall time of a forward (ranks aligned by a gloo barrier before each rep, then the
forward, then a device sync) and its launches (torch profiler). Rank 0 writes DIR/tp<N>.json with every rank's
figures and the derived cost of one collective in an eager step: (wall with - wall without) / collectives, i.e. its
own launch plus the c10d bookkeeping around it plus the wait for the slowest rank (an eager TP step's wall is set by
its slowest rank). `loom validate --e2e` never reads this file; the profiles' `collective_host_us` comes from it.
"""

import argparse
import json
import os
import statistics
import time

import torch
import torch.distributed as dist

import host_cost
from loom_torch import kernels_of



class TpBlock(host_cost.Block):
    """host_cost.Block with an all-reduce after o and after down, as tp_e2e.py's hooks place them."""

    def forward(self, x, cos, sin):
        F = torch.nn.functional
        b, t, _ = x.shape
        H, D = host_cost.HEADS, host_cost.HEAD_DIM
        h = self.rms(x, self.norm1)
        q = self.q(h).view(b, t, H, D).transpose(1, 2)
        k = self.k(h).view(b, t, 1, D).transpose(1, 2)
        v = self.v(h).view(b, t, 1, D).transpose(1, 2)
        q, k = self.rotate(q, cos, sin), self.rotate(k, cos, sin)
        a = F.scaled_dot_product_attention(q, k.expand(-1, H, -1, -1), v.expand(-1, H, -1, -1), is_causal=True)
        o = self.o(a.transpose(1, 2).reshape(b, t, H * D))
        dist.all_reduce(o)
        x = x + o
        h = self.rms(x, self.norm2)
        d = self.down(F.silu(self.gate(h)) * self.up(h))
        dist.all_reduce(d)
        return x + d


@torch.no_grad()
def measure(block_cls, gloo, reps):
    torch.manual_seed(0)
    forward = host_cost.tiny_forward(block_cls)
    for _ in range(10):
        forward()
    torch.cuda.synchronize()
    walls = []
    for _ in range(reps):
        dist.barrier(group=gloo)
        t = time.perf_counter()
        forward()
        torch.cuda.synchronize()
        walls.append((time.perf_counter() - t) * 1e6)
    return {"wall_us": statistics.median(walls), "launches": kernels_of(forward),
            "wall_p10_us": sorted(walls)[len(walls) // 10], "wall_p90_us": sorted(walls)[len(walls) * 9 // 10]}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", required=True)
    p.add_argument("--reps", type=int, default=40)
    a = p.parse_args()
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    local = int(os.environ.get("LOCAL_RANK", rank))
    torch.cuda.set_device(local)
    dist.init_process_group("nccl", device_id=torch.device("cuda", local))
    gloo = dist.new_group(backend="gloo")
    res = {"rank": rank}
    for name, cls in (("plain", host_cost.Block), ("tp", TpBlock), ("plain_again", host_cost.Block)):
        res[name] = measure(cls, gloo, a.reps)
    everyone = [None] * world
    dist.all_gather_object(everyone, res)
    if rank == 0:
        coll = 2 * host_cost.LAYERS
        plain = [0.5 * (r["plain"]["wall_us"] + r["plain_again"]["wall_us"]) for r in everyone]
        tp = [r["tp"]["wall_us"] for r in everyone]
        per_launch = [pw / r["plain"]["launches"] for pw, r in zip(plain, everyone)]
        # The step's wall is its slowest rank's; the all-reduces tie the ranks, so every rank's tp wall is close.
        out = {"gpus": world, "collectives_per_forward": coll, "layers": host_cost.LAYERS,
               "plain_launches": everyone[0]["plain"]["launches"], "tp_launches": everyone[0]["tp"]["launches"],
               "us_per_launch_median_rank": statistics.median(per_launch),
               "collective_host_us": (statistics.median(tp) - statistics.median(plain)) / coll,
               "collective_host_us_excl_launch": (statistics.median(tp) - statistics.median(plain)) / coll
               - statistics.median(per_launch),
               "cpu": host_cost.cpu_name(), "torch": torch.__version__,
               "nccl": ".".join(map(str, torch.cuda.nccl.version())),
               "ranks": everyone}
        os.makedirs(a.out, exist_ok=True)
        with open(os.path.join(a.out, "tp%d.json" % world), "w") as f:
            json.dump(out, f, indent=1)
        print("tp_host_cost: %d GPUs: %.1f us a launch (plain), %.1f us a collective (with its launch), "
              "plain %.0f us / tp %.0f us a forward" % (world, out["us_per_launch_median_rank"],
                                                       out["collective_host_us"], statistics.median(plain),
                                                       statistics.median(tp)), flush=True)
    dist.barrier(group=gloo)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
