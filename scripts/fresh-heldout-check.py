#!/usr/bin/env python3
"""Issue 12's warm-loop target on a held-out set measured AFTER the model was frozen (traces/checks/heldout2/:
random PyTorch ops seed 131 and random GEMMs seed 137, cold and warm, H100 and H200, measured 2026-11-27 with
`OPS_SEED=131 LIN_SEED=137 OPS_SECONDS=110 LIN_SECONDS=110 bash scripts/collect-heldout.sh`). The files are stored as
*.heldout.csv.gz, outside the corpus `loom train` reads (adding them would change the committed corpus and its hash);
this copies them into a temporary corpus folder and runs `loom validate` on it with the committed model (nothing is
retrained), then pools the ops and GEMM sets per GPU and cache state as the issue's target does (kernel-weighted).

  python3 scripts/fresh-heldout-check.py [--loom build/loom] [--model-dir DIR]
"""
import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))


class Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit 2, as loom's own refusals (not argparse's usage block)
        print(f"loom: fresh-heldout-check.py: {message}; see --help", file=sys.stderr)
        sys.exit(2)


def refuse(message):
    print("loom: " + message, file=sys.stderr)
    sys.exit(2)


ap = Parser()
ap.add_argument("--loom", default=os.path.join(here, "..", "build", "loom"))
ap.add_argument("--model-dir")
ap.add_argument("--checks", default=os.path.join(here, "..", "traces", "checks", "heldout2"))
a = ap.parse_args()
files = sorted(glob.glob(os.path.join(a.checks, "*.heldout.csv.gz")))
if not files:
    refuse(f"{a.checks}: no *.heldout.csv.gz files")
if not (os.path.isfile(a.loom) and os.access(a.loom, os.X_OK)):
    refuse(f"--loom: '{a.loom}' is not an executable file; build loom (bash scripts/build.sh) or pass --loom PATH")
with tempfile.TemporaryDirectory() as tmp:
    for f in files:
        shutil.copy(f, os.path.join(tmp, os.path.basename(f).replace(".heldout.csv.gz", ".corpus.csv.gz")))
    cmd = ([a.loom, "validate", "--traces", tmp, "--format", "json"]
           + (["--model-dir", a.model_dir] if a.model_dir else []))
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        lines = [l for l in r.stderr.split("\n") if l.strip()]
        refuse((lines[-1][6:] if lines and lines[-1].startswith("loom: ") else lines[-1] if lines else
                f"loom validate exited {r.returncode}"))
v = json.loads(r.stdout)
print("| split | kernels | learned MAPE | analytical MAPE |")
print("| --- | ---: | ---: | ---: |")
for s in v["splits"]:
    print(f"| {s['split']} | {s['learned']['n']} | {s['learned']['mape']:.2f}% | {s['analytical']['mape']:.1f}% |")
print("\n| state | GPU | kernels (ops + GEMMs) | learned MAPE | of which GEMMs |")
print("| --- | --- | ---: | ---: | ---: |")
for state in ("warm", "cold"):
    for gpu in sorted({g["gpu"] for g in v["groups"]}):
        tot = n = gem = ng = 0.0
        for g in v["groups"]:
            if g["gpu"] != gpu or not g["split"].endswith("-heldout-" + state):
                continue
            tot += g["learned"]["mape"] * g["learned"]["n"]
            n += g["learned"]["n"]
            if g["family"] == "gemm":
                gem += g["learned"]["mape"] * g["learned"]["n"]
                ng += g["learned"]["n"]
        if n:
            print(f"| {state} | {gpu} | {int(n)} | {tot / n:.2f}% | {gem / ng:.2f}% |" if ng else
                  f"| {state} | {gpu} | {int(n)} | {tot / n:.2f}% | - |")
