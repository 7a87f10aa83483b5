train --out "$TMPDIR/loom-neg-depth" --max-depth gemms=8
