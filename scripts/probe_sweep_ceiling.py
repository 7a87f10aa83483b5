#!/usr/bin/env python3
"""The ceiling invariant over random kernels (issue 17, probe round 8): no prediction below its own ceiling_us.

  python3 scripts/probe_sweep_ceiling.py [--loom build/loom] [--seed 1] [--iters 40]

Each iteration takes a random catalogue GPU and 30 random kernels of every family (dtypes, impl=, scales=, l2=, paged
decode, fused norms, collectives), drops the ones that GPU cannot run, and predicts the rest as one batch under every
variant: boost, --clock sustained and auto, --set overrides (SM partition, clock, DRAM and L2 bandwidth: learned
predictions anchored at the catalogue GPU), a GPU file that `extends:` the entry (as is, and with slower DRAM), and
--model analytical. A collective priced by its GPU's own measured fit is exempt (see measured()). Exit 4 with one
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
            d["impl"], d["scales"] = r.choice(["", "library", "cutlass", "torch"]), r.choice(["", "tensor", "rowwise", "block"])
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
        d["bytes"] = n(1, 1 << 28)
        if f != "send_recv":
            d["gpus"] = r.choice([2, 4, 8])
        if f == "all_reduce" and r.random() < .3:
            d["impl"] = "custom"
    if r.random() < .4:
        d["l2"] = r.choice(["cold", "warm"])
    return {k: v for k, v in d.items() if v != ""}


def measured(pr):
    """A collective priced by its GPU's own NCCL fit at the measured GPU count is a measurement, not a model: H800's
    8-GPU all-reduce (NVLS: the NVSwitch reduces in the fabric) runs up to 6% under the ring-traffic ceiling of its
    YAML NVLink figure, and loom keeps the measurement (Predictor::apply_collective)."""
    basis = pr.get("collective_basis") or ""
    gpus = "gpus=2" if pr["family"] == "send_recv" else next(
        (w for w in pr["kernel"].split() if w.startswith("gpus=")), "")
    return pr["model"] == "collective-fit" and basis.startswith("fit ") and basis.endswith(" " + gpus)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--loom", default=os.path.join(os.environ.get("PYTHONPATH", "build/python"), "..", "loom"))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--iters", type=int, default=40)
    a = ap.parse_args()
    r = random.Random(a.seed)

    def run(*argv):
        return subprocess.run([a.loom] + list(argv), capture_output=True, text=True)
    names = [g["gpu"] for g in json.loads(run("gpus", "--format", "json").stdout)["gpus"]]
    tmp = tempfile.mkdtemp()
    variants = [[], ["--clock", "sustained"], ["--clock", "auto"], ["--set", "sms=64"],
                ["--set", "clock.sustained=1200MHz"], ["--set", "dram.bandwidth=1TB/s"], ["--set", "l2.bandwidth=20TB/s"],
                ["--set", "sms=64", "--set", "dram.bandwidth=1TB/s", "--clock", "auto"], ["--model", "analytical"],
                ["--model", "analytical", "--clock", "sustained"], ["EXT"], ["EXT2"]]
    total = 0
    for _ in range(a.iters):
        g = r.choice(names)
        rows = []
        for _ in range(30):
            d = kernel(r)
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
                if measured(pr) and lat == lat and lat > 0:
                    continue
                if not (lat == lat and ceil == ceil and 0 < ceil <= lat * (1 + 1e-9)):
                    print("loom: %s %s %s: %.6g us below its ceiling %.6g us" % (g, v, pr["kernel"], lat, ceil),
                          file=sys.stderr)
                    return 4
    print("ok", total)
    return 0


if __name__ == "__main__":
    sys.exit(main())
