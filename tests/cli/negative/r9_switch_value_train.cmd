train --traces tests/data/r9_train_one --out "$TMPDIR/r9sw" --global=yes
