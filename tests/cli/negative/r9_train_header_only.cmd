train --traces tests/data/r9_train_header --out "$TMPDIR/r9hdr"
