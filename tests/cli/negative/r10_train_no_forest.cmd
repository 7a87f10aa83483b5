train --traces tests/data/r10_train_no_forest --out "$TMPDIR/r10nf"
