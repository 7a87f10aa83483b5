"""Shared harness of loom's PyTorch sweeps: case-list writer (traces/FORMAT.md section 2), NVTX-wrapped timing,
L2 flush, green-context SM partitions and a wall-clock budget. Imported by the sweep and e2e scripts."""

import argparse
import contextlib
import datetime
import json
import os
import statistics
import sys
import time

import torch

# Memory-bound families whose specs take l2=warm (kernels/README.md).
WARM_FAMILIES = ("elementwise", "rms_norm", "layer_norm", "softmax", "rotary")

CASE_HEADER = "case_id,family,spec,impl,reps,event_median_us,event_p10_us,event_p90_us"


def sync():
    """Waits for the current stream (a green-context stream is not covered by a device sync) and the device."""
    torch.cuda.current_stream().synchronize()
    torch.cuda.synchronize()


class RepTimer:
    """Times one repetition with CUDA events on the current stream, or with the host clock around a synchronised
    region where events cannot be recorded on the stream (seen as a risk with green-context streams)."""

    def __init__(self, use_events=True):
        self.use_events = use_events

    def start(self):
        if self.use_events:
            self._s, self._e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            self._s.record()
        else:
            sync()
            self._t = time.perf_counter()

    def stop_us(self):
        """Call after the work was enqueued; synchronises and returns the elapsed microseconds."""
        if self.use_events:
            self._e.record()
            sync()
            return self._s.elapsed_time(self._e) * 1000.0
        sync()
        return (time.perf_counter() - self._t) * 1e6


def events_work():
    """True if CUDA events can be recorded and timed on the current stream."""
    try:
        t = RepTimer(True)
        t.start()
        torch.empty(1024, device="cuda").fill_(1)
        t.stop_us()
        return True
    except Exception as exc:  # noqa: BLE001
        print("loom_torch: CUDA events unusable on this stream (%s); timing with the host clock" % exc,
              file=sys.stderr)
        return False


def common_args(description):
    """Arguments every torch sweep takes."""
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--out", required=True, help="output prefix: writes PREFIX.cases.csv")
    p.add_argument("--sms", type=int, default=0, help="run on a green-context partition of N SMs (0 = all)")
    p.add_argument("--quick", action="store_true", help="a handful of cases (smoke test)")
    p.add_argument("--reps", type=int, default=10, help="timed repetitions per case (>= 7 for a median)")
    p.add_argument("--warmup", type=int, default=3, help="untimed launches per case, inside the case range")
    p.add_argument("--max-seconds", type=float, default=120.0, help="stop starting new cases after this")
    p.add_argument("--no-flush", action="store_true", help="do not flush L2 before each repetition")
    p.add_argument("--warm", action="store_true",
                   help="no flush, and memory-bound specs get l2=warm: each rep finds its inputs in L2 (written by "
                        "the previous rep), as a kernel in a model step finds what the kernel before it wrote")
    return p


def percentile(values, q):
    """Linear-interpolated percentile (q in 0..100) of a non-empty list."""
    v = sorted(values)
    if len(v) == 1:
        return v[0]
    pos = (len(v) - 1) * q / 100.0
    lo = int(pos)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (pos - lo)


def green_context_support():
    """(available, why) for torch.cuda.green_contexts on this install."""
    mod = getattr(torch.cuda, "green_contexts", None)
    if mod is None or not hasattr(mod, "GreenContext"):
        return False, "torch %s has no torch.cuda.green_contexts" % torch.__version__
    return True, "torch %s exposes torch.cuda.green_contexts.GreenContext" % torch.__version__


def partition_sm_count(num_sms):
    """SMs the driver really grants for a request of num_sms (it rounds up, e.g. 66 -> 72 on H200)."""
    try:
        from cuda.bindings import driver as drv  # shipped with torch's CUDA wheels (cuda-bindings)
        drv.cuInit(0)
        err, dev = drv.cuDeviceGet(torch.cuda.current_device())
        err, res = drv.cuDeviceGetDevResource(dev, drv.CUdevResourceType.CU_DEV_RESOURCE_TYPE_SM)
        out = drv.cuDevSmResourceSplitByCount(1, res, 0, num_sms)
        if int(out[0]) != 0:
            raise RuntimeError(str(out[0]))
        return int(out[1][0].sm.smCount), "driver"
    except Exception as exc:  # noqa: BLE001 - any failure: fall back to the rounding seen on H200
        print("loom_torch: SM count query failed (%s); assuming round-up to 8" % exc, file=sys.stderr)
        return min(-(-num_sms // 8) * 8, torch.cuda.get_device_properties(0).multi_processor_count), "guess"


class Partition:
    """Context manager: torch work inside runs on a green context of `num_sms` SMs (or the whole GPU if 0)."""

    def __init__(self, num_sms):
        total = torch.cuda.get_device_properties(0).multi_processor_count
        self.requested = num_sms
        self.sms = total
        self.source = "all"
        self._gc = None
        self._stream = None
        if num_sms and num_sms < total:
            ok, why = green_context_support()
            if not ok:
                raise RuntimeError("--sms %d needs green contexts: %s" % (num_sms, why))
            gc_cls = torch.cuda.green_contexts.GreenContext
            self._gc = gc_cls.create(num_sms=num_sms, device_id=torch.cuda.current_device())
            self.sms, self.source = partition_sm_count(num_sms)
            if hasattr(self._gc, "Stream"):
                self._stream = self._gc.Stream()

    @contextlib.contextmanager
    def active(self):
        if self._gc is None:
            yield
        elif self._stream is not None:
            with torch.cuda.stream(self._stream):
                yield
        else:  # torch 2.10-style API: the green context becomes current with its own stream
            self._gc.set_context()
            try:
                yield
            finally:
                self._gc.pop_context()


def partition_check(part):
    """Times a compute-bound bf16 matmul inside `part` and on the whole GPU: proves the partition is real."""
    a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)

    def timed():
        for _ in range(2):
            a @ b
        t = RepTimer(events_work())
        t.start()
        for _ in range(3):
            a @ b
        return t.stop_us() / 3000.0

    full_ms = timed()
    with part.active():
        part_ms = timed()
    return full_ms, part_ms


def kernels_of(fn):
    """GPU kernels one call of fn launches (torch profiler; memcpy/memset not counted). 0 under loom's collector,
    where the torch profiler cannot attach to CUPTI."""
    if os.environ.get("CUDA_INJECTION64_PATH"):
        return 0
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        fn()
        torch.cuda.synchronize()
    return sum(1 for e in prof.profiler.kineto_results.events()
               if e.device_type() == torch.autograd.DeviceType.CUDA
               and "memcpy" not in e.name().lower() and "memset" not in e.name().lower())


def device_meta():
    """Case-list metadata of the device (FORMAT.md section 2 keys)."""
    props = torch.cuda.get_device_properties(0)
    clock_mhz = 0
    try:
        from cuda.bindings import driver as drv
        err, dev = drv.cuDeviceGet(0)
        err, khz = drv.cuDeviceGetAttribute(drv.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_CLOCK_RATE, dev)
        clock_mhz = int(khz) // 1000
        err, driver = drv.cuDriverGetVersion()
    except Exception:  # noqa: BLE001
        driver = 0
    return {
        "gpu": props.name,
        "sms_total": props.multi_processor_count,
        "driver": driver,
        "cuda": torch.version.cuda,
        "clock_mhz": clock_mhz,
        "l2_bytes": getattr(props, "L2_cache_size", 0),
        "torch": torch.__version__,
    }


class CaseList:
    """Writes PREFIX.cases.csv row by row (flushed, so a killed sweep keeps its finished cases)."""

    def __init__(self, prefix, tool, sms, extra=None):
        self.path = prefix + ".cases.csv"
        os.makedirs(os.path.dirname(os.path.abspath(self.path)), exist_ok=True)
        self.f = open(self.path, "w")
        meta = device_meta()
        meta.update({"sms": sms, "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
                     "command": " ".join(sys.argv), "tool": tool,
                     "timing": "cuda events per rep; sync before each loom.rep pop; median over reps"})
        meta.update(extra or {})
        self.f.write("#loom-bench 1\n")
        for k, v in meta.items():
            text = v if isinstance(v, str) else json.dumps(v, separators=(",", ":"))
            self.f.write("#%s=%s\n" % (k, text.replace("\n", " ")))
        self.f.write(CASE_HEADER + "\n")
        self.f.flush()
        self.next_id = 0
        self.rows = 0

    def new_id(self):
        self.next_id += 1
        return self.next_id

    def add(self, case_id, family, spec, impl, times_us):
        spec_field = '"%s"' % spec if "," in spec else spec
        self.f.write("%d,%s,%s,%s,%d,%.3f,%.3f,%.3f\n" % (
            case_id, family, spec_field, impl, len(times_us), statistics.median(times_us),
            percentile(times_us, 10), percentile(times_us, 90)))
        self.f.flush()
        self.rows += 1

    def close(self):
        self.f.close()


class Sweep:
    """Runs cases with loom's NVTX protocol: loom.case=<id> around warm-up + reps, loom.rep around each timed rep.
    Each rep is synchronised before its range is popped, so every kernel of the rep runs inside the range's
    CPU-clock interval (CUPTI puts kernel and NVTX timestamps on one clock)."""

    def __init__(self, args, tool, extra=None):
        self.args = args
        self.t0 = time.time()
        torch.cuda.init()
        self.part = Partition(args.sms)
        meta = {"sms_requested": args.sms or self.part.sms, "sms_source": self.part.source}
        with self.part.active():
            self.timer = RepTimer(events_work())
        meta["event_timing"] = "cuda_events" if self.timer.use_events else "host_clock"
        if self.part._gc is not None:
            full_ms, part_ms = partition_check(self.part)
            meta["partition_check"] = "8192^3 bf16 matmul %.3f ms on all SMs, %.3f ms on %d SMs" % (
                full_ms, part_ms, self.part.sms)
            print("partition check: %s" % meta["partition_check"], flush=True)
        if getattr(args, "warm", False):
            args.no_flush = True
        meta["flush"] = "none" if args.no_flush else "read"
        meta.update(extra or {})
        self.cases = CaseList(args.out, tool, self.part.sms, meta)
        # L2 flush by *reading* 2x L2 bytes of a buffer written once (a sum into one scalar): it evicts the
        # previous rep's lines and leaves L2 clean. Flushing by writing (fill_) left L2 full of dirty lines whose
        # write-back the timed kernel then paid (scripts/torch/context_check.py: +3 us on a 1x2048x8192 GEMV on
        # H200). Sweeps before Nov 22 2026 flushed by writing; the case list says which (`flush`).
        flush_bytes = 2 * max(torch.cuda.get_device_properties(0).L2_cache_size, 16 << 20)
        self.flush_buf = None if args.no_flush else torch.ones(flush_bytes // 4, device="cuda", dtype=torch.float32)
        self.flush_sink = torch.empty((), device="cuda", dtype=torch.float32)
        self.failed = 0
        self.skipped_budget = 0

    def out_of_time(self):
        return time.time() - self.t0 > self.args.max_seconds

    def flush_l2(self):
        if self.flush_buf is not None:
            torch.sum(self.flush_buf, dim=0, out=self.flush_sink)  # reads 2x L2 bytes: L2 ends clean

    def run(self, family, spec, impl, fn, reps=None):
        """Times fn() (which launches the case's GPU work); returns the case id or None if skipped/failed."""
        if self.out_of_time():
            self.skipped_budget += 1
            return None
        reps = reps or self.args.reps
        if getattr(self.args, "warm", False) and family in WARM_FAMILIES:
            spec += " l2=warm"
        case_id = self.cases.new_id()
        nvtx = torch.cuda.nvtx
        depth = 0
        try:
            with self.part.active():
                sync()
                nvtx.range_push("loom.case=%d" % case_id)
                depth += 1
                for _ in range(self.args.warmup):
                    fn()
                times_us = []
                for _ in range(reps):
                    self.flush_l2()
                    sync()
                    nvtx.range_push("loom.rep")
                    depth += 1
                    self.timer.start()
                    fn()
                    us = self.timer.stop_us()  # synchronises: the rep's kernels end inside the range
                    nvtx.range_pop()
                    depth -= 1
                    times_us.append(us)
                nvtx.range_pop()
                depth -= 1
        except Exception as exc:  # noqa: BLE001 - a failing case is logged and skipped, the sweep goes on
            for _ in range(depth):
                nvtx.range_pop()
            try:
                sync()
            except Exception:  # noqa: BLE001
                pass
            self.failed += 1
            print("case %d (%s) FAILED: %s" % (case_id, spec, (str(exc).splitlines() or ["?"])[0][:200]), flush=True)
            return None
        # Cool-down: idle 3x (args.cool, if set) the case's GPU time (at most 50 ms) so heavy cases back to back do not
        # push the GPU into its power limit (an H200 drops to ~1470 MHz after seconds of sustained GEMMs;
        # traces/checks/).
        cool = getattr(self.args, "cool", 3.0)
        time.sleep(min(0.05, cool * 1e-6 * sum(times_us) * (reps + self.args.warmup) / reps))
        self.cases.add(case_id, family, spec, impl, times_us)
        if self.cases.rows % 25 == 0:
            print("  %d cases, %.0f s" % (self.cases.rows, time.time() - self.t0), flush=True)
        return case_id

    def finish(self):
        self.cases.close()
        print("%s: %d cases written to %s, %d failed, %d skipped (time budget), %.1f s" % (
            os.path.basename(sys.argv[0]), self.cases.rows, self.cases.path, self.failed, self.skipped_budget,
            time.time() - self.t0), flush=True)
        return 0 if self.cases.rows > 0 else 1
