"""SM clock, power and kernel speed under sustained load (issue 12, item 5). Each load runs back to back for
--seconds, then the GPU idles --idle seconds; a thread samples NVML every 20 ms (SM and memory clock, power, power
limit, temperature, clock-event reasons) while CUDA events time every launch. Loads:

  gemm_bf16   8192^3 bf16 matmul (tensor cores, the heaviest steady load)
  gemm_fp8    8192^3 fp8 e4m3 torch._scaled_mm, per-tensor scales
  prefill     a Llama-8B-like layer mix at 4096 tokens: 4096x14336x4096 GEMM, silu*mul, rms_norm, 4096x4096x14336
  decode      32x8192x8192 bf16 matmul (small-M, memory-bound weights stream)
  memory      2 GiB device-to-device copy (DRAM bound)

  python3 scripts/torch/clock_load.py --out DIR [--seconds 12] [--idle 8]

Writes DIR/clock_samples.csv (load, t_s, sm_mhz, mem_mhz, power_w, power_limit_w, temp_c, reasons) and
DIR/clock_iters.csv (load, t_s, iter_us: the median launch time of each 50 ms window), and prints a summary.
"""

import argparse
import csv
import os
import statistics
import threading
import time

import torch

try:
    import pynvml
except ImportError:  # nvidia-ml-py
    pynvml = None


class Sampler(threading.Thread):
    def __init__(self, dev_index, period=0.02):
        super().__init__(daemon=True)
        pynvml.nvmlInit()
        self.h = pynvml.nvmlDeviceGetHandleByIndex(dev_index)
        self.period, self.rows, self.load, self.t0 = period, [], "idle", time.time()
        self.stop_flag = False

    def reasons(self):
        for fn in ("nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons"):
            if hasattr(pynvml, fn):
                try:
                    return int(getattr(pynvml, fn)(self.h))
                except pynvml.NVMLError:
                    pass
        return -1

    def run(self):
        h = self.h
        while not self.stop_flag:
            try:
                self.rows.append((self.load, time.time() - self.t0,
                                  pynvml.nvmlDeviceGetClockInfo(h, pynvml.NVML_CLOCK_SM),
                                  pynvml.nvmlDeviceGetClockInfo(h, pynvml.NVML_CLOCK_MEM),
                                  pynvml.nvmlDeviceGetPowerUsage(h) / 1000.0,
                                  pynvml.nvmlDeviceGetEnforcedPowerLimit(h) / 1000.0,
                                  pynvml.nvmlDeviceGetTemperature(h, pynvml.NVML_TEMPERATURE_GPU), self.reasons()))
            except pynvml.NVMLError as exc:
                self.rows.append((self.load, time.time() - self.t0, -1, -1, -1, -1, -1, str(exc)[:40]))
            time.sleep(self.period)


def loads():
    bf = torch.bfloat16
    a = torch.randn(8192, 8192, device="cuda", dtype=bf)
    b = torch.randn(8192, 8192, device="cuda", dtype=bf)
    out = {"gemm_bf16": lambda: a @ b}
    try:
        a8, b8 = a.to(torch.float8_e4m3fn), b.t().contiguous().to(torch.float8_e4m3fn).t()
        one = torch.ones((), device="cuda")
        out["gemm_fp8"] = lambda: torch._scaled_mm(a8, b8, scale_a=one, scale_b=one, out_dtype=bf)
    except Exception as exc:  # noqa: BLE001
        print("fp8 load unavailable: %s" % exc, flush=True)
    x = torch.randn(4096, 4096, device="cuda", dtype=bf)
    wg = torch.randn(14336 * 2, 4096, device="cuda", dtype=bf) * 0.02
    wd = torch.randn(4096, 14336, device="cuda", dtype=bf) * 0.02
    nw = torch.ones(4096, device="cuda", dtype=bf)
    F = torch.nn.functional

    def prefill():
        h = F.rms_norm(x, (4096,), nw, 1e-5)
        gu = F.linear(h, wg)
        g, u = gu.chunk(2, dim=-1)
        return F.linear(F.silu(g) * u, wd)
    out["prefill"] = prefill
    d = torch.randn(32, 8192, device="cuda", dtype=bf)
    out["decode"] = lambda: d @ b
    src = torch.empty(1 << 30, device="cuda", dtype=bf)
    dst = torch.empty_like(src)
    out["memory"] = lambda: dst.copy_(src)
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", required=True)
    p.add_argument("--seconds", type=float, default=12.0)
    p.add_argument("--idle", type=float, default=8.0)
    p.add_argument("--only", default="", help="comma-separated load names")
    a = p.parse_args()
    if pynvml is None:
        raise SystemExit("clock_load.py: needs nvidia-ml-py (import pynvml)")
    os.makedirs(a.out, exist_ok=True)
    dev = torch.cuda.current_device()
    L = loads()
    names = [n for n in L if not a.only or n in a.only.split(",")]
    s = Sampler(dev)
    s.start()
    time.sleep(a.idle)  # a cool start
    iters = []
    summary = []
    for name in names:
        fn = L[name]
        for _ in range(3):
            fn()
        torch.cuda.synchronize()
        s.load = name
        t_start = time.time()
        ev = []
        while time.time() - t_start < a.seconds:
            batch = []
            for _ in range(8):
                e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                e0.record()
                fn()
                e1.record()
                batch.append((e0, e1))
            batch[-1][1].synchronize()
            now = time.time() - s.t0
            ev.extend((now, x.elapsed_time(y) * 1000.0) for x, y in batch)
        s.load = "idle_after_" + name
        # 50 ms windows: median launch time.
        win = {}
        for t, us in ev:
            win.setdefault(int(t / 0.05), []).append(us)
        rows = [(name, k * 0.05, statistics.median(v)) for k, v in sorted(win.items())]
        iters.extend(rows)
        first = statistics.median([r[2] for r in rows[:4]])
        last = statistics.median([r[2] for r in rows[-20:]])
        samp = [r for r in s.rows if r[0] == name and r[2] > 0]
        tail = [r for r in samp if r[1] > samp[-1][1] - 1.0] if samp else []
        summary.append((name, first, last, statistics.median([r[2] for r in tail]) if tail else -1,
                        statistics.median([r[4] for r in tail]) if tail else -1, max((r[2] for r in samp), default=-1)))
        time.sleep(a.idle)
    s.stop_flag = True
    s.join()
    with open(os.path.join(a.out, "clock_samples.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["load", "t_s", "sm_mhz", "mem_mhz", "power_w", "power_limit_w", "temp_c", "reasons"])
        for r in s.rows:
            w.writerow([r[0], "%.3f" % r[1]] + list(r[2:]))
    with open(os.path.join(a.out, "clock_iters.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["load", "t_s", "iter_us"])
        for r in iters:
            w.writerow([r[0], "%.3f" % r[1], "%.2f" % r[2]])
    print("%s: load, first-window us, last-second us (slowdown), SM MHz last second (max), W last second" %
          torch.cuda.get_device_name(dev))
    for name, first, last, mhz, watt, mx in summary:
        print("  %-10s %10.1f %10.1f (x%.3f)  %6.0f MHz (%d)  %5.0f W" % (name, first, last, last / first, mhz, mx,
                                                                          watt))


if __name__ == "__main__":
    main()
