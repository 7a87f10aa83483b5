"""Compiles the Triton GEMM's configs in a spawned process pool (fills Triton's on-disk cache, so the sweep's first
launch of a config finds it compiled) and checks every kept config against an fp32 reference. Used by gemm_sweep.py."""

import multiprocessing as mp
import os
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gemm_triton as gt  # noqa: E402


def _compile_worker(job):
    """Compiles configs for one dtype; returns (name, dtype, shared bytes or 'error: ...')."""
    dtype, cfgs = job
    torch.cuda.init()
    # N, K multiples of 16 (as every swept shape): the same divisibility specialisation as the sweep's launches.
    p = gt.GemmProblem(64, 256, 512, dtype)
    out = []
    for cfg in cfgs:
        try:
            k = p.launch(cfg, warmup=True)
            out.append((gt.config_name(cfg), dtype, int(k.metadata.shared)))
        except Exception as exc:  # noqa: BLE001 - a config Triton cannot build is dropped
            out.append((gt.config_name(cfg), dtype, "error: " + (str(exc).splitlines() or ["?"])[0][:120]))
    return out


def precompile(space, workers):
    """space: {dtype: [config dicts]}. Returns {dtype: set of names} whose shared memory fits the device."""
    limit = torch.cuda.get_device_properties(0).shared_memory_per_block_optin
    jobs = [(d, cfgs[i::workers]) for d, cfgs in space.items() for i in range(workers)]
    t0 = time.time()
    with mp.get_context("spawn").Pool(workers) as pool:
        results = [r for part in pool.map(_compile_worker, jobs) for r in part]
    ok = {d: set() for d in space}
    dropped = []
    for name, dtype, smem in results:
        if isinstance(smem, int) and smem <= limit:
            ok[dtype].add(name)
        else:
            dropped.append("%s/%s (%s)" % (dtype, name, smem))
    print("compiled %d (config, dtype) pairs in %.0f s on %d processes; %d dropped (shared memory > %d B or compile "
          "error): %s" % (len(results), time.time() - t0, workers, len(dropped), limit, " ".join(dropped[:12])),
          flush=True)
    return ok


def check(kept):
    """Every kept config against an fp32 reference on an odd shape (M, and K tail not multiples of the tiles)."""
    worst = 0.0
    for dtype, cfgs in kept.items():
        p = gt.GemmProblem(37, 384, 528, dtype, seed=3)
        ref = p.reference()
        for cfg in cfgs:
            p.out.zero_()
            p.launch(cfg)
            err = ((p.out.float() - ref).norm() / ref.norm()).item()
            worst = max(worst, err)
            if not err < 0.02:
                raise SystemExit("check FAILED: %s %s relative error %.4f" % (dtype, gt.config_name(cfg), err))
        out = p.cublas().float()
        err = ((out - ref).norm() / ref.norm()).item()
        if not err < 0.02:
            raise SystemExit("check FAILED: %s cuBLAS relative error %.4f" % (dtype, err))
    torch.cuda.synchronize()
    print("check: %s configs match the fp32 reference (worst relative error %.4f)" % (
        ", ".join("%d %s" % (len(c), d) for d, c in kept.items()), worst), flush=True)
