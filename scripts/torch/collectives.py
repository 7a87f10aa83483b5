"""Collective sweep on one node (issue 11): NCCL all_reduce / all_gather / reduce_scatter, NCCL send/recv between
ranks 0 and 1 (a pipeline stage transfer; 2-GPU runs) and PyTorch's symmetric-memory one-shot and two-shot
all-reduce (the custom kernels serving engines run for small messages; SGLang calls these very ops), every GPU of
the node one process, launched by torchrun:

  torchrun --nproc_per_node 2 scripts/torch/collectives.py --out DIR [--ops all_reduce,all_gather,send_recv,symm]

Timing protocol (Vidur's collective profiler, which PipeWeave used too, so the rows import with the same reader):
per (op, size) 3 runs; a run is a GPU spin (so the host queues the launches ahead of the GPU) then 11 launches back
to back; each launch's kernel time comes from the torch profiler (CUPTI activity records); a run's value is the
median of its 11 kernels (the first absorbs the ranks' start skew), the row holds min/max/mean/median over runs.
Each rank writes DIR/rank<r>.csv as it goes (op, impl, dtype, bytes, gpus, rank, three run medians in us, kernel);
at the end rank 0 writes DIR/all_reduce.csv, the NCCL fp16 all_reduce rows in Vidur's column layout
(loom trace import --from vidur --gpu KEY); `--convert --out DIR` redoes that from rank0.csv alone.
NVLink multicast stays off (NCCL_NVLS_ENABLE=0, TORCH_SYMM_MEM_DISABLE_MULTICAST=1): the lent machines forbid it.
"""

import argparse
import csv
import os
import statistics
import sys
import time

import torch
import torch.distributed as dist

for k, v in (("NCCL_NVLS_ENABLE", "0"), ("TORCH_SYMM_MEM_DISABLE_MULTICAST", "1"), ("NVSHMEM_DISABLE_NVLS", "1")):
    if os.environ.get(k) != v:
        sys.exit("collectives.py: %s must be %s (NVLink multicast stays off)" % (k, v))

LAUNCHES, RUNS, WARMUP = 11, 3, 5
SPIN_CYCLES = 4_000_000  # ~2 ms at 1.98 GHz: longer than the host needs to queue 11 launches


def sizes(lo_log2, hi_log2, per_octave, align):
    out = set()
    for i in range((hi_log2 - lo_log2) * per_octave + 1):
        b = int(round(2 ** (lo_log2 + i / per_octave) / align)) * align
        out.add(max(align, b))
    return sorted(out)


def kernel_times(prof):
    """(name, start_ns, duration_us) of every profiled GPU kernel, by start."""
    rows = []
    try:
        for e in prof.profiler.kineto_results.events():
            if e.device_type() == torch.autograd.DeviceType.CUDA:
                rows.append((e.name(), e.start_ns(), e.duration_ns() / 1000.0))
    except AttributeError:  # older/newer profiler API: the FunctionEvent list
        for e in prof.events():
            if e.device_type == torch.autograd.DeviceType.CUDA:
                rows.append((e.name, int(e.time_range.start * 1000), e.time_range.elapsed_us()))
    rows.sort(key=lambda r: r[1])
    return rows


def pick(ks, pattern):
    """The kernels of the measured op: names matching a pattern (case-insensitive); failing the expected count,
    every kernel but the spin."""
    want = RUNS * LAUNCHES
    hit = [k for k in ks if any(p in k[0].lower() for p in pattern)]
    if len(hit) != want:
        rest = [k for k in ks if "spin" not in k[0].lower() and "sleep" not in k[0].lower()]
        if len(rest) == want:
            return rest
        raise RuntimeError("expected %d kernels matching %s, profiled %d (%s)" % (
            want, pattern, len(hit), sorted({k[0][:60] for k in ks})))
    return hit


def measure(fn, pattern, cpu_group):
    """Run medians (us) of fn's kernels: RUNS runs of LAUNCHES launches, each run behind a GPU spin. Barriers go
    through a gloo group, so no NCCL kernel but the measured ones runs inside the profile."""
    for _ in range(WARMUP):
        fn()
    torch.cuda.synchronize()
    dist.barrier(group=cpu_group)
    acts = [torch.profiler.ProfilerActivity.CUDA]
    with torch.profiler.profile(activities=acts) as prof:
        for _ in range(RUNS):
            dist.barrier(group=cpu_group)
            torch.cuda._sleep(SPIN_CYCLES)
            for _ in range(LAUNCHES):
                fn()
            torch.cuda.synchronize()
    ks = pick(kernel_times(prof), pattern)
    med = [statistics.median(k[2] for k in ks[r * LAUNCHES:(r + 1) * LAUNCHES]) for r in range(RUNS)]
    return med, ks[0][0]


def convert(d):
    """DIR/rank0.csv -> DIR/all_reduce.csv in Vidur's collective layout (vidur/profiling/collectives: index column,
    time_stats.<op>.{min,max,mean,median,std} in ms, then the profiling parameters): NCCL fp16 rows only."""
    with open(os.path.join(d, "rank0.csv")) as f:
        rows = list(csv.DictReader(f))
    with open(os.path.join(d, "all_reduce.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow([""] + ["time_stats.all_reduce." + k for k in ("min", "max", "mean", "median", "std")] +
                   ["rank", "num_workers", "size", "collective", "devices_per_node", "max_devices_per_node"])
        i = 0
        for r in rows:
            if r["op"] != "all_reduce" or r["impl"] != "nccl" or r["dtype"] != "float16":
                continue
            ms = [float(r["run%d_us" % j]) / 1000.0 for j in (1, 2, 3)]
            g = int(r["gpus"])
            w.writerow([i, min(ms), max(ms), statistics.mean(ms), statistics.median(ms), statistics.pstdev(ms), 0, g,
                        int(r["bytes"]), "all_reduce", g, g])
            i += 1
    return i


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", required=True, help="output folder")
    p.add_argument("--max-log2", type=int, default=30, help="largest NCCL message, log2 bytes")
    p.add_argument("--symm-max-log2", type=int, default=28, help="largest symmetric-memory message, log2 bytes")
    p.add_argument("--max-seconds", type=float, default=400, help="rank 0 stops starting new points after this")
    p.add_argument("--convert", action="store_true", help="only rewrite OUT/rank0.csv as OUT/all_reduce.csv")
    p.add_argument("--ops", default="all_reduce,all_gather,symm",
                   help="what to sweep: all_reduce, all_gather (with reduce_scatter), send_recv, symm")
    a = p.parse_args()
    ops = set(a.ops.split(","))
    if ops - {"all_reduce", "all_gather", "send_recv", "symm"}:
        sys.exit("collectives.py: --ops: unknown %s" % ",".join(sorted(ops - {"all_reduce", "all_gather", "send_recv",
                                                                            "symm"})))
    if a.convert:
        print("%d rows -> %s" % (convert(a.out), os.path.join(a.out, "all_reduce.csv")))
        return
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    local = int(os.environ.get("LOCAL_RANK", rank))
    torch.cuda.set_device(local)
    dev = torch.device("cuda", local)
    dist.init_process_group("nccl", device_id=dev)
    group = dist.group.WORLD
    cpu_group = dist.new_group(backend="gloo")
    os.makedirs(a.out, exist_ok=True)
    out = open(os.path.join(a.out, "rank%d.csv" % rank), "w", newline="")
    w = csv.writer(out)
    w.writerow(["op", "impl", "dtype", "bytes", "gpus", "rank", "run1_us", "run2_us", "run3_us", "kernel"])
    t0 = time.time()
    n = [0]

    def go_on():
        flag = torch.tensor([1 if time.time() - t0 < a.max_seconds else 0])
        dist.all_reduce(flag, op=dist.ReduceOp.MIN, group=cpu_group)  # every rank stops at the same point
        return bool(flag.item())

    def record(op, impl, dtype, nbytes, fn, pattern):
        if not go_on():
            return False
        try:
            med, kname = measure(fn, pattern, cpu_group)
        except Exception as exc:  # noqa: BLE001 - one failing point is reported, the sweep goes on
            print("rank %d: %s %s %d bytes FAILED: %s" % (rank, op, impl, nbytes, str(exc).splitlines()[0][:300]),
                  flush=True)
            return True
        w.writerow([op, impl, dtype, nbytes, world, rank] + ["%.3f" % m for m in med] + [kname[:160]])
        out.flush()
        n[0] += 1
        if rank == 0 and n[0] % 20 == 0:
            print("  %d points, %.0f s (last: %s %s %d B %.2f us)" % (n[0], time.time() - t0, op, impl, nbytes,
                                                                     statistics.median(med)), flush=True)
        return True

    align = 256 * world
    big = torch.empty((1 << a.max_log2) // 2, dtype=torch.float16, device=dev).fill_(rank + 1)
    chk = torch.full((4096,), float(rank + 1), dtype=torch.float32, device=dev)
    dist.all_reduce(chk)
    if rank == 0:
        print("nccl all_reduce check: %s (expect %d)" % (chk[0].item(), world * (world + 1) // 2), flush=True)
    # NCCL all_reduce, fp16 (Vidur's dtype) and bf16 (what serving runs), 4 sizes an octave, 1 KiB .. 2^max_log2.
    for dt in ((torch.float16, torch.bfloat16) if "all_reduce" in ops else ()):
        buf = big.view(dt)
        for nb in sizes(10, a.max_log2, 4, align):
            x = buf[: nb // 2]
            if not record("all_reduce", "nccl", str(dt)[6:], nb, lambda: dist.all_reduce(x), ("allreduce",)):
                break
    # NCCL all_gather / reduce_scatter (bytes = the whole gathered tensor), bf16, 2 sizes an octave.
    for nb in (sizes(12, a.max_log2, 2, align) if "all_gather" in ops else ()):
        full = big.view(torch.bfloat16)[: nb // 2]
        part = torch.empty(nb // 2 // world, dtype=torch.bfloat16, device=dev)
        if not (record("all_gather", "nccl", "bfloat16", nb, lambda: dist.all_gather_into_tensor(full, part),
                       ("allgather",)) and
                record("reduce_scatter", "nccl", "bfloat16", nb, lambda: dist.reduce_scatter_tensor(part, full),
                       ("reducescatter",))):
            break
    # NCCL send/recv, rank 0 -> rank 1 (bytes = the message), bf16, 4 sizes an octave: what a pipeline-parallel
    # stage boundary moves. Both ranks' kernels are recorded (rank 0 the send, rank 1 the receive).
    if "send_recv" in ops and world == 2:
        for nb in sizes(10, a.max_log2, 4, 256):
            x = big.view(torch.bfloat16)[: nb // 2]
            fn = (lambda: dist.send(x, 1)) if rank == 0 else (lambda: dist.recv(x, 0))
            if not record("send_recv", "nccl", "bfloat16", nb, fn, ("sendrecv", "send", "recv")):
                break
    elif "send_recv" in ops and rank == 0:
        print("send_recv: measured on 2-GPU runs only (world %d)" % world, flush=True)
    # Symmetric-memory one-shot / two-shot all-reduce, bf16 (torch.ops.symm_mem; no multicast).
    ok = False
    if "symm" in ops:
        try:
            import torch.distributed._symmetric_memory as symm_mem
            sbuf = symm_mem.empty((1 << a.symm_max_log2) // 2, dtype=torch.bfloat16, device=dev)
            symm_mem.rendezvous(sbuf, group=group.group_name)
            sbuf.fill_(rank + 1)
            torch.cuda.synchronize()
            dist.barrier(group=cpu_group)
            r = torch.ops.symm_mem.one_shot_all_reduce(sbuf[:4096], "sum", group.group_name)
            if rank == 0:
                print("symm_mem one_shot check: %s (expect %d)" % (r[0].item(), world * (world + 1) // 2), flush=True)
            ok = True
        except Exception as exc:  # noqa: BLE001
            print("rank %d: symmetric memory unavailable: %s" % (rank, str(exc).splitlines()[0][:300]), flush=True)
            ok = False
    if ok:
        for nb in sizes(10, a.symm_max_log2, 4, align):
            v = sbuf[: nb // 2]
            res = torch.empty_like(v)
            if not (record("all_reduce", "one_shot", "bfloat16", nb,
                           lambda: torch.ops.symm_mem.one_shot_all_reduce_out(v, "sum", group.group_name, res),
                           ("one_shot", "oneshot")) and
                    record("all_reduce", "two_shot", "bfloat16", nb,
                           lambda: torch.ops.symm_mem.two_shot_all_reduce_(v, "sum", group.group_name),
                           ("two_shot", "twoshot"))):
                break
    out.close()
    dist.barrier(group=cpu_group)
    if rank == 0:
        print("collectives.py: %d points per rank in %.0f s; %d NCCL fp16 all_reduce rows -> %s" % (
            n[0], time.time() - t0, convert(a.out), a.out), flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
