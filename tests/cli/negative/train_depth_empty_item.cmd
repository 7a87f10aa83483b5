train --out "$TMPDIR/loom-neg-depth" --max-depth gemm=8,
