#!/usr/bin/env python3
"""How well do loom's GEMM measurements repeat? Compares two runs of the same cases (same script, seeds and GPU
model, two device calls; the case ids name the same shapes): traces/h100/sms132-{warm4,linear4}.corpus.csv.gz
(training) against their reruns in traces/checks/repeat/ (kept out of the corpus: not *.corpus.csv.gz). CUPTI
kernel medians, per case.

  python3 scripts/repeatability.py
"""
import csv
import gzip
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from loom_corpus import read_corpus  # noqa: E402  (corpus versions 1 and 2)

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
PAIRS = [("warm", "traces/h100/sms132-warm4.corpus.csv.gz", "traces/checks/repeat/h100-warm4-rerun.csv.gz"),
         ("cold", "traces/h100/sms132-linear4.corpus.csv.gz", "traces/checks/repeat/h100-linear4-rerun.csv.gz")]


def read(path):  # case_id -> row (a corpus, or a rerun's case_id,median_us)
    if path.endswith(".corpus.csv.gz"):
        return {r["case_id"]: r for r in read_corpus(os.path.join(ROOT, path))[1]}
    with gzip.open(os.path.join(ROOT, path), "rt") as f:
        return {r["case_id"]: r for r in csv.DictReader(line for line in f if not line.startswith("#"))}


print("| mode | cases | mean abs diff | median | p90 | mean signed |\n| --- | ---: | ---: | ---: | ---: | ---: |")
for mode, a_path, b_path in PAIRS:
    a, b = read(a_path), read(b_path)
    d = sorted((float(a[k]["median_us"]) / float(b[k]["median_us"]) - 1) * 100 for k in a
               if k in b and float(b[k]["median_us"]) > 0)
    mag = sorted(abs(x) for x in d)
    print("| %s | %d | %.2f%% | %.2f%% | %.2f%% | %+.2f%% |" % (mode, len(d), sum(mag) / len(mag), mag[len(mag) // 2],
                                                              mag[int(0.9 * len(mag))], sum(d) / len(d)))
