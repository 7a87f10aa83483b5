#!/usr/bin/env python3
"""Fits how an HF eager decode step's host time follows the host probe (scripts/torch/e2e/host_slope.py's output):
pairs each cuDNN-on step with the cuDNN-off step after it when their two probes agree within 10% (same host mode):
plan = on wall - off wall, probe = the pair's mean probe. Prints the launch part's wall / probe per probe band (is
it proportional?), the least-squares line plan = a + b x probe, and the plan's fixed share at the host's fast mode
(p0 = the median probe of the pairs below the median probe): phi = a / (a + b p0), the share of the plan build that
does not follow the probe; and the same from the two modes alone (the line through the fast mode's and the slow
mode's medians), the figure models/profiles/hf-sdpa.yaml `new_kv_length_host_fixed_share` takes.

  python3 scripts/host-slope-fit.py traces/checks/host/h200/host_slope.jsonl.gz
"""
import gzip
import json
import math
import statistics as st
import sys


def die(msg):
    print("loom: " + msg, file=sys.stderr)  # one line and exit 2, as loom's own refusals
    sys.exit(2)


def number(row, key, where, positive):
    v = row[key]
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0 or (positive and v == 0):
        die("%s: '%s' = %r is not a %s number; give host_slope.py's output" % (where, key, v,
                                                                            "positive" if positive else "finite"))
    return v


def read(path):
    """host_slope.py's meta line and steps, each checked (line numbers are the file's)."""
    n = 0
    try:
        with gzip.open(path, "rt", encoding="utf-8") as f:
            rows = []
            for n, line in enumerate(f, 1):
                rows.append(json.loads(line))
        if not rows:
            raise ValueError("no lines")
        meta, steps = rows[0], rows[1:]
        n = 1
        _ = meta["launches"]
        number(meta, "probe_launches", "%s:1" % path, True)
        for n, r in enumerate(steps, 2):
            if not isinstance(r, dict) or not isinstance(r["cudnn"], bool):
                raise TypeError("a step is {cudnn: true|false, wall_us, probe_us}")
            number(r, "wall_us", "%s:%d" % (path, n), False)
            number(r, "probe_us", "%s:%d" % (path, n), True)
    except (OSError, EOFError, UnicodeDecodeError) as e:
        die("%s: cannot read (%s: %s); give host_slope.py's .jsonl.gz" % (path, type(e).__name__, e))
    except (ValueError, KeyError, IndexError, TypeError) as e:
        die("%s:%d: not a host_slope.py output (%s: %s); give its .jsonl.gz" % (path, max(n, 1), type(e).__name__, e))
    return meta, steps


def main():
    if len(sys.argv) != 2:
        die("usage: python3 scripts/host-slope-fit.py HOST_SLOPE.jsonl.gz; give the one file host_slope.py wrote")
    path = sys.argv[1]
    meta, steps = read(path)
    print("launches a step: %s; probe launches %d; %d steps" % (meta["launches"], meta["probe_launches"], len(steps)))
    pairs = []
    for a, b in zip(steps, steps[1:]):
        if a["cudnn"] and not b["cudnn"] and abs(a["probe_us"] - b["probe_us"]) < 0.1 * b["probe_us"]:
            pairs.append(((a["probe_us"] + b["probe_us"]) / 2, a["wall_us"] - b["wall_us"], b["wall_us"]))
    print("%d same-mode pairs of %d" % (len(pairs), len(steps) // 2))
    print("probe band   pairs  probe  off wall  off/probe  plan us  plan/probe")
    for lo, hi in ((0, 17), (17, 18), (18, 20), (20, 25), (25, 30), (30, 99)):
        sel = [p for p in pairs if lo <= p[0] < hi]
        if sel:
            pm = st.median(p[0] for p in sel)
            print("%5g-%-5g %6d %6.2f %9.0f %10.0f %8.0f %11.0f" % (
                lo, hi, len(sel), pm, st.median(p[2] for p in sel), st.median(p[2] / p[0] for p in sel),
                st.median(p[1] for p in sel), st.median(p[1] / p[0] for p in sel)))
    try:
        fit(path, pairs)
    except (ZeroDivisionError, st.StatisticsError) as e:  # degenerate pairs the checks in fit() did not foresee
        die("%s: the pairs admit no fit (%s); record a longer run across the host's modes" % (path, e))


def fit(path, pairs):
    x = [p[0] for p in pairs]
    y = [p[1] for p in pairs]
    # The fits need pairs at two probe levels (the host's fast and slow modes): with none, one or a single level the
    # least squares divided by zero and the mode medians had no data (tracebacks before round 15).
    if len(pairs) < 2 or len(set(x)) < 2:
        die("%s: %d same-mode pairs at %d probe level(s); the fit needs pairs at two or more (a longer run across the "
            "host's modes)" % (path, len(pairs), len(set(x))))
    mx, my = st.fmean(x), st.fmean(y)
    b = sum((u - mx) * (v - my) for u, v in zip(x, y)) / sum((u - mx) ** 2 for u in x)
    a = my - b * mx
    p0 = st.median(u for u in x if u < st.median(x))
    print("least squares: plan = %.0f + %.0f x probe (us); at the fast mode's probe p0 %.2f us: plan %.0f us, "
          "fixed share %.3f (the many fast-mode pairs set this line)" % (a, b, p0, a + b * p0, a / (a + b * p0)))
    # The host switches between modes, so what matters is how the plan moves from one mode to the other: the line
    # through the fast mode (pairs below the median probe) and the slow mode (probes over 1.3 p0), medians of each.
    fast = [p for p in pairs if p[0] < st.median(x)]
    slow = [p for p in pairs if p[0] > 1.3 * p0]
    if not fast or not slow:
        die("%s: the pairs show one host mode (%d below the median probe, %d above 1.3 x p0); the two-mode fit needs "
            "both: record across the host's slow mode too" % (path, len(fast), len(slow)))
    f0, f1 = st.median(p[0] for p in fast), st.median(p[1] for p in fast)
    s0, s1 = st.median(p[0] for p in slow), st.median(p[1] for p in slow)
    b2 = (s1 - f1) / (s0 - f0)
    a2 = f1 - b2 * f0
    print("two modes: fast %d pairs, probe %.2f, plan %.0f us; slow %d pairs, probe %.2f, plan %.0f us: "
          "plan = %.0f + %.0f x probe; fixed share at the fast mode %.3f (new_kv_length_host_fixed_share)"
          % (len(fast), f0, f1, len(slow), s0, s1, a2, b2, a2 / f1))


if __name__ == "__main__":
    main()
