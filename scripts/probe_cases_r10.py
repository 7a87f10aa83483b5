"""Probe cases (see probe_cases.py), tenth round, first part: corpus schema version 2 (`#kernel.<id>=` dictionaries,
`@id` references) through every command that reads a corpus (`trace summary`, `trace compact`, `trace diff`, `train
--traces`, `validate --traces`), `trace compact -o` outputs, and training over corpora that split but give no family
its forest. Corpora are written in the scratch folder from the committed traces/h200/sms16 corpus's rows."""
import os
import sys

from probe_cases import REPO

sys.path.insert(0, os.path.join(REPO, "scripts", "lib"))
from loom_corpus import read_corpus  # noqa: E402

COLS = ("case_id,family,spec,impl,kernels,grid,block,regs,smem_bytes,reps,median_us,p10_us,p90_us,spread_pct,"
        "event_median_us")
_META, _ROWS = None, None
# `loom trace diff` exits 1 for two corpora that differ (its answer, not an error): passed on as exit 0.
DIFF = ("import os, subprocess, sys\nloom = os.path.join(os.environ['PYTHONPATH'], '..', 'loom')\n"
        "r = subprocess.run([loom, 'trace', 'diff'] + {argv!r}, capture_output=True)\n"
        "sys.stdout.write(r.stdout.decode('utf-8', 'replace')); sys.stderr.write(r.stderr.decode('utf-8', 'replace'))\n"
        "sys.exit(0 if r.returncode == 1 and b'differ' in r.stdout and not r.stderr else r.returncode)\n")


def source():
    """(metadata lines, rows) of traces/h200/sms16: read once."""
    global _META, _ROWS
    if _META is None:
        meta, rows = read_corpus(os.path.join(REPO, "traces/h200/sms16.corpus.csv.gz"))
        _META = [f"#{k}={v}" for k, v in meta.items()]
        _ROWS = rows
    return _META, _ROWS


def pick(n, family=None, multi=False):
    """n rows (of one family, or with more than one kernel name)."""
    _, rows = source()
    out = [r for r in rows if (family is None or r["family"] == family) and (not multi or ";" in r["kernels"])]
    return out[:n]


def v1(rows, extra_meta=()):
    meta, _ = source()
    lines = ["#loom-corpus 1"] + meta + list(extra_meta) + [COLS]
    lines += [",".join(_quote(r[c]) for c in COLS.split(",")) for r in rows]
    return "\n".join(lines) + "\n"


def v2(rows, extra_meta=(), dict_edit=None, row_edit=None, version="2"):
    """A version 2 corpus of `rows`: ids 1.. in order of first use. dict_edit(lines) and row_edit(cells) may change the
    dictionary lines (a list of '#kernel.N=name') and the kernels cells (a list, one per row) before writing."""
    meta, _ = source()
    ids, cells = {}, []
    for r in rows:
        refs = []
        for name in r["kernels"].split(";") if r["kernels"] else []:
            ids.setdefault(name, len(ids) + 1)
            refs.append(f"@{ids[name]}")
        cells.append(";".join(refs))
    dlines = [f"#kernel.{i}={n}" for n, i in ids.items()]
    if dict_edit:
        dlines = dict_edit(dlines)
    if row_edit:
        cells = row_edit(cells)
    lines = [f"#loom-corpus {version}"] + meta + list(extra_meta) + dlines + [COLS]
    for r, cell in zip(rows, cells):
        lines.append(",".join(_quote(cell if c == "kernels" else r[c]) for c in COLS.split(",")))
    return "\n".join(lines) + "\n"


def _quote(s):
    return '"' + s.replace('"', '""') + '"' if any(ch in s for ch in ',"\n') else s


def header_lines():
    """Lines before the dictionary: the version line and the metadata."""
    return 1 + len(source()[0])


def readers(c, tag, text, want_line=None, exp="bad", want=(), train=True, rewrite=None):
    """The corpus `text` through the five commands that read corpora. want_line: the corpus line a strict reader must
    name (as a.corpus.csv:LINE)."""
    d = f"c10_{tag}"
    files = {f"{d}/a.corpus.csv": text}
    good = f"{{T}}/c10good/a.corpus.csv"
    gfiles = dict(files, **{"c10good/a.corpus.csv": v2(pick(6))})
    line = [f"a.corpus.csv:{want_line}"] if want_line else ["a.corpus.csv"]
    rexp = rewrite or exp  # compact and diff rewrite and compare; they do not look GPUs up in the catalogue
    c(f"r10_v2_{tag}_summary", ["trace", "summary", f"{{T}}/{d}", "--format", "json"], "any" if exp == "bad" else exp,
      files=files)
    c(f"r10_v2_{tag}_compact", ["trace", "compact", f"{{T}}/{d}/a.corpus.csv", "-o", f"{{T}}/{d}.out.csv"], rexp,
      want=list(want) or line if rexp == "bad" else [], files=files, empty_ok=True)
    c(f"r10_v2_{tag}_diff", ["@python", DIFF.format(argv=[f"{{T}}/{d}/a.corpus.csv", good])], rexp,
      want=list(want) or line if rexp == "bad" else [], files=gfiles, empty_ok=True)
    if train:
        c(f"r10_v2_{tag}_train", ["train", "--traces", f"{{T}}/{d}", "--out", f"{{T}}/{d}_m"],
          "bad", want=[d], files=files)  # a handful of rows: refused (too few) when the file reads
    c(f"r10_v2_{tag}_validate", ["validate", "--traces", f"{{T}}/{d}", "--format", "json"], "any" if exp != "bad" else exp,
      want=[d] if exp == "bad" else [], files=files)


def add_round10(c):
    add_dictionary(c)
    add_refs(c)
    add_compact_outputs(c)
    add_train_forest(c)
    from probe_cases_r10b import add_round10b
    add_round10b(c)


def add_dictionary(c):
    """`#kernel.<id>=` lines: bad ids, gaps, huge ids, lines after the header, unused ids, odd names."""
    rows = pick(6, multi=True) + pick(4, family="gemm")
    h = header_lines() + 1  # the first dictionary line's number

    def first(f):
        return lambda d: [f(d[0])] + d[1:]

    def ren(new):  # the first id renamed (its references too)
        return dict(dict_edit=first(lambda l: l.replace("#kernel.1=", f"#kernel.{new}=", 1)),
                    row_edit=lambda cells: [";".join(f"@{new}" if x == "@1" else x for x in cl.split(";")) for cl in cells])

    for tag, kw, exp, line in (
            ("id_zero", ren("0"), "bad", h), ("id_neg", ren("-1"), "bad", h), ("id_plus", ren("+1"), "bad", h),
            ("id_lead0", ren("01"), "bad", h), ("id_exp", ren("1e0"), "bad", h), ("id_hex", ren("0x1"), "bad", h),
            ("id_10digits", ren("1000000000"), "bad", h), ("id_huge", ren("9" * 40), "bad", h),
            ("id_9digits", ren("999999999"), "good", None), ("id_space", ren(" 1"), "bad", h),
            ("id_fullwidth", ren("１"), "bad", h), ("id_letters", ren("abc"), "bad", h), ("id_empty", ren(""), "bad", h)):
        readers(c, tag, v2(rows, **kw), line, exp)
    # gaps: ids 1, 5, 9 ... (legal: a positive id, once); reversed order of definition (legal)
    gap = dict(dict_edit=lambda d: [l.replace(f"#kernel.{i + 1}=", f"#kernel.{4 * i + 1}=", 1) for i, l in enumerate(d)],
               row_edit=lambda cells: [";".join(f"@{4 * (int(x[1:]) - 1) + 1}" for x in cl.split(";")) for cl in cells])
    readers(c, "gaps", v2(rows, **gap), None, "good")
    readers(c, "reversed", v2(rows, dict_edit=lambda d: d[::-1]), None, "good")
    n = len(v2(rows).split("#kernel.")) - 1
    for tag, kw, exp, line in (
            ("dup_id", dict(dict_edit=lambda d: d + [d[0].split("=")[0] + "=another_kernel"]), "bad", h + n),
            ("dup_name", dict(dict_edit=lambda d: d + [f"#kernel.{n + 1}=" + d[0].split("=", 1)[1]]), "bad", h + n),
            ("unused", dict(dict_edit=lambda d: d + [f"#kernel.{n + 1}=never_used_kernel"]), "bad", h + n),
            ("empty_name", dict(dict_edit=first(lambda l: l.split("=")[0] + "=")), "bad", h),
            ("semicolon_name", dict(dict_edit=first(lambda l: l + ";x")), "bad", h),
            ("ctrl_name", dict(dict_edit=first(lambda l: l + "\x01x")), "bad", h),
            ("tab_name", dict(dict_edit=first(lambda l: l + "\tx")), "bad", h),
            ("no_eq", dict(dict_edit=lambda d: d + [f"#kernel.{n + 1}"]), "bad", h + n),
            ("no_id", dict(dict_edit=lambda d: d + ["#kernel.=x"]), "bad", h + n),
            ("space_before_eq", dict(dict_edit=lambda d: d + [f"#kernel.{n + 1} =x"]), "bad", h + n),
            ("upper_prefix", dict(dict_edit=lambda d: d + [f"#KERNEL.{n + 1}=x"]), "any", None),
            ("after_header", None, "bad", None),
            ("name_eq_spaces", dict(dict_edit=first(lambda l: l + " = a, b")), "good", None)):
        if tag == "after_header":  # the dictionary's last line moved below the CSV header
            t = v2(rows).split("\n")
            k = t.index(COLS)
            t.insert(k + 1, t.pop(k - 1))
            readers(c, tag, "\n".join(t), None, "bad")
            continue
        readers(c, tag, v2(rows, **kw), line, exp)
    # non-UTF-8 bytes in a name: verbatim bytes (legal in the format); output must not carry raw control bytes
    t = v2(rows).encode().replace(b"#kernel.1=", b"#kernel.1=\xff\xfe", 1)
    readers(c, "latin_name", t, None, "any")
    # a 100,000-byte name; 20,000 dictionary lines each used once
    readers(c, "long_name", v2(rows, dict_edit=first(lambda l: l + "x" * 100000)), None, "any", train=False)
    big = [dict(r, kernels=f"k{i}") for i, r in enumerate(pick(1) * 5000)]
    for i, r in enumerate(big):
        r["spec"] = r["spec"].replace("batch=1 ", f"batch={i + 1} ")
    readers(c, "many_ids", v2(big), None, "any", train=False)


def add_refs(c):
    """`@id` references in the kernels column: malformed, dangling, mixed with names, odd separators."""
    rows = pick(6, multi=True) + pick(4, family="gemm")
    h = header_lines() + len(v2(rows).split("#kernel.")) - 1 + 2  # the first row's line

    def cell0(new):
        return dict(row_edit=lambda cells: [new] + cells[1:])

    first = v2(rows).split("\n")[h - 1].split(",")
    for tag, new, exp in (("dangling", "@99", "bad"), ("zero", "@0", "bad"), ("neg", "@-1", "bad"), ("plus", "@+1", "bad"),
                          ("lead0", "@01", "bad"), ("huge", "@" + "9" * 30, "bad"), ("hex", "@0x1", "bad"),
                          ("bare_at", "@", "bad"), ("double_at", "@@1", "bad"), ("space", "@ 1", "bad"),
                          ("trail_space", "@1 ", "bad"), ("trail_semi", "@1;", "bad"), ("lead_semi", ";@1", "bad"),
                          ("double_semi", "@1;;@2", "bad"), ("name_not_ref", "some_kernel_name", "bad"),
                          ("mixed", "@1;some_kernel", "bad"), ("empty", "", "any"), ("fullwidth", "＠1", "bad")):
        readers(c, f"ref_{tag}", v2(rows, **cell0(new)), None, exp)
    del first
    # a version 1 file whose cells look like references: its names are '@1' verbatim (v1 has no dictionary)
    t = v2(rows).replace("#loom-corpus 2", "#loom-corpus 1", 1)
    readers(c, "v1_with_refs", t, None, "any")
    for tag, ver in (("version3", "3"), ("version_space", "2 "), ("version_02", "02"), ("version_neg", "-2"),
                     ("version_big", "99999999999999999999")):
        readers(c, tag, v2(rows, version=ver), 1, "bad")
    readers(c, "no_version", "\n".join(v2(rows).split("\n")[1:]), None, "bad")
    readers(c, "bom", "\ufeff" + v2(rows), None, "any")
    readers(c, "crlf", v2(rows).replace("\n", "\r\n"), None, "any")
    readers(c, "truncated", v2(rows)[:-200], None, "bad")
    readers(c, "nul", v2(rows).replace("@1", "@1\x00", 1), None, "bad")
    # metadata: a key twice (which one is meant is unknowable), odd values of the keys the reader uses
    for tag, extra, exp in (("meta_gpu_key_twice", ["#gpu_key=h100-sxm"], "bad"), ("meta_sms_twice", ["#sms=132"], "bad"),
                            ("meta_same_twice", ["#gpu_key=h200"], "bad"), ("meta_sms_text", ["#sms=sixteen"], "bad"),
                            ("meta_sms_zero", ["#sms=0"], "bad"), ("meta_sms_neg", ["#sms=-16"], "bad"),
                            ("meta_sms_huge", ["#sms=99999999999"], "bad"), ("meta_clock_nan", ["#clock_mhz=nan"], "bad"),
                            ("meta_gpu_key_unknown", ["#gpu_key=h999"], "bad*"), ("meta_empty_key", ["#=x"], "any"),
                            ("meta_no_eq", ["#just a comment"], "any")):
        t = v2(rows, extra_meta=extra)
        if not tag.endswith("twice") and tag not in ("meta_empty_key", "meta_no_eq"):  # the value replaces the source's
            key = extra[0].split("=")[0] + "="
            t = "\n".join(l for l in t.split("\n") if not (l.startswith(key) and l != extra[0])) + ""
        readers(c, tag, t, None, exp.rstrip("*"), rewrite="any" if exp.endswith("*") else None)


def add_compact_outputs(c):
    """`trace compact FILE -o OUT` with odd outputs; `trace diff` with odd pairs."""
    good = {"c10o/a.corpus.csv": v2(pick(6))}
    F = "{T}/c10o/a.corpus.csv"
    for tag, out, exp, want, files in (
            ("same", F, "bad", ["a.corpus.csv"], None), ("missing_dir", "{T}/nope10/x.csv", "bad", ["nope10"], None),
            ("dev_full", "/dev/full", "bad", ["/dev/full"], None), ("dev_null", "/dev/null", "any", [], None),
            ("dir", "{T}/c10o", "bad", ["c10o"], None), ("proc", "/proc/version", "bad", ["/proc/version"], None),
            ("hardlink", "{T}/c10o/b.csv", "bad", ["b.csv"], {"c10o/b.csv": "@HARD@c10o/a.corpus.csv"}),
            ("symlink", "{T}/c10o/s.csv", "bad", ["s.csv"], {"c10o/s.csv": "@LINK@a.corpus.csv"}),
            ("loop", "{T}/c10o/l.csv", "bad", ["l.csv"], {"c10o/l.csv": "@LINK@l.csv"}),
            ("fifo", "{T}/c10o/f.csv", "bad", ["f.csv"], {"c10o/f.csv": "@FIFO@"}),
            ("gz_name", "{T}/c10o/out.corpus.csv.gz", "any", [], None), ("ok", "{T}/c10o/out.corpus.csv", "good", [], None)):
        c(f"r10_compact_out_{tag}", ["trace", "compact", F, "-o", out], exp, want=want, files=dict(good, **(files or {})),
          empty_ok=True)
    c("r10_compact_no_o", ["trace", "compact", F], want=["-o"], files=good)
    c("r10_compact_two_inputs", ["trace", "compact", F, F, "-o", "{T}/c10o/x.csv"], want=["compact"], files=good)
    c("r10_compact_o_twice", ["trace", "compact", F, "-o", "{T}/c10o/x.csv", "-o", "{T}/c10o/x.csv"], want=["-o"], files=good)
    c("r10_compact_lct", ["trace", "compact", "tests/data/trace/sample.lct", "-o", "{T}/c10o/y.csv"], "any", files=good)
    c("r10_compact_dir", ["trace", "compact", "{T}/c10o", "-o", "{T}/c10o/z.csv"], want=["c10o"], files=good)
    c("r10_compact_stdin", ["trace", "compact", "-", "-o", "{T}/c10o/z.csv"], "any", files=good)
    for tag, a, b, exp, files in (
            ("self", F, F, "good", None), ("dir", F, "{T}/c10o", "bad", None), ("missing", F, "{T}/none10.csv", "bad", None),
            ("garbage", F, "{T}/c10g.csv", "bad", {"c10g.csv": "not a corpus\n"}),
            ("empty", F, "{T}/c10e.csv", "bad", {"c10e.csv": ""}), ("gz_garbage", F, "{T}/c10g.csv.gz", "bad", {"c10g.csv.gz": "\x1f\x8bxx"}),
            ("v1_same", F, "{T}/c10v1.csv", "good", {"c10v1.csv": v1(pick(6))}),
            ("one_arg", F, None, "bad", None), ("three", F, F, "bad", None), ("fifo", F, "{T}/c10fifo", "bad", {"c10fifo": "@FIFO@"})):
        argv = ["trace", "diff", a] + ([b] if b else []) + ([F] if tag == "three" else [])
        c(f"r10_diff_{tag}", argv, exp, want=[] if exp != "bad" else [], files=dict(good, **(files or {})))


def add_train_forest(c):
    """Corpora that split but where no family reaches the 200 training kernels a family's forest needs."""
    rows = pick(100, family="gemm") + pick(100, family="elementwise") + pick(60, family="softmax")
    files = {"c10f/a.corpus.csv": v1(rows)}
    T = ["train", "--traces", "{T}/c10f", "--out", "{T}/c10fm"]
    c("r10_train_no_forest", T, want=["c10f", "200", "gemm"], files=files)
    c("r10_train_no_forest_depth", T + ["--max-depth", "gemm=4"], want=["c10f", "200"], files=files)
    c("r10_train_no_forest_global", T + ["--global", "--rounds", "3"], "good", files=files)
    big = {"c10fb/a.corpus.csv": v1(pick(320, family="gemm") + pick(30, family="softmax"))}
    c("r10_train_one_forest", ["train", "--traces", "{T}/c10fb", "--out", "{T}/c10fbm", "--rounds", "3"], "good", files=big)
