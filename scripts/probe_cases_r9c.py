"""Probe cases (see probe_cases.py), ninth round, last part: `tune --export-moe-configs` into odd folders and `tune
--family` values, `whatif --gpus` lists with repeats and edited GPU files, `e2e --replay` over odd Chrome traces, odd
paths (spaces, newlines, non-UTF-8 bytes, folders and links where files are expected), and the Python module / C API
equivalents."""
import json

from probe_cases import read
from probe_cases_r6 import PY6
from probe_cases_round3 import CAPI

K = "gemm m=4096 n=4096 k=4096 dtype=bf16"
CHROME = "tests/data/trace/torch_profile_sample.json"
MOE = ["tune", "--gpu", "h200", "--model", "qwen3-30b-a3b", "--export-moe-configs"]
W = ["whatif", "--model", "llama-3-8b", "--batch", "1", "--input-len", "64", "--output-len", "8", "--format", "json", "--gpus"]


def add_round9c(c):
    add_tune(c)
    add_whatif_gpus(c)
    add_replay(c)
    add_paths(c)
    add_python_capi(c)


def add_tune(c):
    """--export-moe-configs into odd folders; --family values; --tp/--dtype lists."""
    for n, d, files, exp in (
            ("space", "{T}/moe 9 dir", None, "any"), ("newline", "{T}/moe9\nx", None, "any"),
            ("bytes", b"{T}/moe9\xff", None, "any"), ("existing_file_inside", "{T}/moe9e", {"moe9e/README": "keep"}, "any"),
            ("link_to_file", "{T}/moe9lf", {"moe9target": "x", "moe9lf": "@LINK@moe9target"}, "bad"),
            ("link_loop", "{T}/moe9ll", {"moe9ll": "@LINK@moe9ll"}, "bad"), ("dot", ".", None, "any"),
            ("fifo", "{T}/moe9fifo", {"moe9fifo": "@FIFO@"}, "bad"), ("devnull", "/dev/null", None, "bad")):
        if n == "dot":
            continue  # would write into the repository
        c(f"r9_moecfg_{n}", MOE + [d], exp, want=[], files=files, empty_ok=True)
    for n, extra, want in (("tp_dup", ["--tp", "1,1"], "--tp"), ("tp_zero", ["--tp", "0"], "--tp"), ("tp_3", ["--tp", "3"], "--tp"),
                           ("tp_huge", ["--tp", "1024"], "--tp"), ("tp_empty_item", ["--tp", "1,,2"], "--tp"),
                           ("dtype_int8", ["--dtype", "int8"], "--dtype"), ("dtype_list", ["--dtype", "bf16,fp8"], "--dtype"),
                           ("dtype_upper", ["--dtype", "BF16"], "--dtype")):
        c(f"r9_moecfg_{n}", MOE + ["{T}/moe9f"] + extra, want=[want])
    for n, model, want in (("dense", "llama-3-8b", "llama-3-8b"), ("file_dir", "models", "models"),
                           ("missing", "qwen9-moe", "qwen9-moe"), ("empty", "", "--model")):
        c(f"r9_moecfg_model_{n}", ["tune", "--gpu", "h200", "--model", model, "--export-moe-configs", "{T}/moe9m"], want=[want])
    c("r9_moecfg_gpu_all", ["tune", "--gpu", "all", "--model", "qwen3-30b-a3b", "--export-moe-configs", "{T}/moe9a"], want=["--gpu"])
    c("r9_moecfg_gpu_yaml", ["tune", "--gpu", "examples/edited-h100.yaml", "--model", "qwen3-30b-a3b",
                             "--export-moe-configs", "{T}/moe9y"], want=["--gpu"])
    c("r9_moecfg_gpu_no_tables", ["tune", "--gpu", "t4", "--model", "qwen3-30b-a3b", "--export-moe-configs", "{T}/moe9t"], "any")
    for fam in ("GEMM", "gemm ", "gemm,moe", "moe-triton-fp16", "gemm-triton-fp8", "attention_decode", "all_reduce",
                "gemm-cublas", "", "moe-triton-fp8-fp8"):
        c(f"r9_tune_family_{fam.strip().replace(',', '_').replace('-', '_') or 'empty'}{'_sp' if fam.endswith(' ') else ''}",
          ["tune", "--plan", "--gpu", "h200", "--family", fam], want=["--family"])
    c("r9_tune_family_plan_fp8", ["tune", "--plan", "--gpu", "h200", "--family", "moe-triton-fp8"], want=["--family"])
    c("r9_tune_family_twice", ["tune", "--plan", "--gpu", "h200", "--family", "gemm", "--family", "moe"], want=["--family"])
    c("r9_tune_kernel_gpu_all", ["tune", "--gpu", "all", "--kernel", K], want=["--gpu"])
    c("r9_tune_kernel_gpu_list", ["tune", "--gpu", "h200,h200", "--kernel", K], want=["--gpu"])


def add_whatif_gpus(c):
    """--gpus lists: repeats, a file and its catalogue key, edited files twice, odd separators."""
    ed = "examples/edited-h100.yaml"
    for n, gpus, exp, want, files in (
            ("repeat", "h200,h200", "any", [], None), ("repeat3", "h200,b200,h200", "any", [], None),
            ("file_twice", f"{ed},{ed}", "any", [], None), ("file_and_key", "h100-sxm,gpus/h100-sxm.yaml", "any", [], None),
            ("two_files_same_name", "{T}/wg9a.yaml,{T}/wg9b.yaml", "any", [],
             {"wg9a.yaml": "extends: h200\nname: same\n", "wg9b.yaml": "extends: b200\nname: same\n"}),
            ("trailing_comma", "h200,", "bad", ["--gpus"], None), ("leading_comma", ",h200", "bad", ["--gpus"], None),
            ("double_comma", "h200,,b200", "bad", ["--gpus"], None), ("space_item", "h200, b200", "any", [], None),
            ("semicolon", "h200;b200", "bad", ["h200;b200"], None), ("all_twice", "all,all", "bad", ["all"], None),
            ("case", "H200", "any", [], None), ("edited_bad_second", "h200,{T}/wg9c.yaml", "bad", ["wg9c.yaml"],
                                                 {"wg9c.yaml": "extends: h200\nname: c\nsms: 0\n"}),
            ("file_edited_between", "{T}/wg9d.yaml,{T}/wg9d.yaml", "any", [], {"wg9d.yaml": "extends: h200\nname: d\n"}),
            ("dir_item", "h200,gpus", "bad", ["gpus"], None), ("missing_file", "h200,{T}/nope9.yaml", "bad", ["nope9.yaml"], None)):
        c(f"r9_whatif_gpus_{n}", W + [gpus], exp, want=want, files=files)
    c("r9_whatif_gpus_repeat_set", W + ["h200,h200", "--set", "h200:sms=66"], "any")
    c("r9_whatif_gpus_rate_repeat", ["whatif", "--model", "llama-3-8b", "--gpus", "h200,h200", "--rate", "1", "--num-requests",
                                     "10", "--format", "json"], "any")
    c("r9_whatif_gpus_flag_twice", W + ["h200", "--gpus", "b200"], want=["--gpus"])


def add_replay(c):
    """e2e --replay: odd Chrome traces."""
    ev = lambda *es: json.dumps({"traceEvents": list(es)})  # noqa: E731
    k = lambda **kw: dict({"ph": "X", "cat": "kernel", "name": "sm90_xmma_gemm_bf16", "pid": 0, "tid": 7, "ts": 10.0,
                           "dur": 5.0, "args": {"grid": [132, 1, 1], "block": [128, 1, 1]}}, **kw)  # noqa: E731
    for n, data, exp in (
            ("dur_nan_str", ev(k(dur="NaN")), "any"), ("dur_neg", ev(k(dur=-5.0), k(ts=20.0)), "any"),
            ("dur_huge", ev(k(dur=1e300)), "bad"), ("ts_huge", ev(k(ts=1e300)), "any"), ("ts_neg", ev(k(ts=-1e6)), "any"),
            ("ts_str", ev(k(ts="10")), "any"), ("dur_bool", ev(k(dur=True)), "any"), ("name_empty", ev(k(name="")), "any"),
            ("name_ctrl", ev(k(name="gemm\x1b[31m")), "any"), ("overlap", ev(k(), k(ts=11.0, tid=8)), "any"),
            ("events_obj", json.dumps({"traceEvents": {"a": 1}}), "bad"), ("events_null", json.dumps({"traceEvents": None}), "bad"),
            ("top_list", json.dumps([k()]), "any"), ("bom", "\ufeff" + ev(k()), "any"), ("nested_deep", "[" * 5000 + "]" * 5000, "bad"),
            ("utf16", ev(k()).encode("utf-16"), "bad"), ("one_event", ev(k()), "any"), ("ph_b", ev(k(ph="B")), "any"),
            ("grid_zero", ev(k(args={"grid": [0, 1, 1], "block": [128, 1, 1]})), "any")):
        c(f"r9_replay_{n}", ["e2e", "--gpu", "h200", "--replay", "{T}/rp9_" + n + ".json", "--format", "json"], exp,
          want=["rp9_" + n + ".json"] if exp == "bad" else [], files={"rp9_" + n + ".json": data})
    for n, extra, want in (("from_all", ["--from", "all"], "--from"), ("from_list", ["--from", "h200,b200"], "--from"),
                           ("from_same", ["--from", "h200"], None), ("from_yaml", ["--from", "examples/edited-h100.yaml"], None),
                           ("kernel_model_bad", ["--kernel-model", "xgb"], "--kernel-model"), ("gpu_all", ["--gpu", "all"], "--gpu")):
        argv = ["e2e", "--gpu", "h200", "--replay", CHROME, "--format", "json"]
        if extra[0] == "--gpu":
            argv[2] = extra[1]
        else:
            argv += extra
        c(f"r9_replay_{n}", argv, "any" if want is None else "bad", want=[want] if want else [])


def add_paths(c):
    """Paths with spaces, newlines, non-UTF-8 bytes; folders, links and devices where files are expected."""
    batch = "family,m,n,k,dtype\ngemm,64,64,64,bf16\n"
    for n, name in (("space", "b9 a.csv"), ("newline", "b9\nb.csv"), ("tab", "b9\tc.csv"), ("quote", "b9'\"d.csv"),
                    ("dash_start", "-b9e.csv"), ("unicode", "b9-é.csv")):
        c(f"r9_path_batch_{n}", ["predict", "--gpu", "h200", "--batch", "{T}/" + name, "--format", "json"], "good",
          files={name: batch})
    c("r9_path_batch_bytes", ["predict", "--gpu", "h200", "--batch", b"{T}/b9\xff.csv", "--format", "json"], "good",
      files={b"b9\xff.csv": batch})
    c("r9_path_bad_missing_bytes", ["predict", "--gpu", "h200", "--batch", b"{T}/none9\xff\x1b.csv"], want=["none9"])
    c("r9_path_gpu_bytes_yaml", ["predict", "--gpu", b"{T}/g9\xff.yaml", "--kernel", K], "good",
      files={b"g9\xff.yaml": "extends: h200\nname: g9\n"})
    c("r9_path_gpu_newline_yaml", ["predict", "--gpu", "{T}/g9\nn.yaml", "--kernel", K], "good",
      files={"g9\nn.yaml": "extends: h200\nname: g9n\n"})
    c("r9_path_model_space", ["e2e", "--gpu", "h200", "--model", "{T}/m 9.json", "--phase", "decode", "--batch", "1",
                              "--context", "64"], "good", files={"m 9.json": read("models/presets/llama-3-8b.json")})
    for n, flag_argv, want in (
            ("batch_dir", ["predict", "--gpu", "h200", "--batch", "{T}/p9dir"], "p9dir"),
            ("batch_loop", ["predict", "--gpu", "h200", "--batch", "{T}/bl9"], "bl9"),
            ("batch_dangling", ["predict", "--gpu", "h200", "--batch", "{T}/bd9"], "bd9"),
            ("model_dir_link", ["e2e", "--gpu", "h200", "--model", "{T}/md9", "--phase", "decode", "--batch", "1", "--context", "64"], "md9"),
            ("profile_loop", ["e2e", "--gpu", "h200", "--model", "llama-3-8b", "--phase", "decode", "--batch", "1", "--context", "64",
                              "--profile", "{T}/pl9"], "pl9"),
            ("json_in_dir", ["report", "--json-in", "{T}/p9dir", "-o", "{T}/r9.html"], "p9dir"),
            ("validation_devzero", ["report", "--validation", "/dev/zero", "-o", "{T}/r9z.html"], "/dev/zero"),
            ("html_out_readonly", ["report", "--sample", "-o", "/proc/r9.html"], "r9.html"),
            ("trace_out_loop", ["e2e", "--gpu", "h200", "--model", "llama-3-8b", "--phase", "decode", "--batch", "1",
                                "--context", "64", "--trace-out", "{T}/tl9"], "tl9"),
            ("cases_stdin", ["trace", "import", "--lct", "traces/e2e/h200/graph_decode.lct.gz", "--cases", "-", "-o", "{T}/c9.csv"], "-"),
            ("lct_dir", ["trace", "import", "--lct", "{T}/p9dir", "--cases", "traces/e2e/h200/graph_decode.cases.csv", "-o", "{T}/c9b.csv"], "p9dir")):
        c(f"r9_path_{n}", flag_argv, want=[want], files={"bl9": "@LINK@bl9", "bd9": "@LINK@nowhere9", "md9": "@LINK@.",
                                                         "pl9": "@LINK@pl9", "tl9": "@LINK@tl9", "p9dir/.keep": ""})
    c("r9_path_report_json_out_is_input", ["report", "--validation", "{T}/rv9.json", "--json-out", "{T}/rv9.json", "-o",
                                           "{T}/rv9.html"], want=["rv9.json"],
      files={"rv9.json": json.dumps({"splits": [], "groups": [], "worst": [], "points": []})})
    c("r9_path_trace_out_is_model", ["e2e", "--gpu", "h200", "--model", "{T}/tm9.json", "--phase", "decode", "--batch", "1",
                                     "--context", "64", "--trace-out", "{T}/tm9.json"], want=["tm9.json"],
      files={"tm9.json": read("models/presets/llama-3-8b.json")})
    c("r9_path_trace_out_is_gpu", ["e2e", "--gpu", "{T}/tg9.yaml", "--model", "llama-3-8b", "--phase", "decode", "--batch",
                                   "1", "--context", "64", "--trace-out", "{T}/tg9.yaml"], want=["tg9.yaml"],
      files={"tg9.yaml": "extends: h200\nname: tg9\n"})
    c("r9_path_sim_trace_out_is_prompt_file", ["simulate", "--gpu", "h200", "--model", "llama-3-8b", "--rate", "1",
                                               "--num-requests", "5", "--prompt-len", "file:{T}/tp9.txt", "--trace-out",
                                               "{T}/tp9.txt"], want=["tp9.txt"], files={"tp9.txt": "100\n200\n"})


def add_python_capi(c):
    """The module and the C API on this round's inputs: edited GPU files with odd extends, odd paths."""
    for n, expr, exp, want, files in (
            ("gpu_cycle", f"loom.predict('{{T}}/py9a.yaml', '{K}')", "bad", ["extends"],
             {"py9a.yaml": "extends: @T@/py9b.yaml\nname: a\n", "py9b.yaml": "extends: @T@/py9a.yaml\nname: b\n"}),
            ("gpu_dir", f"loom.predict('{{T}}/py9dir', '{K}')", "bad", ["py9dir"], {"py9dir/.keep": ""}),
            ("gpu_fifo", f"loom.predict('{{T}}/py9fifo', '{K}')", "bad", ["py9fifo"], {"py9fifo": "@FIFO@"}),
            ("gpu_loop", f"loom.predict('{{T}}/py9loop', '{K}')", "bad", ["py9loop"], {"py9loop": "@LINK@py9loop"}),
            ("gpu_space_ok", f"loom.predict('{{T}}/py9 s.yaml', '{K}')", "good", [], {"py9 s.yaml": "extends: h200\nname: s\n"}),
            ("gpu_newline_ok", f"loom.predict('{{T}}/py9\\nn.yaml', '{K}')", "good", [], {"py9\nn.yaml": "extends: h200\nname: n\n"}),
            ("gpu_sms_zero", f"loom.predict('{{T}}/py9z.yaml', '{K}')", "bad", ["sms"], {"py9z.yaml": "extends: h200\nname: z\nsms: 0\n"}),
            ("gpu_dram_unit", f"loom.predict('{{T}}/py9u.yaml', '{K}')", "bad", ["bandwidth"],
             {"py9u.yaml": "extends: h200\nname: u\ndram: {bandwidth: 80 GiB}\n"}),
            ("e2e_model_dir", "loom.e2e('h200', '{T}', 'decode', context=64)", "bad", ["model"], None),
            ("e2e_model_fifo", "loom.e2e('h200', '{T}/py9mf', 'decode', context=64)", "bad", ["py9mf"], {"py9mf": "@FIFO@"}),
            ("e2e_profile_loop", "loom.e2e('h200', 'llama-3-8b', 'decode', context=64, profile='{T}/py9pl')", "bad", ["py9pl"],
             {"py9pl": "@LINK@py9pl"}),
            ("e2e_gpu_edited", "loom.e2e('{T}/py9e.yaml', 'llama-3-8b', 'decode', context=64)", "good", [],
             {"py9e.yaml": "extends: h200\nname: e\nsms: 100\n"}),
            ("batch_gpu_cell_file", "loom.predict_batch('h200', [dict(family='gemm', m=64, n=64, k=64, dtype='bf16', "
                                    "gpu='{T}/py9c.yaml')])", "any", [], {"py9c.yaml": "extends: h200\nname: c\n"}),
            ("batch_gpu_cell_cycle", "loom.predict_batch('h200', [dict(family='gemm', m=64, n=64, k=64, dtype='bf16', "
                                     "gpu='{T}/py9a.yaml')])", "bad", ["extends"],
             {"py9a.yaml": "extends: @T@/py9b.yaml\nname: a\n", "py9b.yaml": "extends: @T@/py9a.yaml\nname: b\n"}),
            ("tune_family_triton_fp8", "loom.tune('h200', 'moe tokens=64 experts=8 topk=2 hidden=4096 inter=14336 dtype=fp8 "
                                       "impl=triton')", "any", [], None),
            ("tune_gpu_all", f"loom.tune('all', '{K}')", "bad", ["gpu"], None),
            ("diagnose_gpu_list", f"loom.diagnose('h200,b200', '{K}')", "bad", ["gpu"], None)):
        c(f"r9_py_{n}", ["@python", PY6.format(expr=expr)], exp, want=want, files=files)
    for n, body, exp, want, files in (
            ("predict_gpu_cycle", "h = opened()\nr = lib.loom_predict(h, b'{T}/ca9a.yaml', b'" + K + "', C.byref(p))\ndone(h, r, 'x')",
             "bad", ["extends"], {"ca9a.yaml": "extends: @T@/ca9b.yaml\nname: a\n", "ca9b.yaml": "extends: @T@/ca9a.yaml\nname: b\n"}),
            ("predict_gpu_fifo", "h = opened()\nr = lib.loom_predict(h, b'{T}/ca9f', b'" + K + "', C.byref(p))\ndone(h, r, 'x')",
             "bad", ["ca9f"], {"ca9f": "@FIFO@"}),
            ("predict_gpu_bytes_ok", "h = opened()\nr = lib.loom_predict(h, b'{T}/ca9\\xff.yaml', b'" + K +
             "', C.byref(p))\ndone(h, r, 'ok')", "good", ["ok"], {b"ca9\xff.yaml": "extends: h200\nname: cb\n"}),
            ("predict_gpu_sms_neg", "h = opened()\nr = lib.loom_predict(h, b'{T}/ca9n.yaml', b'" + K + "', C.byref(p))\ndone(h, r, 'x')",
             "bad", ["sms"], {"ca9n.yaml": "extends: h200\nname: n\nsms: -3\n"}),
            ("open_data_dir_loop", "h = lib.loom_open(b'{T}/ca9loop', None, err, 512)\n"
                                   "print('loom: ' + err.value.decode(), file=sys.stderr) if not h else print('opened')\n"
                                   "sys.exit(2 if not h else 0)", "bad", ["ca9loop"], {"ca9loop": "@LINK@ca9loop"}),
            ("open_data_dir_file", "h = lib.loom_open(b'README.md', None, err, 512)\n"
                                   "print('loom: ' + err.value.decode(), file=sys.stderr) if not h else print('opened')\n"
                                   "sys.exit(2 if not h else 0)", "bad", ["README.md"], None),
            ("tune_gpu_file", "h = opened()\nr = lib.loom_tune(h, b'examples/edited-h100.yaml', b'" + K +
             "', cfg, 64, None)\ndone(h, r, 'x')", "bad", ["gpu"], None)):
        c(f"r9_capi_{n}", ["@python", CAPI + body + "\n"], exp, want=want, files=files)
