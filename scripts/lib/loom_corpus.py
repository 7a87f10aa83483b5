"""Reads loom corpus files (*.corpus.csv[.gz], traces/FORMAT.md section 3), schema version 1 or 2, the way loom does:
metadata from the `#key=value` lines, and in version 2 the `kernels` column's `@<id>` references replaced by the
names of the `#kernel.<id>=` dictionary, so callers see the ';'-joined names whatever the file's version.

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))  # from scripts/
    from loom_corpus import read_corpus
    meta, rows = read_corpus("traces/h100/sms132-linear6.corpus.csv.gz")  # rows: list of dicts of strings
"""
import csv
import gzip
import io

KERNEL_PREFIX = "#kernel."


def open_text(path):
    """A text stream of a plain or gzip file (by its first bytes, as loom's reader does)."""
    with open(path, "rb") as f:
        gz = f.read(2) == b"\x1f\x8b"
    return gzip.open(path, "rt", encoding="utf-8", newline="") if gz else open(path, "r", encoding="utf-8", newline="")


def read_corpus(path):
    """(meta dict, list of row dicts) of a corpus file; raises ValueError naming FILE:LINE on what loom refuses in
    the dictionary (bad id, duplicate id, empty name, unknown reference, dictionary line after the header)."""
    meta, names, lines, version = {}, {}, [], None
    with open_text(path) as f:
        for no, raw in enumerate(f, 1):
            line = raw.rstrip("\r\n")
            if no == 1:
                line = line.lstrip("\ufeff")
                if line not in ("#loom-corpus 1", "#loom-corpus 2"):
                    raise ValueError("%s:1: not a loom corpus of version 1 or 2: %r" % (path, line[:40]))
                version = int(line[-1])
                continue
            if version == 2 and line.startswith(KERNEL_PREFIX):
                if lines:
                    raise ValueError("%s:%d: kernel dictionary line after the CSV header" % (path, no))
                key, eq, name = line[len(KERNEL_PREFIX):].partition("=")
                if not eq or not key.isdigit() or key.startswith("0") or len(key) > 9:
                    raise ValueError("%s:%d: malformed kernel dictionary line" % (path, no))
                if key in names or not name or ";" in name:
                    raise ValueError("%s:%d: duplicate id, empty name or ';' in #kernel.%s" % (path, no, key))
                names[key] = name
            elif line.startswith("#"):
                if "=" in line and not lines:
                    k, v = line[1:].split("=", 1)
                    meta[k] = v
            elif line or lines:
                lines.append(raw)
    rows = list(csv.DictReader(io.StringIO("".join(lines))))
    if version == 2:
        for r in rows:
            refs = r["kernels"]
            try:
                r["kernels"] = ";".join(names[x[1:]] for x in refs.split(";") if x[:1] == "@") if refs else ""
            except KeyError as e:
                raise ValueError("%s: case %s: kernels reference @%s has no #kernel line"
                                 % (path, r["case_id"], e.args[0]))
            if refs and any(x[:1] != "@" for x in refs.split(";")):
                raise ValueError("%s: case %s: kernels %r is not @id references" % (path, r["case_id"], refs[:40]))
    return meta, rows
