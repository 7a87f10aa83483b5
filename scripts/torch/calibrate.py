"""Calibration run (issue 11 item 3): what a GPU's datasheet gets wrong, measured in about a minute on any CUDA GPU
with PyTorch; `loom calibrate RESULT.json --gpu KEY -o my-gpu.yaml` turns it into a catalogue overlay.

  python3 scripts/torch/calibrate.py --out result.json [--seconds 3] [--sms N]

Measures (CUDA events; NVML for clocks and power when nvidia-ml-py is there):
  tensor      8192^3 GEMMs per dtype (bf16, fp16, tf32, fp8 e4m3 via torch._scaled_mm): FLOP/s from a cool start (the
              first launches) and after --seconds of back-to-back load (the last second), with the SM clock, power and
              power limit then, and how soon the clock left its maximum
  dram        a 4 GiB read (sum) and a 2 GiB copy: achievable bytes/s
  launch      back-to-back tiny kernels: per-launch time on the GPU when the host runs ahead (stream) and inside a
              CUDA graph (graph gap)
  host_cost   host time a launch of an eager tiny-model forward (host_cost.py): the host's speed for eager PyTorch
With --sms N the GEMM and memory runs go through a green-context partition of N SMs (loom_torch.Partition).
"""

import argparse
import datetime
import json
import os
import socket
import statistics
import sys
import threading
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import loom_torch  # noqa: E402
from host_cost import host_cost  # noqa: E402

try:
    import pynvml
except ImportError:
    pynvml = None


class Nvml:
    """20 ms samples of SM clock, power and power limit (empty when NVML is missing)."""

    def __init__(self):
        self.rows, self.stop, self.h = [], False, None
        if pynvml is None:
            return
        try:
            pynvml.nvmlInit()
            self.h = pynvml.nvmlDeviceGetHandleByIndex(torch.cuda.current_device())
        except Exception:  # noqa: BLE001
            self.h = None
        self.t = threading.Thread(target=self.run, daemon=True)
        self.t.start()

    def run(self):
        while not self.stop and self.h is not None:
            try:
                self.rows.append((time.time(), pynvml.nvmlDeviceGetClockInfo(self.h, pynvml.NVML_CLOCK_SM),
                                  pynvml.nvmlDeviceGetPowerUsage(self.h) / 1e3,
                                  pynvml.nvmlDeviceGetEnforcedPowerLimit(self.h) / 1e3))
            except Exception:  # noqa: BLE001
                pass
            time.sleep(0.02)

    def window(self, t0, t1):
        return [r for r in self.rows if t0 <= r[0] <= t1]


def timed(fn, n=1):
    e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    e0.record()
    for _ in range(n):
        fn()
    e1.record()
    e1.synchronize()
    return e0.elapsed_time(e1) * 1e3 / n  # us per call


def tensor_rates(seconds, nvml):
    n = 8192
    a = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    cases = {"bf16": (lambda: a @ b), "fp16": None, "tf32": None, "fp8": None}
    a16, b16 = a.half(), b.half()
    cases["fp16"] = lambda: a16 @ b16
    a32, b32 = a.float(), b.float()

    def tf32():
        torch.backends.cuda.matmul.allow_tf32 = True
        return a32 @ b32
    cases["tf32"] = tf32
    try:
        a8, b8 = a.to(torch.float8_e4m3fn), b.t().contiguous().to(torch.float8_e4m3fn).t()
        one = torch.ones((), device="cuda")
        cases["fp8"] = lambda: torch._scaled_mm(a8, b8, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
        cases["fp8"]()
    except Exception as exc:  # noqa: BLE001 - no fp8 tensor cores (pre-Hopper/Ada)
        print("fp8: skipped (%s)" % str(exc).splitlines()[0][:100], flush=True)
        cases.pop("fp8")
    out = {}
    flop = 2.0 * n ** 3
    for name, fn in cases.items():
        time.sleep(2.0)  # cool down: the power-capped clock recovers within ~0.2 s of idle
        # An idle GPU parks its clock low: a few launches (~5-10 ms) bring it to its maximum, and the power cap
        # pulls it down only after 0.06-0.16 s of load (traces/checks/clock), so the next 4 launches run cool.
        for _ in range(3):
            fn()
        torch.cuda.synchronize()
        cool = timed(fn, 4)
        t0 = time.time()
        times = []
        while time.time() - t0 < seconds:
            times.append((time.time(), timed(fn, 4)))
        t1 = time.time()
        steady = statistics.median(us for t, us in times if t >= t1 - 1.0)
        samples = nvml.window(t0, t1)
        tail = [r for r in samples if r[0] >= t1 - 1.0]
        top = max((r[1] for r in nvml.rows), default=0)
        left = next((r[0] - t0 for r in samples if r[1] < top), None)
        out[name] = {"cool_us": round(cool, 2), "sustained_us": round(steady, 2),
                     "cool_tflops": round(flop / cool / 1e6, 1), "sustained_tflops": round(flop / steady / 1e6, 1),
                     "slowdown": round(steady / cool, 4),
                     "sustained_sm_mhz": statistics.median(r[1] for r in tail) if tail else None,
                     "max_sm_mhz": top or None,
                     "power_w": round(statistics.median(r[2] for r in tail)) if tail else None,
                     "power_limit_w": tail[-1][3] if tail else None,
                     "clock_left_max_after_s": round(left, 3) if left is not None else None}
        print("tensor %s: %.0f -> %.0f TFLOPS (x%.3f), %s MHz, %s W" % (
            name, out[name]["cool_tflops"], out[name]["sustained_tflops"], out[name]["slowdown"],
            out[name]["sustained_sm_mhz"], out[name]["power_w"]), flush=True)
    return out


def memory_rates():
    props = torch.cuda.get_device_properties(0)
    l2 = props.L2_cache_size
    big = torch.empty(1 << 30, device="cuda", dtype=torch.float32)  # 4 GiB
    big.fill_(1)
    sink = torch.empty((), device="cuda")
    read_us = min(timed(lambda: torch.sum(big, dim=0, out=sink)) for _ in range(5))
    src = big[: 1 << 28]
    dst = torch.empty_like(src)
    copy_us = min(timed(lambda: dst.copy_(src)) for _ in range(5))
    out = {"dram_read_bytes_per_s": (1 << 32) / read_us * 1e6,
           "dram_copy_bytes_per_s": 2 * (1 << 30) / copy_us * 1e6,  # 1 GiB read + 1 GiB written
           "l2_bytes": l2}
    # L2 bandwidth is not measured here: PyTorch's kernels over an L2-sized buffer are bound by their launch and
    # reduction tails (0.75 TB/s on an H100), far below what a dedicated read loop reaches (bench/check_memory.cu).
    print("dram read %.2f TB/s, copy %.2f TB/s" % (out["dram_read_bytes_per_s"] / 1e12,
                                                    out["dram_copy_bytes_per_s"] / 1e12), flush=True)
    return out


def launch_costs():
    x = torch.zeros(1, device="cuda")
    n = 2000
    stream_us = min(timed(lambda: x.add_(1), n) for _ in range(3))
    g = torch.cuda.CUDAGraph()
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        x.add_(1)
    torch.cuda.current_stream().wait_stream(s)
    with torch.cuda.graph(g):
        for _ in range(200):
            x.add_(1)
    g.replay()
    graph_us = min(timed(g.replay) for _ in range(5)) / 200
    print("launch: %.2f us per kernel back to back, %.2f us inside a CUDA graph" % (stream_us, graph_us), flush=True)
    return {"stream_us_per_kernel": stream_us, "graph_us_per_kernel": graph_us}


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", required=True)
    p.add_argument("--seconds", type=float, default=3.0, help="sustained GEMM load per dtype")
    p.add_argument("--sms", type=int, default=0, help="green-context partition of N SMs (0 = all)")
    a = p.parse_args()
    t0 = time.time()
    torch.cuda.init()
    part = loom_torch.Partition(a.sms)
    nvml = Nvml()
    meta = loom_torch.device_meta()
    res = {"schema": "loom.calibration/1", "host": socket.gethostname(),
           "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
           "device": meta, "sms": part.sms, "sms_source": part.source, "command": " ".join(sys.argv),
           "nvml": pynvml is not None and nvml.h is not None}
    res["host_cost"] = host_cost()
    with part.active():
        res["launch"] = launch_costs()
        res["memory"] = memory_rates()
        res["tensor"] = tensor_rates(a.seconds, nvml)
    nvml.stop = True
    res["seconds"] = round(time.time() - t0, 1)
    with open(a.out, "w") as f:
        json.dump(res, f, indent=1)
    print("calibrate: %s in %.0f s" % (a.out, res["seconds"]), flush=True)


if __name__ == "__main__":
    main()
