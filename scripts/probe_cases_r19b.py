"""Probe round 19, second part (see probe_cases_r19.py): a comma-decimal locale (CLI, Python module, C API), the
environment variables loom reads (LOOM_PACKED_DIR, LOOM_HOME, HOME), special input names, outputs that are FIFOs,
links and folders, `whatif --threads`, duck-typed `predict_batch` rows and two C API handles."""
import json
import os

from probe_cases_r19 import CAL, E, K, P, S, W, FIT, run_case

DE = {"LC_ALL": "de_DE.UTF-8", "LANG": "de_DE.UTF-8"}
FR = {"LC_NUMERIC": "fr_FR.UTF-8"}
BATCH = "family,m,n,k,dtype\ngemm,64,64,64,bf16\ngemm,4096,4096,4096,bf16\n"
GPU_YAML = "extends: h200\nname: slow clock\nlaunch_overhead: 3.5 us\nclock:\n  boost: 2000.5 MHz\n"
REQS = "arrival_s,prompt_tokens,output_tokens\n0.5,128,16\n1.25,256,32\n"

# The Python module in two fresh interpreters, one with the C locale and one after locale.setlocale(LC_ALL, LOC) (and
# the environment `env`): the reprs of `expr` must be the same ('same'), else 'DIFFERENT' (a defect: expect good).
LOCPY = r'''r = None  # {expr}
import os, subprocess, sys
EXPR, LOC, ENV = {expr!r}, {loc!r}, {env!r}
PROG = "import locale, sys, loom\nif sys.argv[1] != 'C': locale.setlocale(locale.LC_ALL, sys.argv[1])\n"
PROG += "import numpy as np\n" if "np." in EXPR else ""
PROG += "try:\n    v = repr(" + EXPR + ")\nexcept ValueError as e:\n    v = 'ValueError: ' + str(e)\nprint(v)\n"
py = '/usr/bin/python3' if os.path.exists('/usr/bin/python3') else sys.executable
env = dict(os.environ, **ENV)
a = subprocess.run([py, '-c', PROG, 'C'], capture_output=True, env=env)
b = subprocess.run([py, '-c', PROG, LOC], capture_output=True, env=env)
if a.returncode or b.returncode:
    sys.stderr.buffer.write(a.stderr + b.stderr)
    sys.exit(1)
print('same' if a.stdout == b.stdout else 'DIFFERENT: %r / %r' % (a.stdout[:400], b.stdout[:400]))
'''


def add_round19b(r):
    add_locale(r)
    add_env(r)
    add_special_inputs(r)
    add_outputs(r)
    add_threads(r)
    add_python_rows(r)
    add_capi(r)


def add_locale(r):
    """LC_ALL / LC_NUMERIC a comma-decimal locale: every output byte-identical to the C locale's."""
    f = {"r19_loc/b.csv": BATCH, "r19_loc/g.yaml": GPU_YAML, "r19_loc/req.csv": REQS}
    for n, argv in (("predict_json", P + ["--format", "json"]), ("predict_table", P),
                    ("e2e_json", E + ["--format", "json"]), ("e2e_table", E), ("whatif_csv", W + ["--format", "csv"]),
                    ("simulate_json", S + ["--format", "json"]), ("gpus", ["gpus"]),
                    ("set_clock", P + ["--set", "launch_overhead=2.5us", "--format", "json"]),
                    ("gpu_yaml", ["predict", "--gpu", "{T}/r19_loc/g.yaml", "--kernel", K, "--format", "json"]),
                    ("batch", ["predict", "--gpu", "h200", "--batch", "{T}/r19_loc/b.csv", "--format", "csv"]),
                    ("requests", ["simulate", "--gpu", "h200", "--model", "llama-3-8b", "--requests",
                                  "{T}/r19_loc/req.csv", "--format", "json"]),
                    ("calibrate", CAL + ["--format", "json"]),
                    ("diagnose", ["diagnose", "--gpu", "h200", "--kernel", K, "--measured-us", "1.5"]),
                    ("slo", S + ["--slo", "ttft=1.5s,tpot=50.5ms", "--format", "json"]),
                    ("bad_number", P + ["--set", "launch_overhead=2,5us"])):
        run_case(r, f"locale_de_{n}", argv, "good", ["same"], files=f, mode="compare", env=DE)
    for n, argv in (("predict_json", P + ["--format", "json"]), ("whatif_csv", W + ["--format", "csv"])):
        run_case(r, f"locale_fr_{n}", argv, "good", ["same"], files=f, mode="compare", env=FR)
    g = "'gemm m=4096 n=4096 k=4096 dtype=bf16'"
    for n, expr, env in (
            ("predict", f"loom.predict('h200', {g})", {}),
            ("predict_json_forest", f"loom.predict('h200', {g})", {"LOOM_PACKED_DIR": "/nonexistent/r19"}),
            ("batch_json_forest", f"loom.predict_batch('h200', [dict(family='gemm', m=64, n=64, k=64, "
                                  f"dtype='bf16')])", {"LOOM_PACKED_DIR": "/nonexistent/r19"}),
            ("diagnose", f"loom.diagnose('h200', {g})", {}),
            ("e2e", "loom.e2e('h200', 'llama-3-8b', 'decode', batch=8, context=1024)", {}),
            ("e2e_forest", "loom.e2e('h200', 'llama-3-8b', 'decode', batch=8, context=1024)",
             {"LOOM_PACKED_DIR": "/nonexistent/r19"}),
            ("e2e_prefill", "loom.e2e('h200', 'qwen3-30b-a3b', 'prefill', batch=2, seq=512)", {}),
            ("tune", "loom.tune('h200', 'moe m=64 n=14336 k=4096 experts=8 topk=2 dtype=fp8')", {}),
            ("e2e_note", "loom.e2e('h200', 'llama-3-70b', 'decode', batch=8, context=1024, tp=2)['memory']", {}),
            ("error", f"loom.predict('h200', 'gemm m=64 n=64 k=64 dtype=bf16 m_scale=1.5')", {})):
        r.c(f"r19_py_locale_{n}", ["@python", LOCPY.format(expr=expr, loc="de_DE.UTF-8", env=env)],
            "good", want=["same"])


def add_env(r):
    """LOOM_PACKED_DIR (the packed-model cache) and LOOM_HOME odd; HOME and XDG_* unset."""
    pk = "{T}/r19_pk"
    files = {"r19_pk/bad/yaml-checked.txt": "zzzzzzzzzzzzzzzz\n", "r19_pk/neg/yaml-checked.txt": "-fffffffffffffff\n",
             "r19_pk/long/yaml-checked.txt": "0123456789abcdef0\n" * 3, "r19_pk/bin/yaml-checked.txt": b"\xff" * 16,
             "r19_pk/lfb/catalog.lcp": "loom garbage\n", "r19_pk/empty/.keep": "", "r19_pk/file": "x\n"}
    for n, val, exp in (("empty", "", "good"), ("missing", "/nonexistent/r19", "good"), ("file", pk + "/file", "good"),
                        ("bad_checked", pk + "/bad", "good"), ("neg_checked", pk + "/neg", "good"),
                        ("long_checked", pk + "/long", "good"), ("binary_checked", pk + "/bin", "good"),
                        ("bad_catalog", pk + "/lfb", "good"), ("empty_dir", pk + "/empty", "good"),
                        ("huge", "/" + "p" * 100000, "good"), ("newline", pk + "/a\nb", "good"),
                        ("relative", "models", "good")):
        run_case(r, f"env_packed_{n}", P + ["--format", "json"], exp, ["latency_us"], files=files,
                 env={"LOOM_PACKED_DIR": val})
    for n, argv in (("predict", P + ["--format", "json"]), ("e2e", E + ["--format", "json"]),
                    ("whatif", W + ["--format", "csv"]), ("simulate", S + ["--format", "json"])):
        run_case(r, f"env_packed_same_{n}", argv, "good", ["same"], mode="compare",
                 env={"LOOM_PACKED_DIR": "/nonexistent/r19"})
    for n, env, unset, exp, want in (
            ("home_huge", {"LOOM_HOME": "/" + "h" * 100000}, [], "bad", ["LOOM_HOME"]),
            ("home_newline", {"LOOM_HOME": "{T}/r19\nhome"}, [], "bad", ["LOOM_HOME"]),
            ("home_dotdot", {"LOOM_HOME": "../" + os.path.basename(REPO_DIR())}, [], "good", ["latency_us"]),
            ("home_trailing_slashes", {"LOOM_HOME": "{REPO}///"}, [], "good", ["latency_us"]),
            ("home_dev_null", {"LOOM_HOME": "/dev/null"}, [], "bad", ["LOOM_HOME"]),
            ("no_home_xdg", {}, ["HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME"], "good",
             ["latency_us"])):
        env = {k: v.replace("{REPO}", REPO_DIR()) for k, v in env.items()}
        run_case(r, f"env_{n}", P + ["--format", "json"], exp, want, env=env, unset=unset)


def REPO_DIR():
    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def add_special_inputs(r):
    """'-', /dev/stdin (with and without a file on it), /dev/null, a file named --help, spaces, newlines, a name
    beyond NAME_MAX and a path beyond PATH_MAX, `..` chains."""
    f = {"r19_in/b.csv": BATCH, "r19_in/g.yaml": GPU_YAML, "r19_in/req.csv": REQS, "r19_in/--help": BATCH,
         "r19_in/a b/c d.csv": BATCH, "r19_in/nl\nx.csv": BATCH, "r19_in/empty.csv": "",
         "r19_in/m.json": json.dumps({"model_type": "llama", "hidden_size": 2048, "num_hidden_layers": 4,
                                      "num_attention_heads": 16, "num_key_value_heads": 8,
                                      "intermediate_size": 8192, "vocab_size": 32000})}
    d = "{T}/r19_in/"
    B = ["predict", "--gpu", "h200", "--batch"]
    for n, argv, stdin, exp, want in (
            ("batch_dash", B + ["-"], d + "b.csv", "any", []),
            ("batch_stdin", B + ["/dev/stdin"], d + "b.csv", "good", ["gemm"]),
            ("batch_stdin_empty", B + ["/dev/stdin"], d + "empty.csv", "bad", ["/dev/stdin"]),
            ("batch_stdin_none", B + ["/dev/stdin"], None, "bad", ["/dev/stdin"]),
            ("batch_dev_null", B + ["/dev/null"], None, "bad", ["/dev/null"]),
            ("batch_fd0", B + ["/dev/fd/0"], d + "b.csv", "good", ["gemm"]),
            ("batch_proc_stdin", B + ["/proc/self/fd/0"], d + "b.csv", "good", ["gemm"]),
            ("gpu_stdin", ["predict", "--gpu", "/dev/stdin", "--kernel", K], d + "g.yaml", "good", ["latency_us"]),
            ("gpu_stdin_batch", ["predict", "--gpu", "/dev/stdin", "--batch", "/dev/stdin"], d + "g.yaml", "bad",
             ["/dev/stdin"]),
            ("model_stdin", ["e2e", "--gpu", "h200", "--model", "/dev/stdin", "--phase", "decode", "--batch", "1",
                             "--context", "128"], d + "m.json", "good", ["decode"]),
            ("requests_stdin", ["simulate", "--gpu", "h200", "--model", "llama-3-8b", "--requests", "/dev/stdin"],
             d + "req.csv", "good", ["requests"]),
            ("requests_dash", ["simulate", "--gpu", "h200", "--model", "llama-3-8b", "--requests", "-"],
             d + "req.csv", "any", []),
            ("calibrate_stdin", ["calibrate", "/dev/stdin", "--gpu", "h100-sxm"], REPO_DIR() +
             "/tests/data/calibrate/good.json", "good", []),
            ("calibrate_stdin_out_stdin", ["calibrate", "/dev/stdin", "--gpu", "h100-sxm", "-o", "/dev/stdin"],
             REPO_DIR() + "/tests/data/calibrate/good.json", "bad", ["/dev/stdin"]),
            ("file_named_help", B + [d + "--help"], None, "good", ["gemm"]),
            ("spaces", B + [d + "a b/c d.csv"], None, "good", ["gemm"]),
            ("newline", B + [d + "nl\nx.csv"], None, "good", ["gemm"]),
            ("name_max", B + [d + "n" * 300 + ".csv"], None, "bad", ["r19_in"]),
            ("path_max", B + [d + ("q" * 200 + "/") * 25 + "b.csv"], None, "bad", ["r19_in"]),
            ("dotdot_chain", B + [d + "../r19_in/../r19_in/./b.csv"], None, "good", ["gemm"]),
            ("dotdot_root", B + ["../" * 40 + "etc/passwd"], None, "bad", ["passwd"]),
            ("dotdot_dir", B + [d + ".."], None, "bad", [".."]),
            ("trailing_slash", B + [d + "b.csv/"], None, "bad", ["b.csv/"])):
        run_case(r, f"in_{n}", argv, exp, want, files=f, stdin=stdin)


def add_outputs(r):
    """An output that is a FIFO, a link to the input, a dangling link, a folder, a link to a folder, '.', a name
    with a trailing slash: refused up front naming it, or written through the link; the input never lost."""
    d = "{T}/r19_out/"
    f = {"r19_out/in.json": open(os.path.join(REPO_DIR(), "tests/data/calibrate/good.json"), "rb").read(),
         "r19_out/fifo": "@FIFO@", "r19_out/link_in": "@LINK@in.json", "r19_out/dangling": "@LINK@target.html",
         "r19_out/dangling_dir": "@LINK@nodir/x.html", "r19_out/dir/.keep": "", "r19_out/link_dir": "@LINK@dir",
         "r19_out/hard_in": "@HARD@r19_out/in.json", "r19_out/loop": "@LINK@loop"}
    C = ["calibrate", d + "in.json", "--gpu", "h100-sxm", "-o"]
    for n, argv, exp, want, absent in (
            ("fifo_report", ["report", "--sample", "-o", d + "fifo"], "bad", ["fifo"], []),
            ("fifo_fit", FIT + ["--out", d + "fifo"], "bad", ["fifo"], []),
            ("fifo_trace", S + ["--trace-out", d + "fifo"], "bad", ["fifo"], []),
            ("link_to_input", C + [d + "link_in"], "bad", ["link_in"], []),
            ("hard_link_input", C + [d + "hard_in"], "bad", ["hard_in"], []),
            ("input_itself", C + [d + "in.json"], "bad", ["in.json"], []),
            ("dangling", ["report", "--sample", "-o", d + "dangling"], "good", [], []),
            ("dangling_no_dir", ["report", "--sample", "-o", d + "dangling_dir"], "bad", ["dangling_dir"], []),
            ("loop", ["report", "--sample", "-o", d + "loop"], "bad", ["loop"], []),
            ("dir", ["report", "--sample", "-o", d + "dir"], "bad", ["dir"], []),
            ("link_dir", FIT + ["--out", d + "link_dir"], "bad", ["link_dir"], []),
            ("dot", ["report", "--sample", "-o", "."], "bad", ["."], []),
            ("trailing_slash", ["report", "--sample", "-o", d + "new.html/"], "bad", ["new.html/"],
             [d + "new.html"]),
            ("empty_name", ["report", "--sample", "-o", ""], "bad", ["-o"], []),
            ("trace_dir", E + ["--trace-out", d + "dir"], "bad", ["dir"], [])):
        run_case(r, f"out_{n}", argv, exp, want, files=f, watch=d.rstrip("/"), absent=absent)
    run_case(r, "out_input_kept", ["calibrate", d + "in.json", "--gpu", "h100-sxm", "-o", d + "link_in"], "bad",
             ["link_in"], files=f)


def add_threads(r):
    """`whatif --threads` (the newest flag) with the analytical kernel model."""
    WA = W + ["--kernel-model", "analytical"]
    for n, v, exp in (("1e9", "1e9", "bad"), ("neg", "-1", "bad"), ("hex", "0x10", "bad"), ("plus", "+4", "bad"),
                      ("zero", "0", "bad"), ("max", "256", "good"), ("over", "257", "bad"), ("space", "4 ", "bad"),
                      ("float", "2.0", "bad"), ("huge", "9" * 40, "bad"), ("empty", "", "bad"),
                      ("unicode_digit", "\u0664", "bad")):
        r.cli(f"threads_{n}", WA + ["--threads", v], exp, [] if exp == "good" else ["--threads"], empty_ok=False)
    r.cli("threads_twice", WA + ["--threads", "2", "--threads", "3"], "bad", ["--threads"])
    r.cli("threads_on_predict", P + ["--threads", "2"], "any")
    for t in ("1", "3"):
        run_case(r, f"threads_same_{t}", WA + ["--threads", t, "--format", "csv"], "good", ["same"], mode="compare",
                 env={"LOOM_R19": "1"})


def add_python_rows(r):
    """predict_batch with duck-typed rows: generators, iterators, views, Mappings that are not dicts, a sequence
    whose __len__ lies or whose __getitem__ raises (the caller's exception passes through), odd cell objects."""
    row = "dict(family='gemm', m=64, n=64, k=64, dtype='bf16')"
    pb = "loom.predict_batch('h200', {})"
    for n, rows, exp, want in (
            ("generator", f"({row} for _ in range(3))", "good", []),
            ("iterator", f"iter([{row}])", "good", []),
            ("tuple", f"({row},)", "good", []),
            ("dict_values", f"{{'a': {row}}}.values()", "good", []),
            ("dict_of_lists", "{'family': ['gemm'], 'm': [64], 'n': [64], 'k': [64], 'dtype': ['bf16']}", "bad",
             ["rows"]),
            ("one_dict", row, "bad", ["rows"]),
            ("mapping_row", "[__import__('types').MappingProxyType(" + row + ")]", "bad", ["rows[0]"]),
            ("ordered_dict", "[__import__('collections').OrderedDict(" + row + ")]", "good", []),
            ("lying_len", "type('L', (list,), {'__len__': lambda s: 5})([" + row + "])", "good", []),
            ("str_rows", "'gemm'", "bad", ["rows"]),
            ("bytes_rows", "b'gemm'", "bad", ["rows"]),
            ("none_rows", "None", "bad", ["rows"]),
            ("index_cell", "[dict(" + row + ", m=type('I', (), {'__index__': lambda s: 64})())]", "bad",
             ["rows[0]", "m"]),
            ("bigint_cell", "[dict(" + row + ", m=10**30)]", "bad", ["rows[0]", "m"]),
            ("list_gpu", "[dict(" + row + ", gpu=['h200'])]", "bad", ["rows[0]", "gpu"]),
            ("int_gpu", "[dict(" + row + ", gpu=5)]", "bad", ["rows[0]", "gpu"]),
            ("same_dict_many", f"[{row}] * 500", "good", [])):
        r.py(f"rows_{n}", f"(lambda x: {{k: list(v)[:1] for k, v in x.items()}})({pb.format(rows)})", exp, want)
    raising = ("type('R', (), {'__len__': lambda s: 2, '__getitem__': lambda s, i: {}['mine']})()")
    gen = f"(({row} if i < 1 else 1 / 0) for i in range(3))"
    for n, rows, exc in (("getitem_raises", raising, "KeyError"), ("generator_raises", gen, "ZeroDivisionError")):
        code = "try:\n " + pb.format(rows) + "\nexcept " + exc + ":\n print(1)"
        r.py(f"rows_{n}", f"exec({code!r}) or 'the caller\\'s {exc} passed through'", "good", ["passed through"])


def add_capi(r):
    """Two handles at once, in two threads, a handle opened after another closed: the same numbers as one handle;
    under a comma-decimal locale set through libc (a C program's setlocale(LC_ALL, ""))."""
    spec = "b'gemm m=4096 n=4096 k=4096 dtype=bf16'"
    one = f"h = opened(m=b'learned')\nr = lib.loom_predict(h, b'h200', {spec}, C.byref(p))\nbase = p.latency_us\n"
    for n, body in (
            ("two_handles", one + f"g = opened(m=b'learned')\nq = P()\nr2 = lib.loom_predict(g, b'h200', {spec}, "
                                  "C.byref(q))\ndone(g, r2, 'same' if q.latency_us == base else 'DIFFERENT')"),
            ("closed_then_new", one + "lib.loom_close(h)\ng = opened(m=b'learned')\nq = P()\n"
                                      f"r2 = lib.loom_predict(g, b'h200', {spec}, C.byref(q))\n"
                                      "done(g, r2, 'same' if q.latency_us == base else 'DIFFERENT')"),
            ("threads", one + "import threading\nres = []\ndef go():\n    g = opened(m=b'learned')\n    q = P()\n"
                              f"    for _ in range(20):\n        lib.loom_predict(g, b'h200', {spec}, C.byref(q))\n"
                              "        res.append(q.latency_us)\n    lib.loom_close(g)\n"
                              "ts = [threading.Thread(target=go) for _ in range(4)]\n[t.start() for t in ts]\n"
                              "[t.join() for t in ts]\ndone(h, 0, 'same' if set(res) == {base} and len(res) == 80 "
                              "else 'DIFFERENT %r' % set(res))"),
            ("locale", one + "libc = C.CDLL(None)\nlibc.setlocale.restype = C.c_char_p\n"
                             "libc.setlocale(6, b'de_DE.UTF-8')\ng = opened(m=b'learned')\nq = P()\n"
                             f"r2 = lib.loom_predict(g, b'h200', {spec}, C.byref(q))\n"
                             "done(g, r2, 'same' if q.latency_us == base else 'DIFFERENT %r %r' % (q.latency_us, base))"),
            ("locale_forest", "os.environ['LOOM_PACKED_DIR'] = '/nonexistent/r19'\n" + one +
             "libc = C.CDLL(None)\nlibc.setlocale.restype = C.c_char_p\nlibc.setlocale(6, b'de_DE.UTF-8')\n"
             "g = opened(d=None, m=b'learned')\nq = P()\n"
             "r2 = lib.loom_predict(g, b'h100-sxm', b'gemm m=2048 n=2048 k=2048 dtype=bf16', C.byref(q))\n"
             "libc.setlocale(6, b'C')\nh2 = opened(m=b'learned')\nq2 = P()\n"
             "lib.loom_predict(h2, b'h100-sxm', b'gemm m=2048 n=2048 k=2048 dtype=bf16', C.byref(q2))\n"
             "done(g, r2, 'same' if q.latency_us == q2.latency_us else 'DIFFERENT %r %r' % (q.latency_us, "
             "q2.latency_us))"),
            ("error_locale", "libc = C.CDLL(None)\nlibc.setlocale.restype = C.c_char_p\n"
                             "libc.setlocale(6, b'de_DE.UTF-8')\nh = opened(m=b'learned')\n"
                             "r = lib.loom_predict(h, b'h200', b'gemm m=64 n=64 k=64 dtype=bf16 m=1.5', C.byref(p))\n"
                             "e = lib.loom_last_error(h).decode()\nlibc.setlocale(6, b'C')\n"
                             "g = opened(m=b'learned')\nlib.loom_predict(g, b'h200', b'gemm m=64 n=64 k=64 dtype=bf16 "
                             "m=1.5', C.byref(p))\ndone(g, 0, 'same' if e == lib.loom_last_error(g).decode() else "
                             "'DIFFERENT %r / %r' % (e, lib.loom_last_error(g)))")):
        r.capi(n, body, "good", ["same"])
