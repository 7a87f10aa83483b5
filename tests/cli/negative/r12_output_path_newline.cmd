report --sample -o "$TMPDIR/a$(printf '\nb').html"
