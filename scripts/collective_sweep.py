#!/usr/bin/env python3
"""Every catalogue GPU's collective predictions over a sweep, one line each, for before/after diffs.

  python3 scripts/collective_sweep.py [--loom build/loom] [--gpus h100-sxm,a40] [-- extra loom args] > sweep.tsv

all_reduce (NCCL and impl=custom), all_gather, reduce_scatter on 2, 3, 4 and 8 GPUs and send_recv, 1 KiB to 1 GiB in
powers of 2, under the default model, --model analytical and --clock sustained: gpu, variant, kernel, latency_us,
ceiling_us and the prediction's model, tab-separated. Set LOOM_HOME to read another catalogue (e.g. a `git archive`
of gpus/ models/ kernels/ at another commit)."""
import argparse, json, os, subprocess, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from script_errors import Parser, fail, guarded, require_loom  # noqa: E402,F401  (one loom: line, exit 2)

KEYS = ["family", "bytes", "gpus", "impl"]


def main():
    ap = Parser()
    ap.add_argument("--loom", default="build/loom")
    ap.add_argument("--gpus", default="")
    ap.add_argument("extra", nargs="*", help="loom arguments added to every run (after --)")
    a = ap.parse_args()
    require_loom(a.loom)
    run = lambda *argv: subprocess.run([a.loom] + list(argv), capture_output=True, text=True)
    names = (a.gpus.split(",") if a.gpus
             else [g["gpu"] for g in json.loads(run("gpus", "--format", "json").stdout)["gpus"]])
    for g in names if a.gpus else ():  # an unknown GPU is refused up front, not swept as rows of errors
        p = run("gpus", "show", g)
        if p.returncode:
            fail("--gpus: " + (p.stderr.strip().splitlines() or [g + ": not a GPU"])[-1].removeprefix("loom: "))

    def batch(most):  # the sweep on at most `most` GPUs (a node's size: rtx-a6000 holds 4)
        rows = []
        for b in [1 << i for i in range(10, 31)]:
            for g in (g for g in (2, 3, 4, 8) if g <= most):
                rows += [("all_reduce", b, g, ""), ("all_reduce", b, g, "custom"), ("all_gather", b, g, ""),
                         ("reduce_scatter", b, g, "")]
            rows.append(("send_recv", b, "", ""))
        fd, path = tempfile.mkstemp(suffix=".csv")
        with os.fdopen(fd, "w") as f:
            f.write(",".join(KEYS) + "\n" + "".join(",".join(map(str, r)) + "\n" for r in rows))
        return path
    csvs = [batch(8), batch(4), batch(2)]
    variants = {"default": [], "analytical": ["--model", "analytical"], "sustained": ["--clock", "sustained"]}
    for gpu in names:
        for vname, v in variants.items():
            for csv in csvs:
                p = run("predict", "--gpu", gpu, "--batch", csv, "--format", "json", *v, *a.extra)
                if p.returncode == 0 or "exceeds the" not in p.stderr:
                    break
            if p.returncode:
                print("%s\t%s\terror\t%s" % (gpu, vname, p.stderr.strip()))
                continue
            for pr in json.loads(p.stdout)["predictions"]:
                print("%s\t%s\t%s\t%r\t%r\t%s" % (gpu, vname, pr["kernel"], pr["latency_us"], pr["ceiling_us"],
                                                  pr.get("model", "")))
    for csv in csvs:
        os.unlink(csv)


if __name__ == "__main__":
    sys.exit(guarded(main))
