"""How the L2 flush before each timed repetition biases a measurement. The corpus sweeps used to flush by
*writing* 2-2.5x L2 bytes, which leaves L2 full of dirty lines: the timed kernel then pays their write-back to
DRAM as it brings its own data in. This script times the same kernels after a write flush, after a read flush
(a reduction over a separate buffer: L2 ends up clean) and with no flush (warm L2), so the difference is visible.

  python3 scripts/torch/flush_check.py [--reps 20]      # prints a table; --json PATH writes the numbers
"""

import argparse
import json
import statistics

import torch


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--reps", type=int, default=20)
    p.add_argument("--json", default="")
    args = p.parse_args()
    props = torch.cuda.get_device_properties(0)
    n = 5 * props.L2_cache_size // 2 // 4
    wbuf = torch.empty(n, device="cuda", dtype=torch.float32)
    rbuf = torch.ones(n, device="cuda", dtype=torch.float32)
    sink = torch.empty(1, device="cuda", dtype=torch.float32)

    def flush_write():
        wbuf.fill_(1.0)

    def flush_read():
        torch.sum(rbuf, dim=0, out=sink)

    def flush_write_then_read():
        wbuf.fill_(1.0)
        torch.sum(rbuf, dim=0, out=sink)

    bf = torch.bfloat16
    cases = []
    for m, nn, k in [(4096, 2048, 8192), (4096, 8192, 2048), (4096, 2048, 2048), (1, 2048, 8192), (1, 8192, 2048),
                     (1, 2048, 2048), (1, 512, 2048), (1, 128256, 2048), (64, 8192, 2048), (8192, 8192, 8192)]:
        a = torch.randn(m, k, device="cuda", dtype=bf)
        w = torch.randn(nn, k, device="cuda", dtype=bf)
        cases.append(("gemm m=%d n=%d k=%d" % (m, nn, k), (lambda a=a, w=w: torch.nn.functional.linear(a, w))))
    for rows, cols in [(4096, 8192), (1, 8192), (65536, 2048)]:
        x = torch.randn(rows, cols, device="cuda", dtype=bf)
        y = torch.randn(rows, cols, device="cuda", dtype=bf)
        cases.append(("add rows=%d cols=%d" % (rows, cols), (lambda x=x, y=y: x + y)))
    modes = {"write": flush_write, "read": flush_read, "write+read": flush_write_then_read, "none": None}
    out = []
    print("%-28s %10s %10s %10s %10s" % ("case (median us)", *modes.keys()), flush=True)
    for name, fn in cases:
        row = {"case": name}
        for mode, flush in modes.items():
            for _ in range(3):
                fn()
            ts = []
            for _ in range(args.reps):
                if flush:
                    flush()
                torch.cuda.synchronize()
                s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                s.record()
                fn()
                e.record()
                e.synchronize()
                ts.append(s.elapsed_time(e) * 1000.0)
            row[mode] = statistics.median(ts)
        out.append(row)
        print("%-28s %10.2f %10.2f %10.2f %10.2f" % (name, *[row[m] for m in modes]), flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"gpu": props.name, "rows": out}, f, indent=1)


if __name__ == "__main__":
    main()
