#!/usr/bin/env python3
"""The ceiling invariant over random kernels (issue 17, probe round 8): no prediction below its own ceiling_us.

  python3 scripts/probe_sweep_ceiling.py [--loom build/loom] [--seed 1] [--iters 40] [--gpus h800,b200]

Each iteration takes a random catalogue GPU and 30 random kernels of every family (dtypes, impl=, scales=, l2=, paged
decode, fused norms, collectives), drops the ones that GPU cannot run, and predicts the rest as one batch under every
variant: boost, --clock sustained and auto, --set overrides (SM partition, clock, DRAM and L2 bandwidth: learned
predictions anchored at the catalogue GPU), a GPU file that `extends:` the entry (as is, and with slower DRAM), and
--model analytical; NVLink edits (slower, a 2-way bridge, NVLink on a switch for PCIe cards, an NVLink mesh:
interconnect.topology) too. Besides the random kernels, every iteration tries
all_reduce / all_gather / reduce_scatter at 1 MiB, 64 MiB and 1 GiB on 2, 4 and 8 GPUs (pinned()); a GPU's own
measured collective fit is held to the ceiling like any other prediction (NVLS-aware since round 9). Exit 4 with one
`loom: ` line naming the first prediction below its ceiling (or not finite); 'ok N' after N predictions otherwise."""
import argparse, json, os, random, subprocess, sys, tempfile

KEYS = ["family", "m", "n", "k", "batch", "dtype", "impl", "scales", "stage", "tokens", "experts", "topk", "hidden",
        "inter", "heads", "kv_heads", "seq", "seq_kv", "head_dim", "causal", "block", "rows", "cols", "op", "bytes",
        "gpus", "l2"]


def kernel(r):
    f = r.choice(["gemm", "gemm", "moe", "attention_prefill", "attention_decode", "rms_norm", "layer_norm", "softmax",
                  "elementwise", "rotary", "all_reduce", "all_gather", "reduce_scatter", "send_recv"])
    n = r.randint
    d = {"family": f}
    if f == "gemm":
        d.update(m=n(1, 9000), n=n(1, 9000), k=n(1, 9000), dtype=r.choice(["bf16", "fp16", "fp32", "fp8"]))
        if d["dtype"] == "fp8":
            d["impl"], d["scales"] = (r.choice(["", "library", "cutlass", "torch"]),
                                      r.choice(["", "tensor", "rowwise", "block"]))
            if d["impl"] == "cutlass" and d["scales"] == "block":
                d["scales"] = "rowwise"
        else:
            d["impl"] = r.choice(["", "library", "torch", "loom"])
        if r.random() < .2 and d["impl"] != "cutlass":
            d["batch"] = n(2, 16)
    elif f == "moe":
        d.update(tokens=n(1, 8192), experts=8, topk=2, hidden=4096, inter=14336, dtype=r.choice(["bf16", "fp8"]),
                 stage=r.choice(["w13", "w2"]))
    elif f == "attention_prefill":
        d.update(batch=n(1, 8), heads=32, kv_heads=8, seq=n(1, 8000), head_dim=128, causal=n(0, 1),
                 dtype=r.choice(["bf16", "fp16"]))
    elif f == "attention_decode":
        d.update(batch=n(1, 256), heads=32, kv_heads=8, seq_kv=n(1, 60000), head_dim=128,
                 dtype=r.choice(["bf16", "fp16", "fp8"]))
        if r.random() < .4:
            d["impl"], d["block"] = "paged", r.choice([16, 32])
    elif f in ("rms_norm", "layer_norm", "softmax"):
        d.update(rows=n(1, 60000), cols=n(1, 16384), dtype=r.choice(["bf16", "fp16", "fp32"]))
        if f == "rms_norm" and r.random() < .4:
            d["impl"] = "fused"
    elif f == "elementwise":
        d.update(op=r.choice(["silu_mul", "add", "mul"]), rows=n(1, 60000), cols=n(1, 16384), dtype="bf16")
        if d["op"] == "silu_mul" and r.random() < .5:
            d["impl"] = "fused"
    elif f == "rotary":
        d.update(tokens=n(1, 16384), heads=32, kv_heads=8, head_dim=128, dtype="bf16")
        if r.random() < .5:
            d["impl"] = "fused"
    else:
        d["bytes"] = n(1, r.choice([1 << 28, 1 << 30]))
        if f != "send_recv":
            d["gpus"] = r.choice([2, 4, 8])
        if f == "all_reduce" and r.random() < .3:
            d["impl"] = "custom"
    if r.random() < .4:
        d["l2"] = r.choice(["cold", "warm"])
    return {k: v for k, v in d.items() if v != ""}


def pinned():
    """Collectives every iteration tries besides the random ones: the sizes and GPU counts where a measured fit sits
    closest to the link's speed of light (H800's 8-GPU NVLS all-reduce at 1 GiB ran 5.8% under the ring's bound)."""
    return [{"family": f, "bytes": b, "gpus": g} for f in ("all_reduce", "all_gather", "reduce_scatter")
            for b in (1 << 20, 1 << 26, 1 << 30) for g in (2, 4, 8)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--loom", default=os.path.join(os.environ.get("PYTHONPATH", "build/python"), "..", "loom"))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--iters", type=int, default=40)
    ap.add_argument("--gpus", default="", help="comma-separated catalogue GPUs to draw from (default: all)")
    a = ap.parse_args()
    r = random.Random(a.seed)

    def run(*argv):
        return subprocess.run([a.loom] + list(argv), capture_output=True, text=True)
    names = (a.gpus.split(",") if a.gpus
             else [g["gpu"] for g in json.loads(run("gpus", "--format", "json").stdout)["gpus"]])
    tmp = tempfile.mkdtemp()
    variants = [[], ["--clock", "sustained"], ["--clock", "auto"], ["--set", "sms=64"],
                ["--set", "clock.sustained=1200MHz"], ["--set", "dram.bandwidth=1TB/s"],
                ["--set", "l2.bandwidth=20TB/s"],
                ["--set", "sms=64", "--set", "dram.bandwidth=1TB/s", "--clock", "auto"],
                ["--set", "interconnect.nvlink=100GB/s"], ["--set", "interconnect.nvlink_gpus=2"],
                ["--set", "interconnect.nvlink=100GB/s", "--set", "interconnect.topology=nvswitch"],
                ["--set", "interconnect.topology=nvlink-mesh"], ["--model", "analytical"],
                ["--model", "analytical", "--clock", "sustained"], ["EXT"], ["EXT2"]]
    total = 0
    for _ in range(a.iters):
        g = r.choice(names)
        rows = []
        for d in [kernel(r) for _ in range(30)] + pinned():
            spec = " ".join([d["family"]] + ["%s=%s" % (k, d[k]) for k in KEYS[1:] if k in d])
            q = run("predict", "--gpu", g, "--kernel", spec)
            if q.returncode == 0:
                rows.append(d)
            elif q.returncode != 2:
                print("loom: %s %s: exit %d %s" % (g, spec, q.returncode, q.stderr[:200]), file=sys.stderr)
                return 4
        csv = os.path.join(tmp, "rows.csv")
        with open(csv, "w") as f:
            f.write(",".join(KEYS) + "\n" + "".join(",".join(str(d.get(k, "")) for k in KEYS) + "\n" for d in rows))
        for v in variants:
            gpu = g
            if v and v[0].startswith("EXT"):  # a GPU file that extends the entry: as is, or slower clock and DRAM
                gpu = os.path.join(tmp, "ext.yaml")
                with open(gpu, "w") as f:
                    f.write("extends: %s\nname: ext %s\n" % (g, g) +
                            ("dram: {bandwidth: 1 TB/s}\n" if v[0] == "EXT2" else ""))
                v = []
            p = run("predict", "--gpu", gpu, "--batch", csv, "--format", "json", *v)
            if p.returncode == 2 and v and v[0] == "--set":
                continue  # an override this GPU refuses (sms=64 on a smaller GPU, a clock above its boost)
            if p.returncode:
                print("loom: %s %s: exit %d %s" % (gpu, v, p.returncode, p.stderr[:200].strip()), file=sys.stderr)
                return 4
            for pr in json.loads(p.stdout)["predictions"]:
                total += 1
                lat, ceil = pr["latency_us"], pr["ceiling_us"]
                if not (lat == lat and ceil == ceil and 0 < ceil <= lat * (1 + 1e-9)):
                    print("loom: %s %s %s: %.6g us below its ceiling %.6g us" % (g, v, pr["kernel"], lat, ceil),
                          file=sys.stderr)
                    return 4
    print("ok", total)
    return 0


if __name__ == "__main__":
    sys.exit(main())
