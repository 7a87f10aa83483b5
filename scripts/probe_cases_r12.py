"""Probe cases (see probe_cases.py), twelfth round: what round 11 left (a catalogue file given by its path, `--help`
under `--format json`, `-o -`, control bytes in output paths and `--dataset`, a folder of unimported sweeps,
collectives of one GPU), then the readers earlier rounds touched little: `loom report` over loom's own JSON outputs
(e2e, whatif, simulate, validation) edited, truncated or of another schema; `--set` of each kind of GPU field;
environment variables; simulate's and validate's flags; `tune --export-moe-configs`; calibrate results; NUL and
non-ASCII bytes in kernel specs."""
import json
import os
import subprocess

from probe_cases import REPO

K = "rms_norm rows=4096 cols=8192 dtype=bf16"
P = ["predict", "--gpu", "h200", "--kernel", K]
E = ["e2e", "--gpu", "h200", "--model", "llama-3-8b", "--phase", "decode", "--batch", "8", "--seq", "1",
     "--context", "1024"]
W = ["whatif", "--model", "llama-3-8b", "--batch", "8", "--input-len", "512", "--output-len", "64", "--gpus",
     "h200,h100-sxm"]
S = ["simulate", "--gpu", "h200", "--model", "llama-3-8b", "--rate", "2", "--num-requests", "20"]
_OUTPUTS = {}


def loom_json(kind):
    """The --format json answer of a valid e2e / whatif / simulate run of the binary under test (read once), as the
    input `loom report` reads; {} when the binary is not known yet."""
    if kind not in _OUTPUTS:
        binary = os.environ.get("LOOM_PROBE_BINARY", "")
        argv = {"e2e": E, "whatif": W, "simulate": S}[kind]
        try:
            p = subprocess.run([binary] + argv + ["--format", "json"], cwd=REPO, capture_output=True, timeout=60,
                               env=dict(os.environ, LOOM_HOME=REPO))
            _OUTPUTS[kind] = json.loads(p.stdout) if p.returncode == 0 else {}
        except Exception:  # noqa: BLE001
            _OUTPUTS[kind] = {}
    return json.loads(json.dumps(_OUTPUTS[kind]))


def add_round12(c):
    add_left_by_r11(c)
    add_report_inputs(c)
    add_set_kinds(c)
    add_env(c)
    add_flags(c)
    add_spec_bytes(c)
    add_python(c)


def add_left_by_r11(c):
    """Round 11's last paragraph, case by case."""
    h200 = open(os.path.join(REPO, "gpus/h200.yaml")).read()
    # 1. a catalogue file by path, or a copy, is that entry
    for n, path, files in (("path", "gpus/h200.yaml", None), ("dot_path", "./gpus//h200.yaml", None),
                           ("copy", "{T}/r12copy/mine.yaml", {"r12copy/mine.yaml": h200})):
        c(f"r12_gpu_entry_{n}", ["predict", "--gpu", path, "--kernel", K, "--format", "json"], "good",
          want=['"gpu": "h200"'], files=files)
    c("r12_gpu_entry_whatif_two", W[:-1] + ["h200,gpus/h200.yaml"], want=["--gpus", "one GPU"])
    c("r12_gpu_entry_whatif_copy", W[:-1] + ["h200,{T}/r12copy2/x.yaml"], want=["--gpus", "one GPU"],
      files={"r12copy2/x.yaml": h200})
    c("r12_gpu_entry_copy_price", ["predict", "--gpu", "{T}/r12copy3/x.yaml", "--kernel", K], "good",
      files={"r12copy3/x.yaml": h200 + "\n"})
    # 2. --help --format json
    for n, argv in (("top", ["--help", "--format", "json"]), ("e2e", E + ["--help", "--format", "json"]),
                    ("predict_eq", ["predict", "--help", "--format=json"]), ("report", ["report", "--help", "--format", "json"]),
                    ("trace", ["trace", "--help", "--format", "json"])):
        c(f"r12_help_json_{n}", argv, "good", want=['"usage"'])
    # 3. -o - is stdout (or refused where stdout cannot take it)
    for n, argv, exp, want in (
            ("report", ["report", "--sample", "-o", "-"], "good", ["<!DOCTYPE"]),
            ("report_both", ["report", "--sample", "--json-out", "-"], "bad", ["--json-out"]),
            ("report_json_out", ["report", "--sample", "--json-out", "-", "-o", "{T}/r12r.html"], "good", ['"title"']),
            ("calibrate", ["calibrate", "tests/data/calibrate/good.json", "--gpu", "h100-sxm", "-o", "-"], "good", ["extends"]),
            ("compact", ["trace", "compact", "traces/h200/sms132-linear.corpus.csv.gz", "-o", "-"], "good", ["#loom-corpus"]),
            ("plan", ["tune", "--plan", "--gpu", "h200", "--family", "gemm", "--out", "-"], "good", ["# loom tune --plan"]),
            ("fit", ["tune", "--fit", "--gpu", "h200", "--family", "gemm", "--out", "-"], "bad", ["--out"]),
            ("export", ["tune", "--export", "--gpu", "h200", "--family", "gemm", "--out", "-"], "bad", ["--out"]),
            ("moe", ["tune", "--export-moe-configs", "-", "--gpu", "h200", "--model", "mixtral-8x7b"], "bad",
             ["--export-moe-configs"]),
            ("e2e_trace", E + ["--trace-out", "-"], "bad", ["--trace-out"]),
            ("simulate_trace", S + ["--trace-out", "-"], "bad", ["--trace-out"]),
            ("validate", ["validate", "--out", "-"], "bad", ["--out"]),
            ("train", ["train", "--out", "-"], "bad", ["--out"]),
            ("import_from", ["trace", "import", "--from", "neusight", "tests/data/public/neusight_ok.csv", "--out", "-"], "bad",
             ["--out"])):
        c(f"r12_stdout_{n}", argv, exp, want=want)
    # 4. control bytes in output paths and in --dataset
    for n, argv in (("report", ["report", "--sample", "-o", "{T}/a\nb.html"]),
                    ("report_json", ["report", "--sample", "--json-out", "{T}/a\tb.json", "-o", "{T}/r12x.html"]),
                    ("calibrate", ["calibrate", "tests/data/calibrate/good.json", "--gpu", "h100-sxm", "-o", "{T}/c\nd.yaml"]),
                    ("e2e", E + ["--trace-out", "{T}/t\x1b[2J.json"]),
                    ("simulate", S + ["--trace-out", "{T}/s\r.json"]),
                    ("compact", ["trace", "compact", "traces/h200/sms132-linear.corpus.csv.gz", "-o", "{T}/x\ny.corpus.csv"]),
                    ("import", ["trace", "import", "--lct", "traces/e2e/h200/graph_decode.lct.gz", "--cases",
                                "traces/e2e/h200/graph_decode.cases.csv", "-o", "{T}/i\n.corpus.csv"]),
                    ("plan", ["tune", "--plan", "--gpu", "h200", "--family", "gemm", "--out", "{T}/p\x7f.txt"]),
                    ("moe", ["tune", "--export-moe-configs", "{T}/m\noe", "--gpu", "h200", "--model", "mixtral-8x7b"])):
        c(f"r12_ctrl_path_{n}", argv, want=["control character"])
    c("r12_dataset_newline", ["trace", "import", "--lct", "traces/e2e/h200/graph_decode.lct.gz", "--cases",
                              "traces/e2e/h200/graph_decode.cases.csv", "-o", "{T}/r12ds.corpus.csv", "--dataset",
                              "a\nb", "--split", "test"], want=["--dataset"])
    c("r12_dataset_tab", ["trace", "import", "--lct", "traces/e2e/h200/graph_decode.lct.gz", "--cases",
                          "traces/e2e/h200/graph_decode.cases.csv", "-o", "{T}/r12ds2.corpus.csv", "--dataset",
                          "a\tb", "--split", "train"], want=["--dataset"])
    # 5. trace summary over a folder of a case list and its .lct
    lct = open(os.path.join(REPO, "traces/e2e/h200/graph_decode.lct.gz"), "rb").read()
    cases = open(os.path.join(REPO, "traces/e2e/h200/graph_decode.cases.csv")).read()
    c("r12_summary_pair", ["trace", "summary", "{T}/r12pair"], "good", want=["h200"],
      files={"r12pair/run.lct.gz": lct, "r12pair/run.cases.csv": cases})
    c("r12_summary_pair_json", ["trace", "summary", "{T}/r12pair", "--format", "json"], "good", want=['"counts"'])
    c("r12_summary_cases_only", ["trace", "summary", "{T}/r12co"], want=["no traces here"],
      files={"r12co/run.cases.csv": cases})
    c("r12_summary_pair_bad_lct", ["trace", "summary", "{T}/r12pb"], want=["run.lct"],
      files={"r12pb/run.lct": "#loom-cupti 1\n#gpu=NVIDIA H200\n#sms=abc\n", "r12pb/run.cases.csv": cases})
    # 6. collectives of one GPU
    for fam in ("all_reduce", "all_gather", "reduce_scatter"):
        c(f"r12_collective_one_{fam}", ["predict", "--gpu", "h200", "--kernel", f"{fam} bytes=1048576 gpus=1"],
          want=["gpus=1"])
    c("r12_collective_zero", ["predict", "--gpu", "h200", "--kernel", "all_reduce bytes=1048576 gpus=0"], want=["gpus"])
    c("r12_collective_two", ["predict", "--gpu", "h200", "--kernel", "all_reduce bytes=1048576 gpus=2"], "good")
    c("r12_e2e_tp1", E + ["--tp", "1", "--format", "json"], "good")
    c("r12_diagnose_one", ["diagnose", "--gpu", "h200", "--kernel", "all_gather bytes=64 gpus=1"], want=["gpus=1"])


def add_report_inputs(c):
    """`loom report --e2e/--whatif/--simulate/--validation FILE` over loom's own answers, edited."""
    for kind in ("e2e", "whatif", "simulate"):
        j = loom_json(kind)
        text = json.dumps(j)
        flag = "--" + kind
        name = f"r12rep_{kind}"
        c(f"{name}_valid", ["report", flag, f"{{T}}/{name}/ok.json", "-o", f"{{T}}/{name}/ok.html"], "any",
          files={f"{name}/ok.json": text})
        edits = {
            "truncated": text[: len(text) // 2],
            "schema_other": json.dumps(dict(j, schema="loom.other/9")),
            "schema_missing": json.dumps({k: v for k, v in j.items() if k != "schema"}),
            "array": json.dumps([j]),
            "empty_object": "{}",
            "nul": text[:20] + "\x00" + text[20:],
            "trailing": text + " {}",
        }
        # the first number-valued key: huge, negative, a string
        key = next((k for k, v in j.items() if isinstance(v, (int, float)) and not isinstance(v, bool)), None)
        if key:
            edits["num_huge"] = text.replace(f'"{key}": {json.dumps(j[key])}', f'"{key}": 1e400', 1)
            edits["num_string"] = json.dumps(dict(j, **{key: "12"}))
        # A file without `schema` was read as an older loom's until round 13, which refuses it (json_obj.h
        # require_schema; probe_cases_r13.py); a field the report does not draw (e2e's `batch`) may hold anything.
        lenient = {"schema_missing"} | ({"num_string", "num_huge"} if kind == "e2e" else set())
        for n, body in edits.items():
            c(f"{name}_{n}", ["report", flag, f"{{T}}/{name}/{n}.json", "-o", f"{{T}}/{name}/{n}.html"],
              "any" if n in lenient else "bad", want=[f"{n}.json"], files={f"{name}/{n}.json": body})
    val = open(os.path.join(REPO, "tests/data/report/validation_small.json")).read()
    vj = json.loads(val)
    for n, body in (("truncated", val[: len(val) // 3]), ("points_object", json.dumps(dict(vj, points={}))),
                    ("schema_e2e", json.dumps(dict(vj, schema="loom.e2e/1"))), ("nul", val.replace('"', '"\x00', 1))):
        c(f"r12rep_validation_{n}", ["report", "--validation", f"{{T}}/r12val/{n}.json", "-o", "{T}/r12val/o.html"],
          "bad", want=[f"{n}.json"], files={f"r12val/{n}.json": body})
    c("r12rep_e2e_as_whatif", ["report", "--whatif", "{T}/r12rep_e2e/ok.json", "-o", "{T}/r12x1.html"], want=["ok.json"])
    c("r12rep_simulate_as_e2e", ["report", "--e2e", "{T}/r12rep_simulate/ok.json", "-o", "{T}/r12x2.html"],
      want=["ok.json"])


def add_set_kinds(c):
    """`--set` of each kind of GPU field: a count, a clock, a bandwidth, a size, a text, a list, a price, a group."""
    for n, kv, exp in (("count_float", "sms=131.5", "bad"), ("count_unit", "sms=132GB", "bad"),
                       ("clock_no_unit", "clocks.boost=1980", "any"), ("clock_neg", "clocks.boost=-1980MHz", "bad"),
                       ("bw_unit_wrong", "dram.bandwidth=4.8GHz", "bad"), ("bw_nan", "dram.bandwidth=nanTB/s", "bad"),
                       ("size_huge", "dram.capacity=1e30GB", "bad"), ("text_arch", "architecture=hopper2", "bad"),
                       ("text_empty", "dram.type=", "bad"), ("group", "dram=4", "bad"), ("price_neg", "price=-2", "bad"),
                       ("unicode_key", "dr\u00e4m.bandwidth=4TB/s", "bad"), ("del_value", "sms=13\x7f2", "bad"),
                       ("topology_upper", "interconnect.topology=NVSWITCH", "any")):
        c(f"r12_set_{n}", P + ["--set", kv], exp, want=["--set"] if exp == "bad" and n != "del_value" else [])


def py_env(argv, env):
    """A case that runs loom with extra environment variables (the probe sets none): a Python wrapper that passes
    loom's exit status and output through."""
    return ["@python", "import os, subprocess, sys\n"
            f"r = subprocess.run([os.environ['LOOM_PROBE_BINARY']] + {argv!r}, env=dict(os.environ, **{env!r}), "
            "capture_output=True)\n"
            "sys.stdout.buffer.write(r.stdout); sys.stderr.buffer.write(r.stderr); sys.exit(r.returncode)"]


def add_env(c):
    for n, env, exp in (("home_missing", {"LOOM_HOME": "/nonexistent"}, "bad"),
                        ("home_file", {"LOOM_HOME": REPO + "/README.md"}, "bad"),
                        ("home_empty_dir", {"LOOM_HOME": "/tmp"}, "bad"),
                        ("no_color", {"NO_COLOR": "1"}, "good"),
                        ("term_dumb", {"TERM": "dumb"}, "good")):
        c(f"r12_env_{n}", py_env(P, env), exp)
    c("r12_env_home_bad_msg", py_env(["predict", "--gpu", "h200", "--kernel", "gemm m=1 n=1 k=1 dtype=bf16"],
                                     {"LOOM_HOME": "/nonexistent"}), want=["LOOM_HOME"])


def add_flags(c):
    """simulate, validate, tune --export-moe-configs and calibrate flags earlier rounds did not try."""
    for n, extra, exp in (("series_zero", ["--series-points", "0"], "bad"),
                          ("series_huge", ["--series-points", "1e9"], "bad"),
                          ("series_text", ["--series-points", "many"], "bad"),
                          ("kernel_model_bad", ["--kernel-model", "magic"], "bad"),
                          ("clock_text", ["--clock", "fast"], "bad"),
                          ("slo_unit", ["--slo", "ttft=2parsecs"], "bad"),
                          ("slo_unknown", ["--slo", "latency=2s"], "bad"),
                          ("quiet_twice", ["--quiet", "--quiet"], "any")):
        c(f"r12_sim_{n}", S + extra, exp)
    for n, extra, exp in (("max_mape_neg", ["--max-mape", "-1"], "bad"), ("max_mape_text", ["--max-mape", "x"], "bad"),
                          ("model_dir_missing", ["--model-dir", "/nonexistent"], "bad"),
                          ("format_xml", ["--format", "xml"], "bad"), ("traces_file", ["--traces", "README.md"], "bad")):
        c(f"r12_validate_{n}", ["validate"] + extra, exp)
    M = ["tune", "--export-moe-configs", "{T}/r12moe", "--gpu", "h200"]
    for n, extra, exp in (("dense_model", ["--model", "llama-3-8b"], "bad"), ("tp_zero", ["--model", "mixtral-8x7b", "--tp", "0"], "bad"),
                          ("dtype_bad", ["--model", "mixtral-8x7b", "--dtype", "int3"], "bad"),
                          ("tables_missing", ["--model", "mixtral-8x7b", "--tables", "/nonexistent.json"], "bad"),
                          ("no_model", [], "bad")):
        c(f"r12_moe_{n}", M + extra, exp)
    cal = json.load(open(os.path.join(REPO, "tests/data/calibrate/good.json")))
    for n, body in (("array", json.dumps([cal])), ("truncated", json.dumps(cal)[:40]),
                    ("nul", json.dumps(cal).replace('"', '"\x00', 1)), ("empty", "")):
        c(f"r12_cal_{n}", ["calibrate", f"{{T}}/r12cal_{n}.json", "--gpu", "h100-sxm"], "bad",
          want=[f"r12cal_{n}.json"], files={f"r12cal_{n}.json": body})


def add_spec_bytes(c):
    """NUL, non-ASCII and odd separators in a kernel spec."""
    for n, spec in (("ctrl", b"rms_norm rows=4096\x01 cols=8192"), ("latin1", b"rms_norm rows=4096 cols=8192 dtype=bf\xe9"),
                    ("utf8_digit", "rms_norm rows=\u0664\u0660\u0669\u0666 cols=8192".encode()),
                    ("fullwidth_eq", "rms_norm rows\uff1d4096 cols=8192".encode()),
                    ("nbsp", "rms_norm\u00a0rows=4096 cols=8192".encode()),
                    ("tab_sep", b"rms_norm\trows=4096\tcols=8192")):
        c(f"r12_spec_{n}", ["predict", "--gpu", "h200", "--kernel", spec], "any" if n == "tab_sep" else "bad")


PY = ("import sys, loom\ntry:\n    r = {expr}\nexcept ValueError as e:\n    print('loom: ' + str(e), file=sys.stderr)\n"
      "    sys.exit(2)\nprint(repr(r))\n")


def add_python(c):
    """The Python module meets the same library: a collective of one GPU, a catalogue file by path, a path with a
    control byte."""
    k = "'" + K + "'"
    for n, expr, exp, want in (
            ("collective_one", "loom.predict('h200', 'all_reduce bytes=1048576 gpus=1')", "bad", ["gpus=1"]),
            ("collective_two", "loom.predict('h200', 'all_reduce bytes=1048576 gpus=2')", "good", []),
            ("gpu_path_is_entry", f"loom.predict('gpus/h200.yaml', {k}) == loom.predict('h200', {k}) or 1/0", "good", []),
            ("gpu_path_nl", f"loom.predict('gpus/h200\\n.yaml', {k})", "bad", ["h200"]),
            ("e2e_tp1", "loom.e2e('h200', 'llama-3-8b', 'decode', batch=4, context=64, tp=1)", "any", [])):
        c(f"r12_py_{n}", ["@python", PY.format(expr=expr)], exp, want=want)
