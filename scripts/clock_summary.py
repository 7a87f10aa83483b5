"""Summarises scripts/torch/clock_load.py runs (traces/checks/clock/<gpu>/): per load, the launch time while the
SM clock is still at boost (the first 50 ms window), the steady launch time
(the last 5 s), their ratio, and the steady SM clock and power. Prints a table; --json writes it.

  /usr/bin/python3 scripts/clock_summary.py traces/checks/clock/h200 [--json OUT]
"""
import csv
import gzip
import json
import os
import statistics
import sys


def rows(path):
    with gzip.open(path, "rt") as f:
        return list(csv.DictReader(f))


def summarise(d):
    S, I = rows(d + "/clock_samples.csv.gz"), rows(d + "/clock_iters.csv.gz")
    out = {}
    for load in dict.fromkeys(r["load"] for r in I):
        s = [r for r in S if r["load"] == load and float(r["sm_mhz"]) > 0]
        it = [(float(r["t_s"]), float(r["iter_us"])) for r in I if r["load"] == load]
        t_throttle = next((float(r["t_s"]) for r in s if r["reasons"] not in ("0", "-1")), None)
        # The boost reference: the first 50 ms window (NVML's 20 ms samples show the clock leaving 1980 MHz within
        # 40-140 ms of a heavy load's start, so later windows already mix in the throttled clock).
        boost = [it[0][1]]
        end = it[-1][0]
        steady = [us for t, us in it if t >= end - 5.0]
        tail = [r for r in s if float(r["t_s"]) >= float(s[-1]["t_s"]) - 5.0]
        out[load] = {
            "boost_us": round(statistics.median(boost), 2) if boost else None,
                        "steady_us": round(statistics.median(steady), 2),
            "slowdown": round(statistics.median(steady) / statistics.median(boost), 4) if boost else None,
            "throttle_after_s": round(t_throttle - float(s[0]["t_s"]), 3) if t_throttle else None,
            "steady_sm_mhz": statistics.median(float(r["sm_mhz"]) for r in tail),
            "steady_power_w": round(statistics.median(float(r["power_w"]) for r in tail)),
            "power_limit_w": float(tail[-1]["power_limit_w"]),
        }
    return out


def main():
    if len(sys.argv) < 2 or sys.argv[1].startswith("-"):
        raise ValueError("usage: scripts/clock_summary.py RUN_DIR [--json OUT]")
    d = sys.argv[1]
    out = None
    if "--json" in sys.argv:  # checked before the work: no value is a usage error, not an IndexError
        at = sys.argv.index("--json") + 1
        if at >= len(sys.argv) or not sys.argv[at] or sys.argv[at].startswith("-"):
            raise ValueError("--json: give the output file's name")
        out = sys.argv[at]
    try:
        res = summarise(d)
    except (KeyError, IndexError) as e:  # a column or the samples of a load missing
        raise ValueError("%s: clock_samples/clock_iters lack %s; is this a clock_load.py run?" % (d, e)) from None
    if not res:
        raise ValueError("%s: no loads in clock_iters.csv.gz" % d)
    print("%-10s %10s %10s %8s %10s %9s %7s" % ("load", "boost us", "steady us", "ratio", "throttle s", "SM MHz", "W"))
    for k, v in res.items():
        print("%-10s %10s %10.1f %8s %10s %9.0f %7d" % (k, v["boost_us"], v["steady_us"], v["slowdown"],
                                                        v["throttle_after_s"], v["steady_sm_mhz"], v["steady_power_w"]))
    if out:
        with open(out, "w") as f:
            json.dump(res, f, indent=1)


if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "torch"))
    import lct_check  # noqa: E402  (its one-line error guard)
    sys.exit(lct_check.guarded(main))
