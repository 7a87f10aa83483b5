"""Probe cases (see probe_cases.py), fourth round: numbers exactly at and one past documented limits, control
characters and Unicode look-alikes in names and fields, CRLF / CR-only / empty files, directories and unwritable
places for every writer, flags given twice or in conflict, LOOM_* environment variables, stdout closed early
(SIGPIPE) or full, units of the wrong kind, NaN in every numeric field of the GPU YAML, serving profile, model config
and calibration readers, the Python module's argument names, and the known leftovers of round 3 (a --gpu file name
with a comma, e2e case lists' event columns, contexts beyond max_position_embeddings, unused config fields)."""
import csv
import io
import json
import os
import re

from probe_cases import REPO, read  # noqa: F401

K = "gemm m=64 n=64 k=64 dtype=bf16"
TK = "gemm m=3000 n=6144 k=4096 dtype=bf16"
P = ["predict", "--gpu", "h200", "--kernel", K]
E = ["e2e", "--gpu", "h200", "--model", "llama-3-8b", "--phase", "decode", "--batch", "1", "--context", "64"]
S = ["simulate", "--gpu", "h200", "--model", "llama-3-8b"]
SR = S + ["--rate", "2", "--num-requests", "20"]
W = ["whatif", "--model", "llama-3-8b", "--batch", "1", "--input-len", "8", "--output-len", "8", "--gpus", "h200"]
WC = ["whatif", "--model", "llama-3-8b", "--gpus", "h200", "--rate", "2"]
NS = "tests/data/public/neusight_ok.csv"
CAL = "tests/data/calibrate/good.json"
REQ = "tests/data/serving/requests.csv"
CASES = "traces/e2e/h200/graph_decode.cases.csv"
LCT = "traces/e2e/h200/graph_decode.lct.gz"

# The Python module: a ValueError must name the keyword argument (tp=), never the CLI's flag (--tp): exit 5 if it does.
PY = ("import re, sys, loom\ntry:\n    r = {expr}\nexcept ValueError as e:\n    print('loom: ' + str(e), file=sys.stderr)\n"
      "    sys.exit(5 if re.search(r'(^|[ (])--[a-z]', str(e).split(';')[0]) else 2)\nprint(repr(r))\n")
# A command under extra environment variables (the probe sets LOOM_HOME to the repository for every case).
ENV = ("import os, subprocess, sys\nloom = os.path.join(os.environ['PYTHONPATH'], '..', 'loom')\n"
       "r = subprocess.run([loom] + {argv!r}, env=dict(os.environ, **{env!r}))\nsys.exit(r.returncode)\n")
# stdout read for one line and closed (`loom ... | head -1`): loom must end quietly (exit 0, or killed by SIGPIPE /
# exit 141 as coreutils do) with no error on stderr (progress lines may be there); 'ok' is printed then.
PIPE = ("import os, signal, subprocess, sys\nloom = os.path.join(os.environ['PYTHONPATH'], '..', 'loom')\n"
        "p = subprocess.Popen([loom] + {argv!r}, stdout=subprocess.PIPE, stderr=subprocess.PIPE)\n"
        "p.stdout.readline(); p.stdout.close(); err = p.stderr.read(); rc = p.wait()\n"
        "if rc in (0, -signal.SIGPIPE, 141) and b'loom: ' not in err: print('ok'); sys.exit(0)\n"
        "sys.stderr.buffer.write(err); sys.exit(rc if rc > 0 else 3)\n")
FULL = ("import os, subprocess, sys\nloom = os.path.join(os.environ['PYTHONPATH'], '..', 'loom')\n"
        "r = subprocess.run([loom] + {argv!r}, stdout=open('/dev/full', 'w'))\nsys.exit(r.returncode)\n")
# report: the written HTML must not carry a user's markup unescaped (exit 4 when it does).
HTML = ("import os, subprocess, sys\nloom = os.path.join(os.environ['PYTHONPATH'], '..', 'loom')\n"
        "r = subprocess.run([loom] + {argv!r})\nif r.returncode: sys.exit(r.returncode)\n"
        "if {needle!r} in open({out!r}, encoding='utf-8', errors='replace').read():\n"
        "    print('loom: markup from the command line is in the HTML unescaped', file=sys.stderr); sys.exit(4)\n"
        "print('escaped')\n")


def add_round4(c):
    from probe_cases_round4b import add_round4b
    add_leftovers(c)
    add_limits(c)
    add_text(c)
    add_files(c)
    add_flags(c)
    add_env(c)
    add_outputs(c)
    add_catalogue_keys(c)
    add_round4b(c)


def yaml_fields(path):
    """Dotted keys of a YAML file's numeric leaves (a small indentation walk: loom's data files are plain maps)."""
    out, stack = [], []
    for line in read(path).decode().split("\n"):
        line = line.split("#")[0].rstrip()
        if not line.strip() or line.lstrip().startswith("-"):
            continue
        ind = len(line) - len(line.lstrip())
        k, _, v = line.strip().partition(":")
        while stack and stack[-1][0] >= ind:
            stack.pop()
        if not v.strip():
            stack.append((ind, k))
        elif re.match(r"^\s*[-+]?[0-9.]", v):
            out.append([s[1] for s in stack] + [k])
    return out


def nested(keys, value):
    return "".join("  " * i + k + ":\n" for i, k in enumerate(keys[:-1])) + "  " * (len(keys) - 1) + f"{keys[-1]}: {value}\n"


def add_leftovers(c):
    """Round 3's leftovers, each as a class."""
    comma = {"gc/h200,lab.yaml": "extends: h200\nname: lab H200\nsms: 100\n"}
    c("r4_gpu_comma_file", ["predict", "--gpu", "{T}/gc/h200,lab.yaml", "--kernel", K], "good", files=comma)
    c("r4_gpu_comma_file_diagnose", ["diagnose", "--gpu", "{T}/gc/h200,lab.yaml", "--kernel", K], "good", files=comma)
    c("r4_gpu_comma_file_whatif", ["whatif", "--model", "llama-3-8b", "--batch", "1", "--input-len", "8",
                                   "--output-len", "8", "--gpus", "{T}/gc/h200,lab.yaml"], "good", files=comma)
    c("r4_gpu_comma_file_report", ["report", "--gpu", "{T}/gc/h200,lab.yaml", "--kernel", K, "-o", "{T}/gc.html"],
      "good", files=comma)
    c("r4_gpu_comma_missing", ["predict", "--gpu", "{T}/gc/none,x.yaml", "--kernel", K], want=["none"])
    cases = read(CASES).decode()
    row = [ln for ln in cases.split("\n") if ln.startswith("1,")][0]
    f = row.split(",")
    for n, col, v in (("median_nan", 5, "nan"), ("median_inf", 5, "inf"), ("median_neg", 5, "-5"),
                      ("median_zero", 5, "0"), ("median_huge", 5, "1e300"), ("p10_nan", 6, "nan"),
                      ("p90_neg", 7, "-1"), ("p10_above", 6, "1e6"), ("reps0", 4, "0"), ("reps_neg", 4, "-3")):
        g = list(f)
        g[col] = v
        text = cases.replace(row, ",".join(g))
        c(f"r4_cases_{n}", ["validate", "--e2e", "--traces", "{T}/c4_" + n], want=["g.cases.csv"],
          files={f"c4_{n}/g.cases.csv": text, f"c4_{n}/g.lct.gz": "@LINK@" + os.path.join(REPO, LCT)})
    c("r4_cases_import_nan", ["trace", "import", "--lct", LCT, "--cases", "{T}/cn.cases.csv", "-o", "{T}/cn.csv.gz"],
      want=["cn.cases.csv"], files={"cn.cases.csv": cases.replace(row, ",".join(f[:5] + ["nan"] + f[6:]))})
    # A context beyond the case's model's max_position_embeddings: priced, and said (as `loom e2e` does).
    lct = "@LINK@" + os.path.join(REPO, LCT)
    base = json.loads(read("models/presets/llama-3.2-1b.json"))
    short = {"pe/g.cases.csv": cases.replace("model=llama-3.2-1b", "model=@T@/short-1b.json"), "pe/g.lct.gz": lct,
             "short-1b.json": json.dumps(dict(base, max_position_embeddings=256))}
    for fmt in ("json", "table", "csv"):
        c(f"r4_validate_e2e_beyond_positions_{fmt}",
          ["@python", ENVOUT.format(argv=["validate", "--e2e", "--traces", "{T}/pe", "--format", fmt],
                                    want="max_position_embeddings")], "good", files=short)
    m = json.loads(read("models/presets/llama-3-8b.json"))
    for n, kv in (("act_unknown", {"hidden_act": "swishy"}), ("act_int", {"hidden_act": 3}),
                  ("theta0", {"rope_theta": 0}), ("theta_neg", {"rope_theta": -10000.0}),
                  ("theta_str", {"rope_theta": "1e4"}), ("eps0", {"rms_norm_eps": 0}), ("eps_neg", {"rms_norm_eps": -1e-5}),
                  ("eps_big", {"rms_norm_eps": 2}), ("scaling_num", {"rope_scaling": 8}),
                  ("window0", {"sliding_window": 0}), ("dropout1", {"attention_dropout": 1.5})):
        key = list(kv)[0]
        c(f"r4_model_{n}", [x if x != "llama-3-8b" else "{T}/mu_" + n + ".json" for x in E], want=[key],
          files={f"mu_{n}.json": json.dumps(dict(m, **kv), indent=1)})
    for n, kv in (("act_gelu", {"hidden_act": "gelu_pytorch_tanh"}), ("scaling_null", {"rope_scaling": None}),
                  ("window_null", {"sliding_window": None})):
        c(f"r4_model_ok_{n}", [x if x != "llama-3-8b" else "{T}/mo_" + n + ".json" for x in E], "good",
          files={f"mo_{n}.json": json.dumps(dict(m, **kv), indent=1)})


# A command whose stdout or stderr must contain `want` (exit 0): warnings may go to stderr with CSV.
ENVOUT = ("import os, subprocess, sys\nloom = os.path.join(os.environ['PYTHONPATH'], '..', 'loom')\n"
          "r = subprocess.run([loom] + {argv!r}, capture_output=True)\nsys.stderr.buffer.write(r.stderr)\n"
          "if r.returncode: sys.exit(r.returncode)\n"
          "if {want!r}.encode() not in r.stdout + r.stderr: print('loom: no warning in the output', file=sys.stderr); "
          "sys.exit(4)\nprint('warned')\n")


def add_limits(c):
    """Numbers exactly at a documented limit (accepted) and one past it (refused naming the flag or field)."""
    for flag, at, past in (("--batch", "1000000", "1000001"), ("--tp", "1024", "1025"),
                           ("--context", "1073741824", "1073741825")):
        base = list(E) if flag in E else E + [flag, "1"]
        i = base.index(flag) + 1
        c(f"r4_lim_e2e{flag[1:]}_past", base[:i] + [past] + base[i + 1:], want=[flag])
        c(f"r4_lim_e2e{flag[1:]}_at", base[:i] + [at] + base[i + 1:], "any")
    B = ["predict", "--gpu", "h200", "--batch", "examples/kernels.csv", "--format", "csv"]
    for v, exp in (("256", "good"), ("257", "bad"), ("2.0", "bad"), ("+2", "any"), ("0x2", "bad"), ("02", "any"),
                   ("1e1", "bad"), ("٢", "bad")):
        c(f"r4_threads_{v}", B + ["--threads", v], exp, want=["--threads"] if exp == "bad" else [])
    for v, exp in (("256", "any"), ("257", "bad")):
        c(f"r4_whatif_threads_{v}", WC + ["--threads", v], exp, want=["--threads"] if exp == "bad" else [])
    m = json.loads(read("models/presets/llama-3-8b.json"))
    for n, key, at, past in (("layers", "num_hidden_layers", 1024, 1025), ("vocab", "vocab_size", 1 << 22, (1 << 22) + 1),
                             ("hidden", "hidden_size", 1 << 20, (1 << 20) + 1),
                             ("positions", "max_position_embeddings", 1 << 30, (1 << 30) + 1)):
        c(f"r4_lim_model_{n}_past", [x if x != "llama-3-8b" else "{T}/lp_" + n + ".json" for x in E], want=[key],
          files={f"lp_{n}.json": json.dumps(dict(m, **{key: past}))})
    c("r4_lim_model_layers_at", [x if x != "llama-3-8b" else "{T}/la_layers.json" for x in E], "any",
      files={"la_layers.json": json.dumps(dict(m, num_hidden_layers=1024))})
    for v in ("0", "-1", "1e9999"):
        c(f"r4_sim_rate_{v}", S + ["--rate", v, "--num-requests", "5"], want=["--rate"])


def add_text(c):
    """Control characters and Unicode in names and fields: never printed raw, never a look-alike accepted."""
    for n, name in (("esc", '"ab\\x1b[31mred"'), ("newline", '"two\\nlines"'), ("nul", '"cut\\0short"'),
                    ("bell", '"a\\abell"'), ("del", '"a\\x7fb"')):
        files = {f"cc_{n}.yaml": f"extends: h200\nname: {name}\n"}
        c(f"r4_gpu_name_{n}", ["gpus", "show", "{T}/cc_" + n + ".yaml"], want=["cc_" + n + ".yaml"], files=files)
        c(f"r4_gpu_name_{n}_predict", ["predict", "--gpu", "{T}/cc_" + n + ".yaml", "--kernel", K, "--format", "json"],
          want=["cc_" + n + ".yaml"], files=files)
    prof = read("models/profiles/vllm.yaml").decode()
    c("r4_profile_name_esc", E + ["--profile", "{T}/pesc.yaml"], want=["pesc.yaml"],
      files={"pesc.yaml": re.sub(r"(?m)^description: .*$", lambda _: 'description: "v\\x1b[2Jllm"', prof)})
    c("r4_gpu_name_unicode_ok", ["gpus", "show", "{T}/uni.yaml", "--format", "json"], "good",
      files={"uni.yaml": "extends: h200\nname: H200 – labo ✓ 東京\n"})
    for n, v in (("fullwidth", "８"), ("arabic", "٨"), ("superscript", "8²"), ("nbsp", "8\u00a0")):
        c(f"r4_batch_unicode_{n}", ["e2e", "--gpu", "h200", "--model", "llama-3-8b", "--phase", "decode", "--batch", v,
                                    "--context", "64"], want=["--batch"])
    c("r4_spec_zwsp", ["predict", "--gpu", "h200", "--kernel", "gemm\u200b m=64 n=64 k=64 dtype=bf16"])
    c("r4_spec_cyrillic", ["predict", "--gpu", "h200", "--kernel", "g\u0435mm m=64 n=64 k=64 dtype=bf16"])
    c("r4_gpu_arg_esc", ["predict", "--gpu", "h2\x1b[2J00", "--kernel", K], want=["--gpu"])
    c("r4_req_csv_arabic_digits", S + ["--requests", "{T}/rad.csv"],
      files={"rad.csv": "arrival_s,prompt_tokens,output_tokens\n0,١٠,10\n"})
    c("r4_batch_csv_family_esc", ["predict", "--gpu", "h200", "--batch", "{T}/bfe.csv"],
      files={"bfe.csv": "family,m,n,k,dtype\n\"ge\x1bmm\",64,64,64,bf16\n"})
    ch = '{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k\\u001b[31m", "ts": 0, "dur": 3}]}'
    c("r4_chrome_name_esc", ["trace", "import", "--chrome", "{T}/che.json"], "any", files={"che.json": ch})
    cal = read(CAL).decode()
    c("r4_calib_host_esc", ["calibrate", "{T}/calesc.json", "--gpu", "h100-sxm"], "any",
      files={"calesc.json": cal.replace('"host": "vm"', '"host": "v\\u001b[2Jm"')})
    for n, title in (("script", "</title><script>alert(1)</script>"), ("img", "<img src=x onerror=alert(1)>")):
        c(f"r4_report_title_{n}", ["@python", HTML.format(argv=["report", "--sample", "--title", title, "-o",
                                                                "{T}/rt_" + n + ".html"], needle=title,
                                                          out="{T}/rt_" + n + ".html")], "good")


def add_files(c):
    """CRLF and CR-only line ends, empty files, very long lines, duplicate rows, folders where a file goes."""
    gpu = "extends: h200\nname: lab\nsms: 100\n"
    c("r4_gpu_crlf", ["predict", "--gpu", "{T}/gcrlf.yaml", "--kernel", K], "good",
      files={"gcrlf.yaml": gpu.replace("\n", "\r\n")})
    c("r4_gpu_cr_only", ["predict", "--gpu", "{T}/gcr.yaml", "--kernel", K], "any",
      files={"gcr.yaml": gpu.replace("\n", "\r")})
    c("r4_gpu_empty", ["predict", "--gpu", "{T}/gempty.yaml", "--kernel", K], want=["gempty.yaml"],
      files={"gempty.yaml": ""})
    c("r4_gpu_comments_only", ["predict", "--gpu", "{T}/gcom.yaml", "--kernel", K], want=["gcom.yaml"],
      files={"gcom.yaml": "# nothing\n"})
    c("r4_calib_crlf", ["calibrate", "{T}/ccrlf.json", "--gpu", "h100-sxm"], "good",
      files={"ccrlf.json": read(CAL).replace(b"\n", b"\r\n")})
    c("r4_calib_empty_obj", ["calibrate", "{T}/cobj.json", "--gpu", "h100-sxm"], want=["cobj.json"], files={"cobj.json": "{}"})
    c("r4_cases_crlf", ["validate", "--e2e", "--traces", "{T}/ccr", "--format", "json"], "good",
      files={"ccr/g.cases.csv": read(CASES).replace(b"\n", b"\r\n"), "ccr/g.lct.gz": "@LINK@" + os.path.join(REPO, LCT)})
    c("r4_cases_empty", ["validate", "--e2e", "--traces", "{T}/cem"], want=["g.cases.csv"],
      files={"cem/g.cases.csv": "", "cem/g.lct.gz": "@LINK@" + os.path.join(REPO, LCT)})
    c("r4_cases_lct_empty", ["validate", "--e2e", "--traces", "{T}/cle"], want=["g.lct.gz"],
      files={"cle/g.cases.csv": read(CASES), "cle/g.lct.gz": b""})
    c("r4_cases_is_dir", ["validate", "--e2e", "--traces", "{T}/cdir"], "any",
      files={"cdir/g.cases.csv/x": "", "cdir/g.lct.gz": "@LINK@" + os.path.join(REPO, LCT)})
    c("r4_neusight_crlf", ["trace", "import", "--from", "neusight", "{T}/nscr.csv", "-o", "{T}/onscr"], "good",
      files={"nscr.csv": read(NS).replace(b"\n", b"\r\n")})
    ns = read(NS).split(b"\n")
    c("r4_neusight_dup_rows", ["trace", "import", "--from", "neusight", "{T}/nsd.csv", "-o", "{T}/onsd"], "any",
      files={"nsd.csv": b"\n".join([ns[0], ns[1], ns[1]]) + b"\n"})
    c("r4_neusight_header_twice", ["trace", "import", "--from", "neusight", "{T}/nsh.csv", "-o", "{T}/onsh"],
      files={"nsh.csv": b"\n".join([ns[0], ns[1], ns[0], ns[1]]) + b"\n"})
    c("r4_batch_cr_only", ["predict", "--gpu", "h200", "--batch", "{T}/bcr.csv"],
      files={"bcr.csv": "family,m,n,k,dtype\rgemm,64,64,64,bf16\r"})
    c("r4_batch_header_twice", ["predict", "--gpu", "h200", "--batch", "{T}/bht.csv"],
      files={"bht.csv": "family,m,n,k,dtype\ngemm,64,64,64,bf16\nfamily,m,n,k,dtype\n"})
    c("r4_req_header_twice", S + ["--requests", "{T}/rht.csv"],
      files={"rht.csv": "arrival_s,prompt_tokens,output_tokens\n0,10,10\narrival_s,prompt_tokens,output_tokens\n"})
    c("r4_batch_long_line", ["predict", "--gpu", "h200", "--batch", "{T}/blong.csv"],
      files={"blong.csv": "family,m,n,k,dtype\ngemm,64,64,64," + "b" * 5_000_000 + "\n"})
    c("r4_batch_many_columns", ["predict", "--gpu", "h200", "--batch", "{T}/bcols.csv"],
      files={"bcols.csv": "family," + ",".join(f"c{i}" for i in range(100000)) + "\n"})
    c("r4_lens_long_line", SR + ["--prompt-len", "file:{T}/llong.txt"], want=["llong.txt"],
      files={"llong.txt": "1" * 2_000_000 + "\n"})
    c("r4_gpu_long_name", ["gpus", "show", "{T}/glong.yaml", "--format", "csv"], "any",
      files={"glong.yaml": "extends: h200\nname: " + "x" * 1_000_000 + "\n"})
    c("r4_req_jsonl_empty_lines_only", S + ["--requests", "{T}/rel.jsonl"], want=["rel.jsonl"], files={"rel.jsonl": "\n\n\n"})
    c("r4_whatif_requests_empty", ["whatif", "--model", "llama-3-8b", "--gpus", "h200", "--requests", "{T}/wre.csv"],
      want=["wre.csv"], files={"wre.csv": ""})
    c("r4_tables_empty", ["tune", "--gpu", "h200", "--kernel", TK, "--tables", "{T}/te.json"], want=["te.json"],
      files={"te.json": ""})
    c("r4_tables_dup_key", ["tune", "--gpu", "h200", "--kernel", TK, "--tables", "{T}/td.json"], want=["td.json"],
      files={"td.json": read("models/tune/h200-gemm.json").decode().replace("{", '{"sms": 100, ', 1)})
    c("r4_chrome_dup_key", ["trace", "import", "--chrome", "{T}/chd.json"], want=["chd.json", "dur"],
      files={"chd.json": '{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": 0, "dur": 3, "dur": 5}]}'})
    c("r4_replay_dup_key", ["e2e", "--gpu", "h200", "--replay", "{T}/chd2.json"], want=["chd2.json", "ts"],
      files={"chd2.json": '{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": 0, "ts": 9, "dur": 3}]}'})
    c("r4_moe_out_is_file", ["tune", "--gpu", "h200", "--model", "qwen3-30b-a3b", "--export-moe-configs",
                             "{T}/moefile"], want=["moefile"], files={"moefile": "x"})
    c("r4_export_out_dir", ["tune", "--export", "--gpu", "h200", "--family", "gemm", "--out", "{T}/exdir"],
      "any", files={"exdir/.keep": ""})
    c("r4_plan_out_dir", ["tune", "--plan", "--gpu", "h200", "--family", "gemm", "--out", "{T}/pldir"],
      want=["pldir"], files={"pldir/.keep": ""})
    c("r4_json_out_dir", ["report", "--sample", "--json-out", "{T}/jod", "-o", "{T}/jo.html"], want=["jod"],
      files={"jod/.keep": ""})
    c("r4_import_o_file", ["trace", "import", "--from", "neusight", NS, "-o", "{T}/iof"], "any", files={"iof": "x"})
    c("r4_validate_traces_file", ["validate", "--e2e", "--traces", CASES], want=["--traces"])
    c("r4_summary_dir_named_corpus", ["trace", "summary", "{T}/sdn"], files={"sdn/x.corpus.csv.gz/y": ""})


def add_flags(c):
    """A flag given twice with different values, and flags that contradict each other."""
    for n, base, flag, v1, v2 in (("e2e_phase", E, "--phase", "decode", "prefill"), ("e2e_batch", E, "--batch", "1", "2"),
                                  ("e2e_model", E, "--model", "llama-3-8b", "mistral-7b"),
                                  ("e2e_profile", E, "--profile", "vllm", "sglang"),
                                  ("e2e_kernel_model", E, "--kernel-model", "learned", "analytical"),
                                  ("e2e_clock", E, "--clock", "boost", "sustained"),
                                  ("sim_tp", SR, "--tp", "1", "2"), ("sim_slo", SR, "--slo", "ttft=1s", "ttft=2s"),
                                  ("whatif_gpus", W, "--gpus", "h200", "h100-sxm"),
                                  ("tune_family", ["tune", "--plan", "--gpu", "h200"], "--family", "gemm", "moe"),
                                  ("calib_gpu", ["calibrate", CAL], "--gpu", "h100-sxm", "h200"),
                                  ("report_title", ["report", "--sample", "-o", "{T}/tt.html"], "--title", "a", "b"),
                                  ("validate_traces", ["validate", "--e2e"], "--traces", "traces/e2e", "traces/e2e/h200"),
                                  ("import_from", ["trace", "import", NS, "-o", "{T}/iff"], "--from", "neusight", "vidur"),
                                  ("predict_model", P, "--model", "learned", "analytical")):
        a = list(base)
        if flag in a:
            a = a[:a.index(flag)] + a[a.index(flag) + 2:]
        c(f"r4_twice_{n}", a + [flag, v1, flag, v2], want=[flag])
    for n, argv, exp in (("quiet", SR + ["--quiet", "--quiet"], "any"), ("per_request", SR + ["--per-request", "--per-request"], "any"),
                         ("interval", P + ["--interval", "--interval"], "any"),
                         ("same_value", E + ["--batch", "1"], "any")):
        c(f"r4_twice_bool_{n}", argv, exp)
    for n, argv, want in (("req_rate", S + ["--requests", REQ, "--rate", "2"], "--rate"),
                          ("req_prompt_len", S + ["--requests", REQ, "--prompt-len", "100"], "--prompt-len"),
                          ("req_arrivals", S + ["--requests", REQ, "--arrivals", "gamma:cv=2"], "--arrivals"),
                          ("req_output_len", S + ["--requests", REQ, "--output-len", "10"], "--output-len"),
                          ("whatif_req_rate", ["whatif", "--model", "llama-3-8b", "--gpus", "h200", "--requests", REQ,
                                               "--rate", "2"], "--rate"),
                          ("predict_kernel_batch", P + ["--batch", "examples/kernels.csv"], "--batch"),
                          ("tune_kernel_family", ["tune", "--gpu", "h200", "--kernel", TK, "--family", "gemm"], "--family"),
                          ("e2e_replay_model", ["e2e", "--gpu", "h200", "--replay", "tests/data/trace/torch_profile_sample.json",
                                                "--model", "llama-3-8b"], "--model"),
                          ("e2e_prefill_cache_len", ["e2e", "--gpu", "h200", "--model", "llama-3-8b", "--phase", "prefill",
                                                     "--seq", "8", "--cache-len", "64"], "--cache-len"),
                          ("sim_quiet_per_request", SR + ["--quiet", "--per-request"], "--quiet"),
                          ("report_sample_json_in", ["report", "--sample", "--json-in", "{T}/x.json", "-o", "{T}/sj.html"],
                           "--sample")):
        c(f"r4_conflict_{n}", argv, "any" if n in ("sim_quiet_per_request", "e2e_prefill_cache_len") else "bad",
          want=[] if n in ("sim_quiet_per_request", "e2e_prefill_cache_len") else [want],
          files={"x.json": '{"title": "t"}'})


def add_env(c):
    """LOOM_HOME and LOOM_PACKED_DIR: relative, with trailing slashes, a file, a folder of broken packs."""
    for n, env, exp, want in (("home_dot", {"LOOM_HOME": "."}, "good", []),
                              ("home_slashes", {"LOOM_HOME": REPO + "///"}, "good", []),
                              ("home_empty", {"LOOM_HOME": ""}, "any", []),
                              ("home_newline", {"LOOM_HOME": REPO + "\n"}, "bad", []),
                              ("packed_missing", {"LOOM_PACKED_DIR": "/nonexistent"}, "good", []),
                              ("packed_file", {"LOOM_PACKED_DIR": "/etc/passwd"}, "good", []),
                              ("packed_empty", {"LOOM_PACKED_DIR": ""}, "good", []),
                              ("packed_junk", {"LOOM_PACKED_DIR": "{T}/pj"}, "good", [])):
        files = {}
        if n == "packed_junk":  # every pack of the build, cut to its first 100 bytes
            d = os.path.join(os.path.dirname(REPO), os.path.basename(REPO), "build", "models", "packed")
            for f in (os.listdir(d) if os.path.isdir(d) else []):
                if f.endswith(".lfb"):
                    with open(os.path.join(d, f), "rb") as fh:
                        files["pj/" + f] = fh.read()[:100] or b"x"
        for cmd, argv in (("predict", ["predict", "--gpu", "h200", "--kernel", K]), ("e2e", E)):
            c(f"r4_env_{n}_{cmd}", ["@python", ENV.format(argv=argv, env=env)], exp, want=want, files=files)


# A command under a LOOM_HOME whose gpus/ holds the catalogue plus one extra entry named `key`.
HOME = ("import os, shutil, subprocess, sys, tempfile\nloom = os.path.join(os.environ['PYTHONPATH'], '..', 'loom')\n"
        "d = tempfile.mkdtemp()\nshutil.copytree({repo!r} + '/gpus', d + '/gpus')\n"
        "for x in ('models', 'kernels', 'traces'): os.symlink({repo!r} + '/' + x, d + '/' + x)\n"
        "open(d + '/gpus/' + {key!r} + '.yaml', 'w').write('extends: h200\\nname: extra\\n')\n"
        "r = subprocess.run([loom] + {argv!r}, env=dict(os.environ, LOOM_HOME=d))\nshutil.rmtree(d)\n"
        "sys.exit(r.returncode)\n")


def add_catalogue_keys(c):
    """A catalogue entry whose key the command line cannot name (all, a comma, a colon...): refused at load."""
    for n, key in (("all", "all"), ("comma", "a,b"), ("colon", "x:y"), ("equals", "k=v"), ("dash", "-x"),
                   ("space", "sp ace")):
        c(f"r4_catalogue_key_{n}", ["@python", HOME.format(repo=REPO, key=key, argv=["predict", "--gpu", "h200",
                                                                                   "--kernel", K])],
          want=[key + ".yaml", "catalogue key"])
    c("r4_catalogue_key_ok", ["@python", HOME.format(repo=REPO, key="lab-h200_2", argv=["predict", "--gpu", "lab-h200_2",
                                                                                       "--kernel", K])], "good")


def add_outputs(c):
    """Every writer to a place it cannot write (/proc, /dev/full), stdout full, stdout closed early."""
    for n, argv in (("trace_out", E + ["--trace-out", "/proc/loom.json"]),
                    ("sim_trace_out", SR + ["--trace-out", "/proc/loom.json"]),
                    ("report_o", ["report", "--sample", "-o", "/proc/loom.html"]),
                    ("report_json_out", ["report", "--sample", "--json-out", "/proc/loom.json", "-o", "{T}/pj.html"]),
                    ("import_lct_o", ["trace", "import", "--lct", LCT, "--cases", CASES, "-o", "/proc/loom.csv.gz"]),
                    ("import_lct_full", ["trace", "import", "--lct", LCT, "--cases", CASES, "-o", "/dev/full"]),
                    ("import_from_o", ["trace", "import", "--from", "neusight", NS, "-o", "/proc/loomdir"]),
                    ("import_from_full", ["trace", "import", "--from", "neusight", NS, "-o", "/dev/full"]),
                    ("paths_o", ["trace", "paths", "traces/h200", "-o", "/proc/loom.json"]),
                    ("fitcoll_o", ["trace", "fit-collectives", "-o", "/proc/loom.json"]),
                    ("calib_o", ["calibrate", CAL, "--gpu", "h100-sxm", "-o", "/proc/loom.yaml"]),
                    ("export_o", ["tune", "--export", "--gpu", "h200", "--family", "gemm", "--out", "/proc/loomexp"]),
                    ("plan_o", ["tune", "--plan", "--gpu", "h200", "--family", "gemm", "--out", "/proc/loom.json"]),
                    ("plan_full", ["tune", "--plan", "--gpu", "h200", "--family", "gemm", "--out", "/dev/full"]),
                    ("moe_o", ["tune", "--gpu", "h200", "--model", "qwen3-30b-a3b", "--export-moe-configs", "/proc/loommoe"]),
                    ("moe_full", ["tune", "--gpu", "h200", "--model", "qwen3-30b-a3b", "--export-moe-configs",
                                  "/dev/full/x"])):
        c(f"r4_write_{n}", argv)
    for n, argv in (("e2e", E), ("simulate", SR), ("whatif", W), ("whatif_cap", WC), ("gpus", ["gpus"]),
                    ("gpus_show", ["gpus", "show", "h200"]), ("summary", ["trace", "summary", "traces/h200"]),
                    ("tune", ["tune", "--gpu", "h200", "--kernel", TK]), ("diagnose", ["diagnose", "--gpu", "h200", "--kernel", K]),
                    ("calibrate", ["calibrate", CAL, "--gpu", "h100-sxm"]),
                    ("chrome", ["trace", "import", "--chrome", "tests/data/trace/torch_profile_sample.json"]),
                    ("replay", ["e2e", "--gpu", "h200", "--replay", "tests/data/trace/torch_profile_sample.json"]),
                    ("batch_json", ["predict", "--gpu", "h200", "--batch", "examples/kernels.csv", "--format", "json"]),
                    ("plan_stdout", ["tune", "--plan", "--gpu", "h200", "--family", "gemm"])):
        c(f"r4_full_{n}", ["@python", FULL.format(argv=argv)], want=["stdout"])
    for n, argv in (("sim_per_request", S + ["--rate", "50", "--num-requests", "3000", "--per-request", "--format", "csv"]),
                    ("batch_big", ["predict", "--gpu", "h200", "--batch", "{T}/pbig.csv", "--format", "csv"]),
                    ("gpus_json", ["gpus", "--format", "json"]), ("summary", ["trace", "summary", "traces/h200"]),
                    ("whatif_all", ["whatif", "--model", "llama-3-8b", "--batch", "1", "--input-len", "8",
                                    "--output-len", "8", "--gpus", "all", "--format", "csv"]),
                    ("help", ["--help"])):
        c(f"r4_sigpipe_{n}", ["@python", PIPE.format(argv=argv)], "good", want=["ok"],
          files={"pbig.csv": "family,m,n,k,dtype\n" + "".join(f"gemm,{64 + i},64,64,bf16\n" for i in range(4000))})
