"""Probe cases (see probe_cases.py), seventeenth round, on the shared runner helpers of probe_lib.py: what changed since
round 16 and what rounds 1-16 probed least (counted per command, mode and flag over build_cases: `gpus --set` 1,
`diagnose --set` 3, `gpus show --set` 4, Python `loom.gpus` 4 and `loom.diagnose` 9, `report --kernel` 7,
`simulate --set` 7, `whatif --interval` 7, `tune --export` 13, the C API's `loom_tune` 16, `tune --fit` 17; eight
helper scripts never): `tune --validate --per-shape FILE.csv`, the engines' default-config corpora read beside a
held-out grid (`moe-triton-defaults-*.corpus.csv.gz`) edited, the Python module and the C API with bad values, the
helper scripts under scripts/ that take files, and the least-probed flags above."""
import json

from probe_lib import REPO, Round, corpus_parts, gz, text  # noqa: F401

GRID = "traces/checks/tune-blind2/h200/moe-triton-fp8/moe-triton-4.corpus.csv.gz"
DEFAULTS = "traces/checks/tune-blind2/h200/moe-triton-fp8/moe-triton-defaults-4.corpus.csv.gz"
V = ["tune", "--gpu", "h200", "--family", "moe-triton-fp8", "--validate", "--no-timing", "--traces", "traces/tune"]
K = "gemm m=64 n=64 k=64 dtype=bf16"
ROW = "{'family': 'gemm', 'm': 64, 'n': 64, 'k': 64, 'dtype': 'bf16'}"


def add_round17(c):
    r = Round(c, "r17")
    add_per_shape(r)
    add_defaults(r)
    add_python(r)
    add_capi(r)
    add_scripts(r)
    add_least_probed(r)


def add_per_shape(r):
    """tune --validate --per-shape FILE.csv: stdout, missing folders, folders, devices, other modes and families."""
    ho = ["--heldout-traces", "traces/checks/tune-blind2/h200/moe-triton-fp8", "--heldout-only"]
    for n, path, exp, want in (
            ("stdout", "-", "bad", ["--per-shape"]), ("no_folder", "{T}/r17_nofolder/x.csv", "bad", ["r17_nofolder"]),
            ("folder", "{T}", "bad", ["folder"]), ("dev_full", "/dev/full", "bad", ["/dev/full"]),
            ("proc", "/proc/r17x", "bad", ["/proc/r17x"]), ("sys", "/sys/r17/x.csv", "bad", ["/sys/r17"]),
            ("empty", "", "bad", []), ("newline", "{T}/r17_a\nb.csv", "bad", []),
            ("grid_itself", "{T}/r17_psgrid/moe-triton-4.corpus.csv.gz", "bad", ["input"])):
        files = {"r17_psgrid/moe-triton-4.corpus.csv.gz": open(f"{REPO}/{GRID}", "rb").read()} \
            if n == "grid_itself" else None
        extra = ["--heldout-traces", "{T}/r17_psgrid", "--heldout-only"] if n == "grid_itself" else []
        r.cli(f"pershape_{n}", V + extra + ["--per-shape", path], exp, want, files=files)
    r.cli("pershape_ok", V + ho + ["--per-shape", r.path("ps.csv")], "good", empty_ok=True)
    r.cli("pershape_json", V + ho + ["--per-shape", r.path("ps2.csv"), "--format", "json"], "good")
    r.cli("pershape_pool_only", V + ["--per-shape", r.path("ps3.csv")], "good")
    r.cli("pershape_twice", V + ["--per-shape", r.path("a.csv"), "--per-shape", r.path("b.csv")], want=["--per-shape"])
    r.cli("pershape_cublaslt", ["tune", "--gpu", "h200", "--family", "gemm-cublaslt", "--validate",
                                "--per-shape", r.path("c.csv")], want=["--per-shape"])
    for mode in ("--plan", "--fit", "--export"):
        r.cli(f"pershape_with{mode[1:]}", ["tune", "--gpu", "h200", "--family", "moe-triton-fp8", mode, "--out",
                                           r.path("o.json"), "--per-shape", r.path("d.csv")], want=["--per-shape"])
    r.cli("pershape_with_kernel", ["tune", "--gpu", "h200", "--kernel", K, "--per-shape", r.path("e.csv")],
          want=["--per-shape"])
    r.cli("pershape_no_value", V + ["--per-shape"], want=["--per-shape"])


def add_defaults(r):
    """The engines' default configs measured beside a held-out grid (moe-triton-defaults-4), edited: the grid is the
    committed decode grid, unchanged."""
    head, rows = corpus_parts(DEFAULTS)
    grid = open(f"{REPO}/{GRID}", "rb").read() if rows is not None else None
    if rows is None:
        return

    def run(n, body, exp, want=(), raw=None, fmt=("--format", "json")):
        d = f"r17_def_{n}"
        data = raw if raw is not None else gz(body)
        r.cli(f"defaults_{n}", V + ["--heldout-traces", "{T}/" + d, "--heldout-only"] + list(fmt), exp, want,
              files={f"{d}/moe-triton-4.corpus.csv.gz": grid, f"{d}/moe-triton-defaults-4.corpus.csv.gz": data})

    def cfg(x):
        return x.split(",")[2].split(" config=")[1]

    run("ok", text(head, rows), "good", ['"engine_default"'])
    run("other_configs", text(head, [x.replace("config=16x32x64_s3_w4_g1", "config=16x32x64_s3_w4_g2")
                                     .replace("config=64x64x32_s3_w4_g8", "config=64x64x32_s3_w4_g4") for x in rows]),
        "any")
    run("one_default_only", text(head, [x for x in rows if cfg(x) == "16x32x64_s3_w4_g1"]), "any")
    run("half_shapes", text(head, rows[: len(rows) // 2]), "any")
    run("other_gpu", text([m.replace("h200", "h100").replace("H200", "H100 80GB HBM3") for m in head], rows), "any")
    run("other_sms", text([("#sms=66" if m.startswith("#sms=") else m) for m in head], rows), "bad", ["sms"])
    run("other_sms_total", text([("#sms=66" if m.startswith("#sms=") else "#sms_requested=66"
                                  if m.startswith("#sms_requested=") else m) for m in head], rows), "bad", ["sms"])
    run("bf16", text(head, [x.replace("dtype=fp8", "dtype=bf16") for x in rows]), "any")
    run("no_tool", text([m for m in head if not m.startswith("#tool=")], rows), "bad", ["moe-triton-defaults-4"])
    run("other_tool", text([("#tool=moe_sweep.py" if m.startswith("#tool=") else m) for m in head], rows), "bad",
        ["moe-triton-defaults-4"])
    run("gzip_cut", None, "bad", ["moe-triton-defaults-4"], raw=gz(text(head, rows))[:3000])
    run("not_gzip", None, "any", raw=b"not a gzip stream\n")
    run("header_only", text(head, []), "any")
    run("median_zero", text(head, [",".join(x.split(",")[:10] + ["0"] + x.split(",")[11:]) for x in rows]), "any")
    run("median_nan", text(head, [",".join(x.split(",")[:10] + ["nan"] + x.split(",")[11:]) for x in rows]), "bad",
        ["moe-triton-defaults-4"])
    run("rows_twice", text(head, rows + rows), "any")
    run("twice_differing", text(head, rows + [",".join(x.split(",")[:10] + ["1.0"] + x.split(",")[11:])
                                              for x in rows]), "any")
    run("crlf", text(head, rows).replace("\n", "\r\n"), "any")
    run("table", text(head, rows), "good", ["engine default"], fmt=())
    run("bad_config_name", text(head, [rows[0].replace("config=", "config=x")] + rows[1:]), "bad",
        ["moe-triton-defaults-4"])


def add_python(r):
    """The Python module: bad dicts, wrong types, NaN, huge integers, empty lists, every entry point."""
    k = "'" + K + "'"
    for n, expr, exp, want in (
            ("predict_nan_m", "loom.predict('h200', 'gemm m=nan n=64 k=64 dtype=bf16')", "bad", ["m"]),
            ("predict_spec_int", "loom.predict('h200', 42)", "bad", []),
            ("predict_spec_none", "loom.predict('h200', None)", "bad", []),
            ("predict_spec_list", f"loom.predict('h200', [{k}])", "bad", []),
            ("predict_gpu_list", f"loom.predict(['h200'], {k})", "bad", []),
            ("predict_gpu_all", f"loom.predict('all', {k})", "bad", ["all"]),
            ("predict_gpu_nul", f"loom.predict('h2\\x0000', {k})", "bad", []),
            ("predict_model_none", f"loom.predict('h200', {k}, model=None)", "bad", []),
            ("predict_kwarg_typo", f"loom.predict('h200', {k}, modle='learned')", "bad", []),
            ("batch_nan", f"loom.predict_batch('h200', [dict({ROW}, m=float('nan'))])", "bad", ["m"]),
            ("batch_inf", f"loom.predict_batch('h200', [dict({ROW}, n=float('inf'))])", "bad", ["n"]),
            ("batch_huge", f"loom.predict_batch('h200', [dict({ROW}, k=2**80)])", "bad", ["k"]),
            ("batch_neg", f"loom.predict_batch('h200', [dict({ROW}, k=-64)])", "bad", ["k"]),
            ("batch_float_int", f"loom.predict_batch('h200', [dict({ROW}, m=64.0)])", "any", []),
            ("batch_float_frac", f"loom.predict_batch('h200', [dict({ROW}, m=64.5)])", "bad", ["m"]),
            ("batch_none_cell", f"loom.predict_batch('h200', [dict({ROW}, m=None)])", "bad", ["m"]),
            ("batch_list_cell", f"loom.predict_batch('h200', [dict({ROW}, m=[64])])", "bad", ["m"]),
            ("batch_no_family", "loom.predict_batch('h200', [{'m': 64, 'n': 64, 'k': 64, 'dtype': 'bf16'}])", "bad",
             ["family"]),
            ("batch_family_none", f"loom.predict_batch('h200', [dict({ROW}, family=None)])", "bad", ["family"]),
            ("batch_int_keys", "loom.predict_batch('h200', [{1: 2}])", "bad", []),
            ("batch_unknown_key", f"loom.predict_batch('h200', [dict({ROW}, colour='red')])", "bad", ["colour"]),
            ("batch_not_list", f"loom.predict_batch('h200', {ROW})", "bad", []),
            ("batch_none", "loom.predict_batch('h200', None)", "bad", []),
            ("batch_str", "loom.predict_batch('h200', 'gemm')", "bad", []),
            ("batch_list_of_str", f"loom.predict_batch('h200', [{k}])", "bad", []),
            ("batch_generator", f"loom.predict_batch('h200', ({ROW} for _ in range(2)))", "any", []),
            ("batch_tuple", f"loom.predict_batch('h200', ({ROW},))", "any", []),
            ("batch_threads_zero", f"loom.predict_batch('h200', [{ROW}], threads=0)", "bad", ["threads"]),
            ("batch_threads_neg", f"loom.predict_batch('h200', [{ROW}], threads=-1)", "bad", ["threads"]),
            ("batch_threads_huge", f"loom.predict_batch('h200', [{ROW}], threads=10**6)", "any", []),
            ("batch_threads_float", f"loom.predict_batch('h200', [{ROW}], threads=1.5)", "bad", []),
            ("batch_gpu_col_none", f"loom.predict_batch('h200', [dict({ROW}, gpu=None)])", "any", []),  # as pandas NaN
            ("batch_empty_dict", "loom.predict_batch('h200', [{}])", "bad", ["family"]),
            ("batch_empty", "loom.predict_batch('h200', [])", "any", []),
            ("batch_many_bad_row", f"loom.predict_batch('h200', [{ROW}] * 50 + [dict({ROW}, m=0)])", "bad", ["m"]),
            ("diagnose_nan", "loom.diagnose('h200', 'gemm m=64 n=nan k=64 dtype=bf16')", "bad", ["n"]),
            ("diagnose_gpu_empty", f"loom.diagnose('', {k})", "bad", []),
            ("diagnose_gpu_path_dir", f"loom.diagnose('gpus', {k})", "bad", ["gpus"]),
            ("tune_nan", "loom.tune('h200', 'gemm m=nan n=6144 k=4096 dtype=bf16')", "bad", ["m"]),
            ("tune_family_bad", "loom.tune('h200', 'rms_norm rows=64 cols=4096 dtype=bf16')", "bad", []),
            ("tune_gpu_t4", "loom.tune('t4', 'gemm m=64 n=64 k=64 dtype=bf16')", "bad", ["t4"]),
            ("tune_spec_none", "loom.tune('h200', None)", "bad", []),
            ("e2e_batch_zero", "loom.e2e('h200', 'llama-3-8b', 'decode', batch=0)", "bad", ["batch"]),
            ("e2e_phase_bad", "loom.e2e('h200', 'llama-3-8b', 'train')", "bad", ["train"]),
            ("e2e_tp_huge", "loom.e2e('h200', 'llama-3-8b', 'decode', tp=2**40)", "bad", ["tp"]),
            ("e2e_profile_bad", "loom.e2e('h200', 'llama-3-8b', 'decode', profile='trt')", "bad", ["trt"]),
            ("e2e_model_none", "loom.e2e('h200', None, 'decode')", "bad", []),
            ("gpus_arg", "loom.gpus('h200')", "bad", []),
            ("gpus_ok", "len(loom.gpus()) > 3 or 1/0", "good", [])):
        r.py(n, expr, exp, want)


def add_capi(r):
    """The C API: NULL handles, strings and buffers, bad specs, an overlong GPU name, tune on every bad input."""
    for n, body, exp, want in (
            ("predict_null_handle", "r = lib.loom_predict(None, b'h200', b'" + K + "', C.byref(p))\n"
                                    "print('ok' if r == 2 else 'status %d' % r)", "good", ["ok"]),
            ("tune_null_handle", "r = lib.loom_tune(None, b'h200', b'" + K + "', cfg, 64, C.byref(us))\n"
                                 "print('ok' if r == 2 else 'status %d' % r)", "good", ["ok"]),
            ("predict_null_gpu", "h = opened()\nr = lib.loom_predict(h, None, b'" + K + "', C.byref(p))\n"
                                 "done(h, r, p.latency_us)", "bad", ["gpu"]),
            ("predict_null_kernel", "h = opened()\nr = lib.loom_predict(h, b'h200', None, C.byref(p))\n"
                                    "done(h, r, p.latency_us)", "bad", ["kernel"]),
            ("predict_null_out", "h = opened()\nr = lib.loom_predict(h, b'h200', b'" + K + "', None)\n"
                                 "done(h, r)", "bad", []),
            ("predict_nan", "h = opened()\nr = lib.loom_predict(h, b'h200', b'gemm m=nan n=64 k=64 dtype=bf16', "
                            "C.byref(p))\ndone(h, r, p.latency_us)", "bad", ["m"]),
            ("predict_long_gpu", "h = opened()\nr = lib.loom_predict(h, b'h' * 100000, b'" + K + "', C.byref(p))\n"
                                 "done(h, r, p.latency_us)", "bad", ["gpu"]),
            ("predict_bytes_gpu", "h = opened()\nr = lib.loom_predict(h, b'h2\\xff\\x1b[2J', b'" + K + "', "
                                  "C.byref(p))\ndone(h, r, p.latency_us)", "bad", ["gpu"]),
            ("predict_empty_kernel", "h = opened()\nr = lib.loom_predict(h, b'h200', b'', C.byref(p))\n"
                                     "done(h, r, p.latency_us)", "bad", ["kernel"]),
            ("tune_null_kernel", "h = opened()\nr = lib.loom_tune(h, b'h200', None, cfg, 64, C.byref(us))\n"
                                 "done(h, r, cfg.value)", "bad", ["kernel"]),
            ("tune_null_gpu", "h = opened()\nr = lib.loom_tune(h, None, b'" + K + "', cfg, 64, C.byref(us))\n"
                              "done(h, r, cfg.value)", "bad", ["gpu"]),
            ("tune_null_cfg_len", "h = opened()\nr = lib.loom_tune(h, b'h200', b'gemm m=3000 n=6144 k=4096 "
                                  "dtype=bf16', None, 64, C.byref(us))\ndone(h, r, us.value)", "bad", ["config"]),
            ("tune_latency_only", "h = opened()\nr = lib.loom_tune(h, b'h200', b'gemm m=3000 n=6144 k=4096 "
                                  "dtype=bf16', None, 0, C.byref(us))\ndone(h, r, us.value > 0 and 'ok')", "good",
             ["ok"]),
            ("tune_moe_triton", "h = opened()\nr = lib.loom_tune(h, b'h200', b'moe tokens=64 experts=128 topk=8 "
                                "hidden=4096 inter=768 dtype=fp8 impl=triton', cfg, 64, C.byref(us))\n"
                                "done(h, r, cfg.value.decode(), us.value > 0 and 'ok')", "good", ["ok"]),
            ("tune_t4", "h = opened()\nr = lib.loom_tune(h, b't4', b'gemm m=3000 n=6144 k=4096 dtype=bf16', cfg, "
                        "64, C.byref(us))\ndone(h, r, cfg.value)", "bad", ["t4"]),
            ("tune_gpu_path", "h = opened()\nr = lib.loom_tune(h, b'gpus/h200.yaml', b'gemm m=3000 n=6144 k=4096 "
                              "dtype=bf16', cfg, 64, C.byref(us))\ndone(h, r, cfg.value)", "any", []),
            ("tune_zero_m", "h = opened()\nr = lib.loom_tune(h, b'h200', b'gemm m=0 n=6144 k=4096 dtype=bf16', "
                            "cfg, 64, C.byref(us))\ndone(h, r, cfg.value)", "bad", ["m"]),
            ("open_model_bad", "h = lib.loom_open(None, b'forest', err, 512)\n"
                               "print('loom: ' + err.value.decode(), file=sys.stderr) or sys.exit(2) if not h "
                               "else print('opened')", "bad", ["forest"]),
            ("open_dir_file", "h = lib.loom_open(b'gpus/h200.yaml', None, err, 512)\n"
                              "print('loom: ' + err.value.decode(), file=sys.stderr) or sys.exit(2) if not h "
                              "else print('opened')", "bad", ["h200.yaml"]),
            ("error_after_ok", "h = opened()\nr = lib.loom_predict(h, b'h200', b'gemm m=0 n=1 k=1 dtype=bf16', "
                               "C.byref(p))\nr = lib.loom_predict(h, b'h200', b'" + K + "', C.byref(p))\n"
                               "print('ok' if r == 0 and lib.loom_last_error(h) == b'' else 'stale')", "good",
             ["ok"]),
            ("version", "r = lib.loom_version()\nprint('ok' if r and r.count(b'.') == 2 else r)", "good", ["ok"])):
        r.capi(n, body, exp, want)


def add_scripts(r):
    """The helper scripts that take files or a loom binary: missing, empty, cut, not gzip, folders, bad flags."""
    files = {"r17s/empty.csv": "", "r17s/notgz.gz": "not gzip\n", "r17s/text.csv": "a,b\n1,2\n",
             "r17s/hf/hf_eager.lct.gz": gz("K\t1\t2\tx\n")[:10], "r17s/hf/hf_eager.cases.csv": "case_id\n",
             "r17s/hf2/hf_eager.lct.gz": gz("K\t1\t2\t3\tx\n"), "r17s/hf2/hf_eager.cases.csv": "nothing\n",
             "r17s/cut.csv.gz": gz("#a\nshape,config,m\n" + "x,y,1\n" * 500)[:40],
             "r17s/noconfig.csv.gz": gz("shape,m\nx,1\n"), "r17s/clock/x.csv.gz": gz("t,load\n1,a\n"),
             "r17s/lct.lct": "not a trace\n", "r17s/host.csv": "x,y\n1,2\n"}
    s = "{T}/r17s"
    for n, script, argv, exp in (
            ("hf_split_missing", "hf-decode-split.py", ["/nonexistent/r17"], "bad"),
            ("hf_split_empty_dir", "hf-decode-split.py", [s], "bad"),
            ("hf_split_file", "hf-decode-split.py", [s + "/notgz.gz"], "bad"),
            ("hf_split_cut", "hf-decode-split.py", [s + "/hf"], "bad"),
            ("hf_split_bad_cases", "hf-decode-split.py", [s + "/hf2"], "bad"),
            ("hf_split_no_args", "hf-decode-split.py", [], "bad"),
            ("hf_split_bad_flag", "hf-decode-split.py", ["--stepz", s], "bad"),
            ("compact_missing", "compact-cublaslt-sweep.py", ["/nonexistent/r17.gz", s + "/o.gz"], "bad"),
            ("compact_not_gzip", "compact-cublaslt-sweep.py", [s + "/notgz.gz", s + "/o.gz"], "bad"),
            ("compact_cut", "compact-cublaslt-sweep.py", [s + "/cut.csv.gz", s + "/o.gz"], "bad"),
            ("compact_no_column", "compact-cublaslt-sweep.py", [s + "/noconfig.csv.gz", s + "/o.gz"], "bad"),
            ("compact_no_args", "compact-cublaslt-sweep.py", [], "bad"),
            ("compact_one_arg", "compact-cublaslt-sweep.py", [s + "/notgz.gz"], "bad"),
            ("compact_out_dev_full", "compact-cublaslt-sweep.py", ["traces/tune/h200/cublaslt-sweep.csv.gz",
                                                                    "/dev/full"], "bad"),
            ("compact_out_folder", "compact-cublaslt-sweep.py", ["traces/tune/h200/cublaslt-sweep.csv.gz", s], "bad"),
            ("tune_choices_no_loom", "tune-choices.py", ["--loom", "/nonexistent/loom", "--random", "1"], "bad"),
            ("tune_choices_loom_true", "tune-choices.py", ["--loom", "/bin/true", "--random", "0"], "bad"),
            ("tune_choices_random_neg", "tune-choices.py", ["--loom", "@LOOM@", "--random", "-1"], "bad"),
            ("tune_choices_random_text", "tune-choices.py", ["--loom", "@LOOM@", "--random", "x"], "bad"),
            ("tune_choices_jobs_zero", "tune-choices.py", ["--loom", "@LOOM@", "--jobs", "0"], "bad"),
            ("calibrate_check_no_loom", "calibrate-check.py", ["/nonexistent/loom"], "bad"),
            ("calibrate_check_extra", "calibrate-check.py", ["@LOOM@", "x", "y"], "bad"),
            ("split_agree_no_loom", "gemm-split-agreement.py", ["--loom", "/nonexistent/loom", s + "/*.gz"], "bad"),
            ("split_agree_no_match", "gemm-split-agreement.py", ["--loom", "@LOOM@", "/nonexistent/r17/*.gz"], "bad"),
            ("split_agree_not_gzip", "gemm-split-agreement.py", ["--loom", "@LOOM@", s + "/notgz.gz"], "bad"),
            ("breakdown_no_loom", "gemm-heldout-breakdown.py", ["--loom", "/nonexistent/loom"], "bad"),
            ("breakdown_no_traces", "gemm-heldout-breakdown.py", ["--loom", "@LOOM@", "--traces", "/nonexistent/r17"],
             "bad"),
            ("breakdown_bad_model_dir", "gemm-heldout-breakdown.py", ["--loom", "@LOOM@", "--model-dir", s], "bad"),
            ("collective_no_loom", "collective_sweep.py", ["--loom", "/nonexistent/loom"], "bad"),
            ("collective_bad_gpu", "collective_sweep.py", ["--loom", "@LOOM@", "--gpus", "h2000"], "bad"),
            ("clock_missing", "clock_summary.py", ["/nonexistent/r17"], "bad"),
            ("clock_bad_csv", "clock_summary.py", [s + "/clock"], "bad"),
            ("clock_json_no_value", "clock_summary.py", ["traces/checks/clock/h200", "--json"], "bad"),
            ("clock_json_dev_full", "clock_summary.py", ["traces/checks/clock/h200", "--json", "/dev/full"], "bad"),
            ("host_slope_missing", "host-slope-fit.py", ["/nonexistent/r17.csv"], "bad"),
            ("host_slope_bad", "host-slope-fit.py", [s + "/host.csv"], "bad"),
            ("host_slope_empty", "host-slope-fit.py", [s + "/empty.csv"], "bad"),
            ("trim_lct_text", "trim-lct.py", [s + "/lct.lct", s + "/o.lct"], "bad"),
            ("trim_lct_reps_text", "trim-lct.py", ["traces/e2e/h200/tp2.lct.gz", s + "/o2.lct.gz", "--reps", "x"],
             "bad"),
            ("fresh_check_no_loom", "fresh-heldout-check.py", ["--loom", "/nonexistent/loom"], "bad"),
            ("fresh_check_bad_checks", "fresh-heldout-check.py", ["--loom", "@LOOM@", "--checks", s], "bad"),
            ("predict_diff_rows_text", "predict_diff.py", ["--before", "@LOOM@", "--after", "@LOOM@", "--rows", "x"],
             "bad")):
        r.script(n, script, argv, exp, files=files, empty_ok=True)


def add_least_probed(r):
    """The flags rounds 1-16 reached least: --set on gpus, gpus show, diagnose, simulate; --interval on whatif and
    e2e; report --kernel; tune --export and --fit."""
    P = ["--kernel", K]
    for n, argv, exp, want in (
            ("gpus_set", ["gpus", "--set", "sms=66"], "any", []),  # every GPU of the listing, overridden
            ("gpus_show_set_ok", ["gpus", "show", "h200", "--set", "sms=66", "--format", "json"], "any", []),
            ("gpus_show_set_nan", ["gpus", "show", "h200", "--set", "sms=nan"], "bad", ["sms"]),
            ("gpus_show_set_scope_other", ["gpus", "show", "h200", "--set", "h100-sxm:sms=66"], "bad", ["h100-sxm"]),
            ("gpus_show_set_unknown", ["gpus", "show", "h200", "--set", "colour=red"], "bad", ["colour"]),
            ("diagnose_set_bw_zero", ["diagnose", "--gpu", "h200"] + P + ["--set", "dram.bandwidth=0TB/s"], "bad",
             ["dram.bandwidth"]),
            ("diagnose_set_twice_same", ["diagnose", "--gpu", "h200"] + P + ["--set", "sms=66", "--set", "sms=66"],
             "any", []),
            ("diagnose_set_twice_diff", ["diagnose", "--gpu", "h200"] + P + ["--set", "sms=66", "--set", "sms=64"],
             "bad", ["sms"]),
            ("diagnose_measured_nan", ["diagnose", "--gpu", "h200"] + P + ["--measured-us", "nan"], "bad",
             ["--measured-us"]),
            ("diagnose_measured_zero", ["diagnose", "--gpu", "h200"] + P + ["--measured-us", "0"], "bad",
             ["--measured-us"]),
            ("diagnose_measured_below_ceiling", ["diagnose", "--gpu", "h200"] + P + ["--measured-us", "1e-6"], "any",
             []),
            ("simulate_set_kv", ["simulate", "--gpu", "h200", "--model", "llama-3-8b", "--rate", "2",
                                 "--num-requests", "10", "--set", "memory.capacity=1GB"], "any", []),
            ("simulate_set_scope_other", ["simulate", "--gpu", "h200", "--model", "llama-3-8b", "--rate", "2",
                                          "--num-requests", "10", "--set", "h100-sxm:sms=66"], "bad", ["h100-sxm"]),
            ("whatif_interval", ["whatif", "--model", "llama-3-8b", "--gpus", "h200", "--batch", "8", "--input-len",
                                 "512", "--output-len", "64", "--interval"], "any", []),
            ("e2e_interval", ["e2e", "--gpu", "h200", "--model", "llama-3-8b", "--phase", "decode", "--batch", "8",
                              "--seq", "1", "--context", "1024", "--interval"], "any", []),
            ("report_kernel_nan", ["report", "--gpu", "h200", "--kernel", "gemm m=nan n=1 k=1 dtype=bf16", "-o",
                                   r.path("k.html")], "bad", ["m"]),
            ("report_kernel_no_gpu", ["report", "--kernel", K, "-o", r.path("k2.html")], "bad", ["--gpu"]),
            ("report_kernel_gpu_all", ["report", "--gpu", "all", "--kernel", K, "-o", r.path("k3.html")], "any", []),
            ("report_kernel_out_dir", ["report", "--gpu", "h200", "--kernel", K, "-o", "{T}"], "bad", ["folder"]),
            ("tune_export_no_out", ["tune", "--gpu", "h200", "--family", "gemm", "--export"], "bad", ["--out"]),
            ("tune_export_tables_text", ["tune", "--gpu", "h200", "--family", "gemm", "--export", "--tables",
                                         r.path("t.json"), "--out", r.path("exp")], "bad", ["r17_t.json"]),
            ("tune_export_other_family", ["tune", "--gpu", "h200", "--family", "moe", "--export", "--tables",
                                          "models/tune/h200-gemm.json", "--out", r.path("exp2")], "bad",
             ["h200-gemm.json"]),
            ("tune_fit_out_dev_full", ["tune", "--gpu", "h200", "--family", "moe-triton-fp8", "--fit", "--traces",
                                       "traces/tune", "--out", "/dev/full"], "bad", ["/dev/full"]),
            ("tune_fit_lambda_nan", ["tune", "--gpu", "h200", "--family", "moe-triton-fp8", "--fit", "--traces",
                                     "traces/tune", "--lambda", "nan", "--out", r.path("f.json")], "bad",
             ["--lambda"]),
            ("tune_fit_sample_fraction_one", ["tune", "--gpu", "h200", "--family", "moe-triton-fp8", "--fit",
                                              "--traces", "traces/tune", "--sample-fraction", "1.5", "--out",
                                              r.path("f2.json")], "bad", ["--sample-fraction"]),
            ("trace_paths_bad_flag", ["trace", "paths", "--gpu", "h2000"], "bad", []),
            ("trace_paths_dir_missing", ["trace", "paths", "--traces", "/nonexistent/r17"], "bad", ["--traces"])):
        files = {"r17_t.json": json.dumps({"schema": "loom.tune/1"})} if n == "tune_export_tables_text" else None
        r.cli(n, argv, exp, want, files=files, empty_ok=True)
