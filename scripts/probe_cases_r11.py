"""Probe cases (see probe_cases.py), eleventh round: the metadata `trace import` carries from a sweep's case list and
its collector trace (.lct) into the corpus it writes (`#sms=`, `#clock_mhz=`, `#resolution_us=` odd, repeated, or
disagreeing between the case lists of one import; a case list joined twice to one trace), `interconnect.topology`
under the commands that price collectives, TP degrees beyond an edited node, `--help` beside other flags, and
`#resolution_us=` on case lists."""
import gzip
import os

from probe_cases import REPO

LCT = "traces/e2e/h200/graph_decode.lct.gz"
CASES = "traces/e2e/h200/graph_decode.cases.csv"
E = ["e2e", "--model", "llama-3-8b", "--phase", "decode", "--batch", "8", "--seq", "1", "--context", "1024"]
_LCT, _CASES = None, None


def sources():
    """(.lct text, case list text) of the committed H200 decode run: read once."""
    global _LCT, _CASES
    if _LCT is None:
        with gzip.open(os.path.join(REPO, LCT), "rt") as f:
            _LCT = f.read()
        with open(os.path.join(REPO, CASES)) as f:
            _CASES = f.read()
    return _LCT, _CASES


def meta_edit(text, key, values):
    """`text` with its `#key=` line replaced by one line per value (none: removed; absent: added after line 2)."""
    lines = text.split("\n")
    new = [f"#{key}={v}" for v in values]
    for i, l in enumerate(lines):
        if l.startswith(f"#{key}="):
            return "\n".join(lines[:i] + new + lines[i + 1:])
    return "\n".join(lines[:2] + new + lines[2:])


def lct_gz(text):
    return gzip.compress(text.encode(), compresslevel=1)


def add_round11(c):
    add_lct_meta(c)
    add_case_meta(c)
    add_two_lists(c)
    add_topology(c)
    add_node_tp(c)
    add_help(c)


def imp(c, name, lct, cases, exp="bad", want=(), extra_cases=None):
    """`trace import` of one edited .lct and case list (and a second case list), into a fresh corpus; a corpus it
    writes must read back (`trace compact` of it runs in the same case)."""
    d = f"i11_{name}"
    files = {f"{d}/t.lct.gz": lct_gz(lct), f"{d}/a.cases.csv": cases}
    argv = ["trace", "import", "--lct", f"{{T}}/{d}/t.lct.gz", "--cases", f"{{T}}/{d}/a.cases.csv"]
    if extra_cases is not None:
        files[f"{d}/b.cases.csv"] = extra_cases
        argv += ["--cases", f"{{T}}/{d}/b.cases.csv"]
    c(f"r11_import_{name}", argv + ["-o", f"{{T}}/{d}/out.corpus.csv"], exp, want=list(want), files=files,
      empty_ok=True)
    if exp != "bad":  # what it wrote must read back
        script = ("import os, subprocess, sys\nloom = os.path.join(os.environ['PYTHONPATH'], '..', 'loom')\n"
                  f"argv = {argv + ['-o', '{T}/' + d + '/rb.corpus.csv']!r}\n"
                  "r = subprocess.run([loom] + argv, capture_output=True)\n"
                  "if r.returncode: sys.stderr.write(r.stderr.decode()); sys.exit(r.returncode)\n"
                  f"r = subprocess.run([loom, 'trace', 'compact', argv[-1], '-o', {'{T}/' + d + '/rb2.csv'!r}], "
                  "capture_output=True)\n"
                  "sys.stdout.write(r.stdout.decode()); sys.stderr.write(r.stderr.decode())\n"
                  "sys.exit(r.returncode and 4)\n")  # written but unreadable: exit 4 ('other')
        c(f"r11_import_{name}_readback", ["@python", script], "good", files=files, empty_ok=True)


def add_lct_meta(c):
    """The .lct's `#sms=` / `#clock_mhz=` (read where the case list lacks them) odd or twice; other keys twice."""
    lct, cases = sources()
    nosms = meta_edit(cases, "sms", [])
    noclock = meta_edit(cases, "clock_mhz", [])
    for tag, v in (("negzero", "-0"), ("text", "abc"), ("neg", "-3"), ("huge", "1e9"), ("5000", "5000"),
                   ("frac", "16.5"), ("empty", "")):
        imp(c, f"lct_sms_{tag}", meta_edit(lct, "sms", [v]), nosms, want=["t.lct.gz:", "#sms="])
    imp(c, "lct_sms_16", meta_edit(lct, "sms", ["16"]), nosms, "any")
    for tag, v in (("nan", "nan"), ("half", "0.5"), ("neg", "-1"), ("huge", "99999"), ("inf", "inf"), ("text", "fast")):
        imp(c, f"lct_clock_{tag}", meta_edit(lct, "clock_mhz", [v]), noclock, want=["t.lct.gz:", "#clock_mhz="])
    imp(c, "lct_clock_1500", meta_edit(lct, "clock_mhz", ["1500"]), noclock, "any")
    # 0 is what the collector writes when its device query failed ("not recorded"): taken as absent, and the corpus
    # written without the line (a `#clock_mhz=0` line there would be refused by every reader)
    imp(c, "lct_sms_zero", meta_edit(lct, "sms", ["0"]), nosms, "any")
    imp(c, "lct_clock_zero", meta_edit(lct, "clock_mhz", ["0"]), noclock, "any")
    imp(c, "lct_case_clock_zero", meta_edit(lct, "clock_mhz", ["0"]), meta_edit(cases, "clock_mhz", ["0"]), "any")
    for key, vals in (("sms", ["132", "16"]), ("sms", ["132", "132"]), ("gpu", ["NVIDIA H200", "NVIDIA H100 80GB HBM3"]),
                      ("clock_mhz", ["1980", "1500"]), ("pid", ["1174", "1175"]), ("command", ["a", "b"])):
        same = "same" if vals[0] == vals[1] else "diff"
        imp(c, f"lct_twice_{key}_{same}", meta_edit(lct, key, vals), nosms if key == "sms" else cases,
            want=["t.lct.gz:", "given twice"])


def add_case_meta(c):
    """The case list's own `#sms=` / `#clock_mhz=` / `#resolution_us=` odd (they win over the .lct's)."""
    lct, cases = sources()
    for tag, v in (("text", "abc"), ("neg", "-1"), ("5000", "5000"), ("frac", "1.5")):
        imp(c, f"case_sms_{tag}", lct, meta_edit(cases, "sms", [v]), want=["a.cases.csv:", "#sms="])
    for tag, v in (("nan", "nan"), ("neg", "-5"), ("huge", "99999"), ("text", "x")):
        imp(c, f"case_clock_{tag}", lct, meta_edit(cases, "clock_mhz", [v]), want=["a.cases.csv:", "#clock_mhz="])
    imp(c, "case_sms_zero", lct, meta_edit(cases, "sms", ["0"]), "any")  # not recorded: the trace's 132
    imp(c, "case_clock_zero", lct, meta_edit(cases, "clock_mhz", ["0"]), "any")  # not recorded: the trace's 1980
    for tag, v in (("zero", "0"), ("nan", "nan"), ("neg", "-1"), ("huge", "1e7")):
        imp(c, f"case_res_{tag}", lct, meta_edit(cases, "resolution_us", [v]), want=["a.cases.csv:", "#resolution_us="])
    imp(c, "case_res_twice", lct, meta_edit(cases, "resolution_us", ["1", "1"]), want=["a.cases.csv:", "twice"])
    imp(c, "case_res_one", lct, meta_edit(cases, "resolution_us", ["1"]), "any")
    imp(c, "case_sms_16_lct_132", lct, meta_edit(cases, "sms", ["16"]), "any")  # the case list wins (a partition)


def add_two_lists(c):
    """Two case lists in one import: one corpus holds one partition, so they must agree on what describes it; the
    same case list twice under two names reads the same ranges of the one trace twice."""
    lct, cases = sources()
    imp(c, "two_copies", lct, cases, want=["b.cases.csv", "case"], extra_cases=cases)
    imp(c, "two_clock", lct, cases, want=["b.cases.csv", "clock"],
        extra_cases=meta_edit(cases, "clock_mhz", ["1500"]))
    imp(c, "two_res", lct, cases, want=["b.cases.csv", "resolution_us"],
        extra_cases=meta_edit(cases, "resolution_us", ["1"]))
    imp(c, "two_res_first", lct, meta_edit(cases, "resolution_us", ["1"]), want=["b.cases.csv", "resolution_us"],
        extra_cases=cases)
    imp(c, "two_sms", lct, cases, want=["b.cases.csv", "sms"], extra_cases=meta_edit(cases, "sms", ["16"]))


def add_topology(c):
    """interconnect.topology (round 10) under the commands that price collectives, with odd NVLink domains."""
    T = "interconnect.topology="
    for tag, gpu, sets, exp in (
            ("mesh_gpus1", "h200", [T + "nvlink-mesh", "interconnect.nvlink_gpus=1"], "any"),
            ("mesh_gpus0", "h200", [T + "nvlink-mesh", "interconnect.nvlink_gpus=0"], "any"),
            ("bridge_tp8", "h200", [T + "nvlink-bridge", "interconnect.nvlink_gpus=2"], "any"),
            ("bridge_gpus1", "h200", [T + "nvlink-bridge", "interconnect.nvlink_gpus=1"], "bad"),
            ("pcie_nvlink0", "h200", [T + "pcie", "interconnect.nvlink=0GB/s", "interconnect.nvlink_gpus=0"], "any"),
            ("pcie_l40", "l40", [T + "pcie"], "any"),
            ("mesh_l40", "l40", [T + "nvlink-mesh"], "bad"),
            ("none_h200", "h200", [T + "none"], "any"),
            ("upper", "h200", [T + "NVLink-Mesh"], "bad"),
            ("twice", "h200", [T + "nvswitch", T + "nvlink-mesh"], "bad")):
        sets_argv = [x for s in sets for x in ("--set", s)]
        want = ["interconnect"] if exp == "bad" else []
        c(f"r11_topo_{tag}_e2e", E + ["--gpu", gpu, "--tp", "8", "--format", "json"] + sets_argv, exp, want=want)
        c(f"r11_topo_{tag}_whatif", ["whatif", "--model", "llama-3-8b", "--batch", "8", "--input-len", "512",
                                     "--output-len", "64", "--gpus", gpu, "--tp", "2,8", "--format", "csv"] + sets_argv,
          exp, want=want)
    c("r11_topo_gpu_prefix", ["whatif", "--model", "llama-3-8b", "--batch", "8", "--input-len", "512", "--output-len",
                              "64", "--gpus", "h200,l40", "--tp", "8", "--set", "l40:interconnect.topology=nvlink-mesh"],
      want=["interconnect"])
    c("r11_topo_predict_ar", ["predict", "--gpu", "h200", "--set", "interconnect.topology=nvlink-mesh", "--kernel",
                              "all_reduce bytes=1048576 gpus=8", "--format", "json"], "any")
    c("r11_topo_predict_ar_gpus16", ["predict", "--gpu", "h200", "--set", "interconnect.topology=nvlink-mesh",
                                     "--kernel", "all_reduce bytes=1048576 gpus=16", "--format", "csv"], "any")
    yaml = "extends: h200\nname: mesh probe\ninterconnect:\n  topology: nvlink-mesh\n  topology: nvswitch\n"
    c("r11_topo_yaml_twice", ["predict", "--gpu", "{T}/t11/m.yaml", "--kernel", "gemm m=64 n=64 k=64 dtype=bf16"],
      want=["m.yaml:"], files={"t11/m.yaml": yaml})
    yaml = "extends: l40\nname: bridge probe\ninterconnect:\n  topology: nvlink-bridge\n"
    c("r11_topo_yaml_bridge_nolink", ["predict", "--gpu", "{T}/t11/b.yaml", "--kernel", "gemm m=64 n=64 k=64 dtype=bf16"],
      want=["b.yaml:"], files={"t11/b.yaml": yaml})


def add_node_tp(c):
    """A TP degree beyond the GPUs of an edited node (interconnect.gpus_per_node): a bad --tp, named as such."""
    node4 = ["--set", "interconnect.gpus_per_node=4"]
    W = ["whatif", "--model", "llama-3-8b", "--batch", "8", "--input-len", "512", "--output-len", "64", "--gpus", "h200"]
    for n, argv, want in (
            ("e2e", E + ["--gpu", "h200", "--tp", "8"] + node4, ["--tp", "4 GPUs"]),
            ("e2e_l4", E + ["--gpu", "l4", "--tp", "8"] + node4, ["--tp", "4 GPUs"]),
            ("e2e_prefill", ["e2e", "--gpu", "h200", "--model", "llama-3-8b", "--phase", "prefill", "--batch", "1",
                             "--seq", "512", "--tp", "8"] + node4, ["--tp", "4 GPUs"]),
            ("simulate", ["simulate", "--gpu", "h200", "--model", "llama-3-8b", "--tp", "8", "--rate", "2",
                          "--num-requests", "20"] + node4, ["--tp", "4 GPUs"]),
            ("simulate_pp", ["simulate", "--gpu", "h200", "--model", "llama-3-8b", "--tp", "8", "--pp", "2", "--rate",
                             "2", "--num-requests", "20"] + node4, ["--tp", "4 GPUs"]),
            ("whatif", W + ["--tp", "8"] + node4, ["4 GPUs"]),
            ("whatif_cap", ["whatif", "--model", "llama-3-8b", "--gpus", "h200", "--rate", "2", "--tp", "8"] + node4,
             ["4 GPUs"]),
            ("yaml", E + ["--gpu", "{T}/n11/node2.yaml", "--tp", "4"], ["--tp", "2 GPUs"])):
        c(f"r11_node_tp_{n}", argv, want=want, files={"n11/node2.yaml": "extends: h200\nname: node of two\n"
                                                                         "interconnect:\n  gpus_per_node: 2\n"})
    c("r11_node_tp_whatif_auto", W + node4 + ["--format", "csv"], "any")  # automatic TP stops at 4
    c("r11_node_tp_fits", E + ["--gpu", "h200", "--tp", "4", "--format", "json"] + node4, "any")


def add_help(c):
    """`--help` beside other flags and values: usage, exit 0, whatever else is given."""
    for n, argv in (("predict_bad_gpu", ["predict", "--gpu", "h999", "--help"]),
                    ("e2e_format_csv", E + ["--gpu", "h200", "--help", "--format", "csv"]),  # usage is text, whatever --format says
                    ("trace_import", ["trace", "import", "--help"]),
                    ("tune_plan", ["tune", "--plan", "--help"]),
                    ("gpus_show", ["gpus", "show", "--help"])):
        c(f"r11_help_{n}", argv, "any", empty_ok=True)
