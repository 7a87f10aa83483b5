"""PyTorch memory-bound LLM ops (rms_norm, layer_norm, softmax, add, mul, silu, gelu, silu*mul, rotary) over token
counts x hidden sizes, for loom's corpus. Run under libloom_cupti.so; writes PREFIX.cases.csv (traces/FORMAT.md).

  python3 scripts/torch/memory_ops.py --out traces/run/memops.132 [--sms 32] [--quick]

Spec vocabulary (one family per op kind; rows = tokens, cols = hidden width of the output):
  rms_norm rows= cols= dtype=bf16           torch.nn.functional.rms_norm with a weight (eps 1e-5)
  layer_norm rows= cols= dtype=bf16         torch.nn.functional.layer_norm with weight and bias
  softmax rows= cols= dtype=bf16            torch.softmax over the last dim
  elementwise op=add|mul|silu|gelu|silu_mul rows= cols= dtype=bf16
                                            silu_mul = silu(a[:, :cols]) * a[:, cols:] with a [rows, 2*cols]
                                            (loom-bench's layout; eager torch runs 2 kernels)
  rotary tokens= heads= head_dim= dtype=bf16  x*cos + rotate_half(x)*sin on [tokens, heads, head_dim] (eager)
"""

import sys

import torch
import torch.nn.functional as F

import loom_torch

ROWS = [1, 16, 128, 1024, 4096, 16384, 32768]
HIDDEN = [2048, 4096, 5120, 8192]  # Llama-3.2-1B, Llama-3-8B, Llama-2-13B, Llama-3-70B hidden sizes
INTERMEDIATE = [8192, 14336]  # Llama-3.2-1B and Llama-3-8B MLP widths (silu_mul, silu, mul)
ROTARY_HEADS = [(32, 128), (8, 128), (32, 64), (64, 128)]  # (heads, head_dim) of q or k
MAX_ELEMS = 32768 * 14336  # rows * cols cap: ~0.9 GB per bf16 tensor


def rand(*shape):
    return torch.randn(*shape, device="cuda", dtype=torch.bfloat16)


def rotate_half(x):
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def make(op, rows, cols):
    """Returns (family, spec, fn) for one case; inputs are allocated once, outside timing."""
    tag = "rows=%d cols=%d dtype=bf16" % (rows, cols)
    if op == "rms_norm":
        x, w = rand(rows, cols), rand(cols)
        return "rms_norm", "rms_norm " + tag, lambda: F.rms_norm(x, (cols,), w, 1e-5)
    if op == "layer_norm":
        x, w, b = rand(rows, cols), rand(cols), rand(cols)
        return "layer_norm", "layer_norm " + tag, lambda: F.layer_norm(x, (cols,), w, b, 1e-5)
    if op == "softmax":
        x = rand(rows, cols)
        return "softmax", "softmax " + tag, lambda: torch.softmax(x, dim=-1)
    if op == "silu_mul":
        a = rand(rows, 2 * cols)
        gate, up = a[:, :cols], a[:, cols:]
        return "elementwise", "elementwise op=silu_mul %s" % tag, lambda: F.silu(gate) * up
    x, y = rand(rows, cols), rand(rows, cols)
    fns = {"add": lambda: x + y, "mul": lambda: x * y, "silu": lambda: F.silu(x),
           "gelu": lambda: F.gelu(x, approximate="tanh")}
    return "elementwise", "elementwise op=%s %s" % (op, tag), fns[op]


def make_rotary(tokens, heads, head_dim):
    x = rand(tokens, heads, head_dim)
    cos, sin = rand(tokens, 1, head_dim), rand(tokens, 1, head_dim)
    spec = "rotary tokens=%d heads=%d head_dim=%d dtype=bf16" % (tokens, heads, head_dim)
    return "rotary", spec, lambda: x * cos + rotate_half(x) * sin


def main():
    args = loom_torch.common_args(__doc__).parse_args()
    sweep = loom_torch.Sweep(args, "scripts/torch/memory_ops.py",
                             {"families": "rms_norm,layer_norm,softmax,elementwise,rotary"})
    rows_list = [16, 4096] if args.quick else ROWS
    hidden = [4096] if args.quick else HIDDEN
    inter = [14336] if args.quick else INTERMEDIATE
    cases = []  # (elements, builder args): smallest first so a time budget drops the largest
    for rows in rows_list:
        for cols in hidden:
            for op in ("rms_norm", "layer_norm", "softmax", "add", "mul", "silu", "gelu", "silu_mul"):
                cases.append((rows * cols, make, (op, rows, cols)))
        for cols in inter:
            for op in ("silu", "mul", "silu_mul"):
                cases.append((rows * cols, make, (op, rows, cols)))
        for heads, head_dim in (ROTARY_HEADS[:1] if args.quick else ROTARY_HEADS):
            cases.append((rows * heads * head_dim, make_rotary, (rows, heads, head_dim)))
    cases = [c for c in cases if c[0] <= MAX_ELEMS]
    cases.sort(key=lambda c: c[0])
    print("memory_ops: %d cases on %d SMs" % (len(cases), sweep.part.sms), flush=True)
    for _, builder, shape in cases:
        try:
            family, spec, fn = builder(*shape)
        except Exception as exc:  # noqa: BLE001 (allocation)
            print("skip %s: %s" % (shape, exc), flush=True)
            continue
        sweep.run(family, spec, "torch", fn)
        del fn
    return sweep.finish()


if __name__ == "__main__":
    sys.exit(main())
