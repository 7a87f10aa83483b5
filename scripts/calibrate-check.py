"""Checks `loom calibrate` overlays on their own chips (issue 11 item 3), from committed data only:
  - each GPU's calibrated overlay vs its catalogue entry on the held-out PyTorch GEMMs (traces/heldout/linear/<g>-cold);
  - the 64-SM partition overlay vs the full-chip entry on 3,000 kernels of that partition's corpus (traces/<g>/sms64,
    seed 1; these kernels trained the model: the check is that the overlay finds the partition, not held-out accuracy).
  /usr/bin/python3 scripts/calibrate-check.py [build/loom]
"""
import csv
import io
import os
import random
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from loom_corpus import read_corpus  # noqa: E402  (corpus versions 1 and 2)
from script_errors import fail, guarded, require_loom  # noqa: E402  (one loom: line, exit 2)

LOOM = sys.argv[1] if len(sys.argv) > 1 else "build/loom"
GPUS = {"h100": "h100-sxm", "h200": "h200"}


def corpus_rows(path):
    return read_corpus(path)[1]


def batch(rows, path):
    """Corpus rows -> predict --batch CSV (spec keys as columns, impl when not the library's); measured us."""
    keys, out = ["impl"], []
    for r in rows:
        t = r["spec"].split()
        d = {"family": t[0]}
        for kv in t[1:]:
            k, v = kv.split("=", 1)
            d[k] = v
            if k not in keys:
                keys.append(k)
        im = r["impl"]
        if not (im.startswith("cublas") or im in ("", "library")):
            d.setdefault("impl", im)
        out.append((d, float(r["median_us"])))
    hdr = ["family"] + keys
    with open(path, "w") as f:
        f.write(",".join(hdr) + "\n")
        for d, _ in out:
            f.write(",".join(d.get(k) or "" for k in hdr) + "\n")
    return [m for _, m in out]


def mape(gpu_args, csv_path, measured):
    p = subprocess.run([LOOM, "predict", *gpu_args, "--batch", csv_path, "--format", "csv"], capture_output=True,
                       text=True, check=True)
    pred = [float(r["latency_us"]) for r in csv.DictReader(io.StringIO(p.stdout))]
    return 100 * sum(abs(a / b - 1) for a, b in zip(pred, measured)) / len(measured)


def main():
    if len(sys.argv) > 2:
        fail("usage: calibrate-check.py [build/loom]")
    require_loom(LOOM, "loom")
    tmp = tempfile.mkdtemp()
    print("%-5s %-40s %8s %10s %10s" % ("gpu", "kernels", "n", "catalogue", "overlay"))
    for short, key in GPUS.items():
        d = "traces/checks/calibrate/" + short
        full, part = os.path.join(tmp, short + ".yaml"), os.path.join(tmp, short + "-sm64.yaml")
        for res, out in ((d + "/calibration.json", full), (d + "/calibration-sm64.json", part)):
            subprocess.run([LOOM, "calibrate", res, "--gpu", key, "-o", out], check=True, capture_output=True)
        ho = os.path.join(tmp, short + "-heldout.csv")
        m = batch(corpus_rows("traces/heldout/linear/%s-cold.corpus.csv.gz" % short), ho)
        print("%-5s %-40s %8d %9.2f%% %9.2f%%" % (short, "held-out PyTorch GEMMs (cold)", len(m),
                                                  mape(["--gpu", key], ho, m), mape(["--gpu", full], ho, m)))
        rows = corpus_rows("traces/%s/sms64.corpus.csv.gz" % short)
        random.seed(1)
        rows = random.sample(rows, min(3000, len(rows)))
        sp = os.path.join(tmp, short + "-sm64.csv")
        m = batch(rows, sp)
        print("%-5s %-40s %8d %9.2f%% %9.2f%%" % (short, "64-SM partition corpus (full chip entry)", len(m),
                                                  mape(["--gpu", key], sp, m), mape(["--gpu", part], sp, m)))


if __name__ == "__main__":
    sys.exit(guarded(main))
