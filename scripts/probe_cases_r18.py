"""Probe cases (see probe_cases.py), eighteenth round, on probe_lib.py: the Python module's `predict_batch` with NumPy
structured arrays and pandas DataFrames (never probed: neither was installed where rounds 1-17 ran; see probe_lib.NP),
`tune --validate --per-shape` on paths a folder reports writable but cannot hold, `validate --e2e`'s options,
`tune --validate`'s flag combinations, trim-lct.py and hf-decode-split.py on cut and malformed traces, and the C API
with NULL and non-UTF-8 arguments."""
from probe_lib import REPO, Round, gz, np_case  # noqa: F401

V = ["tune", "--gpu", "h200", "--family", "moe-triton-fp8", "--validate", "--no-timing", "--traces", "traces/tune"]
BLIND = "traces/checks/tune-blind2/h200/moe-triton-fp8"
K = "gemm m=64 n=64 k=64 dtype=bf16"
R0M = ["rows[0]", "m"]  # a bad cell: its row and column named


def add_round18(c):
    r = Round(c, "r18")
    add_numpy(r)
    add_pandas(r)
    add_outputs(r)
    add_validate_e2e(r)
    add_tune_validate(r)
    add_scripts(r)
    add_capi(r)


def S(dtype="GEMM"):
    """One gemm row as a structured array of the given fields (Python text)."""
    return f"np.array([tuple(ROW[n] for n, _ in {dtype})], dtype={dtype})"


def col(name, value, typ):
    """One gemm row as a structured array, column `name` of NumPy type `typ` holding `value`."""
    return (f"np.array([tuple({value} if n == {name!r} else ROW[n] for n, _ in GEMM)], "
            f"dtype=[(n, {typ!r} if n == {name!r} else t) for n, t in GEMM])")


def add_numpy(r):
    """Structured arrays: odd cell types and values in the int columns, odd shapes and array kinds, odd names."""
    same = "agree({a}, {d})"
    for n, arr, dicts, exp, want in (
            ("ok", S(), "[ROW]", "good", []),
            ("float_int", col("m", "64.0", "f8"), "[dict(ROW, m=64.0)]", "good", []),
            ("float32_int", col("m", "64.0", "f4"), "[ROW]", "good", []),
            ("float16_int", col("m", "64.0", "f2"), "[ROW]", "good", []),
            ("float_nan", col("m", "float('nan')", "f8"), "[dict(ROW, m=None)]", "bad", R0M),
            ("float_inf", col("m", "float('inf')", "f8"), "[dict(ROW, m=float('inf'))]", "bad", R0M),
            ("float_1e300", col("m", "1e300", "f8"), "[dict(ROW, m=1e300)]", "bad", R0M),
            ("float_neg_zero", col("m", "-0.0", "f8"), "[dict(ROW, m=-0.0)]", "bad", R0M),
            ("float_frac", col("m", "64.5", "f8"), "[dict(ROW, m=64.5)]", "bad", R0M),
            ("int64_max", col("m", "2**63 - 1", "i8"), "[dict(ROW, m=2**63 - 1)]", "bad", R0M),
            ("int64_min", col("m", "-2**63", "i8"), "[dict(ROW, m=-2**63)]", "bad", R0M),
            ("uint64_max", col("m", "2**64 - 1", "u8"), "[dict(ROW, m=2**64 - 1)]", "bad", R0M),
            ("int8", col("m", "64", "i1"), "[ROW]", "good", []),
            ("bool_m", col("m", "True", "?"), "[dict(ROW, m=True)]", "bad", R0M),
            ("complex_m", col("m", "64+0j", "c16"), "[dict(ROW, m=64+0j)]", "bad", R0M),
            ("datetime_m", col("m", "np.datetime64('2020-01-01')", "M8[D]"), "[ROW]", "bad", R0M),
            ("object_none", col("m", "None", "O"), "[dict(ROW, m=None)]", "bad", R0M),
            ("object_list", col("m", "[64]", "O"), "[dict(ROW, m=[64])]", "bad", R0M),
            ("object_nested", col("m", "[[64, 1], {'a': 1}]", "O"), "[ROW]", "bad", R0M),
            ("object_np_int", col("m", "np.int64(64)", "O"), "[ROW]", "good", []),
            ("object_np_f32", col("m", "np.float32(64.0)", "O"), "[ROW]", "good", []),
            ("object_np_f32_nan", col("m", "np.float32('nan')", "O"), "[dict(ROW, m=None)]", "bad", R0M),
            ("object_bytes", col("dtype", "b'bf16'", "O"), "[dict(ROW, dtype=b'bf16')]", "good", []),
            ("bytes_field", col("dtype", "b'bf16'", "S8"), "[ROW]", "good", []),
            ("bytes_not_utf8", col("dtype", "b'\\xff\\xfe'", "S8"), "[dict(ROW, dtype=b'\\xff\\xfe')]", "bad",
             ["rows[0]", "dtype"]),
            ("str_surrogate", col("dtype", "'\\udcff'", "U8"), "[dict(ROW, dtype='\\udcff')]", "bad",
             ["rows[0]", "dtype"]),
            ("str_control", col("dtype", "'bf\\x1b[2J16'", "U16"), "[ROW]", "bad", ["rows[0]", "dtype"]),
            ("long_family", col("family", "'x' * 200000", "U200000"), "[dict(ROW, family='x' * 200000)]", "bad",
             ["rows[0]"]),
            ("long_value", col("m", "'6' * 100000", "U100000"), "[dict(ROW, m='6' * 100000)]", "bad", R0M),
            ("gpu_col_unknown", f"np.array([tuple(ROW.values()) + ('h2000',)], dtype=GEMM + [('gpu', 'U8')])",
             "[dict(ROW, gpu='h2000')]", "bad", ["rows[0]", "gpu", "h2000"]),
            ("gpu_col_mixed", "np.array([tuple(ROW.values()) + (g,) for g in ('h100-sxm', 'h200', '')], "
                              "dtype=GEMM + [('gpu', 'U8')])",
             "[dict(ROW, gpu=g) for g in ('h100-sxm', 'h200', None)]", "good", []),
            ("empty", "np.zeros(0, dtype=GEMM)", "[]", "good", []),
            ("zero_d", "np.array(tuple(ROW.values()), dtype=GEMM)", "[ROW]", "bad", ["rows"]),
            ("two_d", "np.array([[tuple(ROW.values())]], dtype=GEMM)", "[ROW]", "bad", ["rows"]),
            ("plain_1d", "np.arange(3)", "[ROW]", "bad", ["rows"]),
            ("plain_2d", "np.zeros((2, 5))", "[ROW]", "bad", ["rows"]),
            ("plain_0d", "np.float64(3.0)", "[ROW]", "bad", ["rows"]),
            ("object_of_dicts", "np.array([ROW, ROW], dtype=object)", "[ROW, ROW]", "good", []),
            ("masked_m", "np.ma.array(" + S() + ", mask=[(False, True, False, False, False)])",
             "[dict(ROW, m=None)]", "bad", R0M),
            ("masked_none", "np.ma.array(" + S() + ")", "[ROW]", "good", []),
            ("masked_gpu", "np.ma.array(np.array([tuple(ROW.values()) + ('h2000',)], dtype=GEMM + [('gpu', 'U8')]), "
                           "mask=[(False,) * 5 + (True,)])", "[dict(ROW, gpu=None)]", "good", []),
            ("recarray", "np.rec.array(" + S() + ")", "[ROW]", "good", []),
            ("name_unicode", "np.array([tuple(ROW.values()) + (1,)], dtype=GEMM + [('\\u00b5', 'i8')])",
             "[dict(ROW, **{'\\u00b5': 1})]", "bad", ["rows[0]", "\u00b5"]),
            ("sub_array", "np.zeros(1, dtype=[('family', 'U8'), ('m', 'i8', (2,))])", "[ROW]", "bad", ["m"]),
            ("flag_bool", "np.array([('attention_prefill', 1, 8, 8, 1024, 128, 'bf16', True)], dtype=[('family', "
                          "'U24'), ('batch', 'i8'), ('heads', 'i8'), ('kv_heads', 'i8'), ('seq', 'i8'), "
                          "('head_dim', 'i8'), ('dtype', 'U8'), ('causal', '?')])",
             "[dict(family='attention_prefill', batch=1, heads=8, kv_heads=8, seq=1024, head_dim=128, dtype='bf16', "
             "causal=1)]", "good", []),
            ("dicts_np_scalars", "[{k: (np.int64(v) if isinstance(v, int) else np.str_(v)) for k, v in ROW.items()}]",
             "[ROW]", "good", []),
            ("dicts_np_f32", "[dict(ROW, m=np.float32(64.0), n=np.float16(64.0))]", "[ROW]", "good", []),
            ("dicts_np_bool", "[dict(ROW, m=np.bool_(True))]", "[dict(ROW, m=True)]", "bad", R0M),
            ("dicts_0d_array", "[dict(ROW, m=np.array(64))]", "[ROW]", "good", []),
            ("dicts_array_cell", "[dict(ROW, m=np.array([64, 65]))]", "[ROW]", "bad", R0M)):
        np_case(r, n, same.format(a=arr, d=dicts), exp, want)


def add_pandas(r):
    """DataFrames: gaps, nullable and categorical columns, odd column labels, indexes, Series, empty frames."""
    df = "pd.DataFrame([ROW, ROW])"
    for n, frame, dicts, exp, want in (
            ("ok", df, "[ROW, ROW]", "good", []),
            ("int_with_nan", "pd.DataFrame([ROW, {k: v for k, v in ROW.items() if k != 'm'}])",
             "[ROW, dict(ROW, m=None)]", "bad", ["rows[1]", "m"]),
            ("nullable_na", df + ".astype({'m': 'Int64'}).assign(m=pd.array([64, None], dtype='Int64'))",
             "[ROW, dict(ROW, m=None)]", "bad", ["rows[1]", "m"]),
            ("string_na_gpu", df + ".assign(gpu=pd.array(['h100-sxm', None], dtype='string'))",
             "[dict(ROW, gpu='h100-sxm'), dict(ROW, gpu=None)]", "good", []),
            ("object_nan_gpu", df + ".assign(gpu=['h100-sxm', float('nan')])",
             "[dict(ROW, gpu='h100-sxm'), dict(ROW, gpu=None)]", "good", []),
            ("nat_m", df + ".assign(m=[pd.NaT, pd.NaT])", "[dict(ROW, m=None)] * 2", "bad", ["rows[0]", "m"]),
            ("float_inf", df + ".assign(m=[64.0, float('inf')])", "[ROW, dict(ROW, m=float('inf'))]", "bad",
             ["rows[1]", "m"]),
            ("float_1e300", df + ".assign(m=[1e300, 64.0])", "[dict(ROW, m=1e300), ROW]", "bad", R0M),
            ("float_neg_zero", df + ".assign(m=[-0.0, 64.0])", "[dict(ROW, m=-0.0), ROW]", "bad", R0M),
            ("float_int", df + ".assign(m=[64.0, 128.0])", "[ROW, dict(ROW, m=128)]", "good", []),
            ("float32", df + ".astype({'m': 'float32'})", "[ROW, ROW]", "good", []),
            ("int64_min", df + ".assign(m=[-2**63, 64])", "[dict(ROW, m=-2**63), ROW]", "bad", R0M),
            ("uint64_max", df + ".assign(m=np.array([2**64 - 1, 64], dtype='u8'))", "[dict(ROW, m=2**64 - 1), ROW]",
             "bad", R0M),
            ("bool_col", df + ".assign(m=[True, False])", "[dict(ROW, m=True), dict(ROW, m=False)]", "bad", R0M),
            ("categorical_family", df + ".astype({'family': 'category'})", "[ROW, ROW]", "good", []),
            ("categorical_int", df + ".astype({'m': 'category'})", "[ROW, ROW]", "good", []),
            ("object_mixed", df + ".assign(m=pd.Series([b'64', [64]], dtype=object))",
             "[dict(ROW, m=b'64'), dict(ROW, m=[64])]", "bad", ["rows[1]", "m"]),
            ("bytes_not_utf8", df + ".assign(dtype=[b'bf16', b'\\xff\\xfe'])",
             "[ROW, dict(ROW, dtype=b'\\xff\\xfe')]", "bad", ["rows[1]", "dtype"]),
            ("long_string", df + ".assign(dtype=['x' * 300000, 'bf16'])", "[dict(ROW, dtype='x' * 300000), ROW]",
             "bad", ["rows[0]", "dtype"]),
            ("dup_columns", "pd.concat([pd.DataFrame([ROW]), pd.DataFrame({'m': [4096]})], axis=1)", "[ROW]", "bad",
             ["'m' appears twice"]),
            ("dup_columns_same", "pd.concat([pd.DataFrame([ROW]), pd.DataFrame({'m': [64]})], axis=1)", "[ROW]",
             "bad", ["m"]),
            ("int_column_names", "pd.DataFrame([list(ROW.values())])", "[{0: 'gemm'}]", "bad", ["column 0"]),
            ("multiindex_columns", "pd.DataFrame([list(ROW.values())], columns=pd.MultiIndex.from_tuples("
                                   "[(k, 'x') for k in ROW]))", "[ROW]", "bad", ["MultiIndex"]),
            ("none_column_name", "pd.DataFrame([list(ROW.values()) + [1]], columns=list(ROW) + [None])",
             "[dict(ROW, **{'None': 1})]", "bad", ["column None"]),
            ("index_labels", df + ".set_axis([10, 20])", "[ROW, ROW]", "good", []),
            ("index_labels_bad_row", df + ".assign(m=[64, 0]).set_axis(['a', 'b'])", "[ROW, dict(ROW, m=0)]", "bad",
             ["rows[1] (index 'b')", "m"]),
            ("index_dup_labels", df + ".set_axis([7, 7])", "[ROW, ROW]", "good", []),
            ("gpu_unknown", df + ".assign(gpu=['h200', 'h2000'])", "[ROW, dict(ROW, gpu='h2000')]", "bad",
             ["rows[1]", "h2000"]),
            ("gpu_categorical", df + ".assign(gpu=pd.Categorical(['h100-sxm', 'h200']))",
             "[dict(ROW, gpu='h100-sxm'), dict(ROW, gpu='h200')]", "good", []),
            ("empty_rows", "pd.DataFrame(columns=list(ROW))", "[]", "good", []),
            ("empty_frame", "pd.DataFrame()", "[]", "good", []),
            ("series", "pd.Series(ROW)", "[ROW]", "bad", ["rows"]),
            ("series_categorical", "pd.Series(['a'], dtype='category')", "[ROW]", "bad", ["rows"]),
            ("sparse_m", df + ".astype({'m': pd.SparseDtype('int64', 0)})", "[ROW, ROW]", "good", []),
            ("many_rows_one_bad", "pd.DataFrame([ROW] * 200 + [dict(ROW, k=-1)])", "[ROW] * 200 + [dict(ROW, k=-1)]",
             "bad", ["rows[200]", "k"])):
        np_case(r, "pd_" + n, f"agree({frame}, {dicts})", exp, want)


def add_outputs(r):
    """--per-shape where the folder exists and reports itself writable to root but holds no new file."""
    for n, path in (("proc", "/proc/r18x.csv"), ("proc_self", "/proc/self/r18.csv"), ("sys", "/sys/r18.csv"),
                    ("sys_kernel", "/sys/kernel/r18.csv")):
        r.cli(f"pershape_{n}", V + ["--per-shape", path], "bad", [path])
    r.cli("fit_out_proc", ["tune", "--gpu", "h200", "--family", "moe-triton-fp8", "--fit", "--traces", "traces/tune",
                           "--out", "/proc/r18.json"], "bad", ["/proc/r18.json"])
    r.cli("report_out_proc", ["report", "--gpu", "h200", "--kernel", K, "-o", "/proc/r18.html"], "bad",
          ["/proc/r18.html"])
    r.cli("pershape_existing_file", V + ["--heldout-traces", BLIND, "--heldout-only", "--per-shape", r.path("e.csv")],
          "good", files={"r18_e.csv": "old\n"}, empty_ok=True)


def add_validate_e2e(r):
    """`loom validate --e2e`'s options."""
    E = ["validate", "--e2e"]
    for n, extra, exp, want in (
            ("traces_missing", ["--traces", "/nonexistent/r18"], "bad", ["/nonexistent/r18"]),
            ("traces_file", ["--traces", "traces/e2e/h200/tp2.cases.csv"], "bad", ["tp2.cases.csv"]),
            ("traces_empty", ["--traces", r.path("empty")], "bad", ["r18_empty"]),
            ("traces_cut", ["--traces", r.path("cut")], "bad", ["r18_cut"]),
            ("traces_cases_only", ["--traces", r.path("casesonly")], "bad", ["r18_casesonly"]),
            ("profile_bad", ["--profile", "trt"], "bad", ["trt"]),
            ("profile_empty", ["--profile", ""], "bad", ["--profile"]),
            ("model_dir_missing", ["--model-dir", "/nonexistent/r18"], "bad", ["/nonexistent/r18"]),
            ("model_dir_file", ["--model-dir", "gpus/h200.yaml"], "bad", ["h200.yaml"]),
            ("model_dir_empty", ["--model-dir", r.path("empty")], "bad", ["r18_empty"]),
            ("cross_model_dir_missing", ["--cross-model-dir", "/nonexistent/r18"], "bad", ["/nonexistent/r18"]),
            ("max_error_nan", ["--max-error", "nan"], "bad", ["--max-error"]),
            ("max_error_inf", ["--max-error", "inf"], "bad", ["--max-error"]),
            ("max_error_neg", ["--max-error", "-5"], "bad", ["--max-error"]),
            ("max_error_text", ["--max-error", "5%"], "bad", ["--max-error"]),
            ("max_error_huge", ["--max-error", "1e309"], "bad", ["--max-error"]),
            ("breakdown_bad", ["--breakdown", "some"], "bad", ["--breakdown"]),
            ("format_csv", ["--format", "csv"], "good", ["case,gpu"]),
            ("format_xml", ["--format", "xml"], "bad", ["--format"]),
            ("format_twice", ["--format", "json", "--format", "table"], "bad", ["--format"]),
            ("gpu_flag", ["--gpu", "h200"], "bad", ["--gpu"]),
            ("positional", ["h200"], "bad", []),
            ("e2e_twice", ["--e2e"], "any", [])):
        files = {"r18_empty/.keep": "", "r18_cut/h200/tp2.lct.gz": open(f"{REPO}/traces/e2e/h200/tp2.lct.gz",
                                                                          "rb").read()[:5000],
                 "r18_cut/h200/tp2.cases.csv": open(f"{REPO}/traces/e2e/h200/tp2.cases.csv", "rb").read(),
                 "r18_casesonly/h200/tp2.cases.csv": open(f"{REPO}/traces/e2e/h200/tp2.cases.csv", "rb").read()}
        r.cli(f"validate_e2e_{n}", E + extra, exp, want, files=files, empty_ok=True)


def add_tune_validate(r):
    """`tune --validate` with --heldout-traces, --heldout-only, --per-shape and --family in combination."""
    for n, argv, exp, want in (
            ("heldout_missing", V + ["--heldout-traces", "/nonexistent/r18"], "bad", ["/nonexistent/r18"]),
            ("heldout_file", V + ["--heldout-traces", BLIND + "/moe-triton-4.corpus.csv.gz"], "bad",
             ["moe-triton-4.corpus.csv.gz"]),
            ("heldout_empty", V + ["--heldout-traces", r.path("hempty"), "--heldout-only"], "bad", ["r18_hempty"]),
            ("heldout_other_family", ["tune", "--gpu", "h200", "--family", "gemm-triton", "--validate", "--no-timing",
                                      "--traces", "traces/tune", "--heldout-traces", BLIND, "--heldout-only"], "bad",
             ["--heldout-traces"]),
            ("heldout_twice", V + ["--heldout-traces", BLIND, "--heldout-traces", BLIND], "bad", ["--heldout-traces"]),
            ("heldout_only_twice", V + ["--heldout-traces", BLIND, "--heldout-only", "--heldout-only"], "any", []),
            ("heldout_pool_itself", V + ["--heldout-traces", "traces/tune/h200", "--heldout-only"], "bad",
             ["traces/tune/h200"]),
            ("heldout_only_plan", ["tune", "--gpu", "h200", "--family", "moe-triton-fp8", "--plan", "--heldout-only"],
             "bad", ["--heldout-only"]),
            ("heldout_with_fit", ["tune", "--gpu", "h200", "--family", "moe-triton-fp8", "--fit", "--traces",
                                  "traces/tune", "--out", r.path("f.json"), "--heldout-traces", BLIND], "bad",
             ["--heldout-traces"]),
            ("cublaslt_heldout_only", ["tune", "--gpu", "h200", "--family", "gemm-cublaslt", "--validate",
                                       "--heldout-traces", BLIND, "--heldout-only"], "bad", []),
            ("family_unknown", ["tune", "--gpu", "h200", "--family", "moe-triton-fp9", "--validate"], "bad",
             ["moe-triton-fp9"]),
            ("family_empty", ["tune", "--gpu", "h200", "--family", "", "--validate"], "bad", ["--family"]),
            ("no_family", ["tune", "--gpu", "h200", "--validate", "--no-timing"], "bad", ["--family"]),
            ("no_gpu", ["tune", "--family", "moe-triton-fp8", "--validate", "--no-timing"], "bad", ["--gpu"]),
            ("gpu_other", ["tune", "--gpu", "t4", "--family", "moe-triton-fp8", "--validate", "--no-timing", "--traces",
                           "traces/tune"], "bad",
             ["t4"]),
            ("pershape_and_json_stdout", V + ["--per-shape", "/dev/stdout", "--format", "json"], "bad",
             ["--per-shape"]),
            ("pershape_traces_file", V + ["--per-shape", "traces/tune/h200/moe-triton-1.corpus.csv.gz"], "bad",
             ["moe-triton-1.corpus.csv.gz"]),
            ("sample_fraction_zero", V + ["--sample-fraction", "0"], "bad", ["--sample-fraction"]),
            ("anchors_zero", V + ["--anchors-per-bucket", "0"], "bad", ["--anchors-per-bucket"]),
            ("lambda_neg", V + ["--lambda", "-1"], "bad", ["--lambda"]),
            ("format_csv", V + ["--format", "csv"], "bad", ["--format"])):
        r.cli(f"tune_validate_{n}", argv, exp, want, files={"r18_hempty/.keep": ""}, empty_ok=True)


def add_scripts(r):
    """trim-lct.py and hf-decode-split.py on cut, corrupt and malformed traces."""
    head = "#loom-cupti 1\n"
    rng = "R\t100\t900\t0\tloom.case=0\nR\t200\t800\t0\tloom.rep\n"
    good = head + rng + "K\t300\t400\t0\tgemm\n#end records=3 dropped=0\n"
    corrupt = bytearray(gz(good * 40))
    corrupt[30:40] = b"\x00" * 10
    files = {
        "r18t/good.lct": good, "r18t/cut.lct.gz": gz(good * 50)[:60], "r18t/corrupt.lct.gz": bytes(corrupt),
        "r18t/noend.lct": head + rng, "r18t/short_r.lct": head + "R\t1\t2\n#end records=1\n",
        "r18t/neg.lct": head + "K\t-5\t4\t0\tx\n#end records=1\n",
        "r18t/backwards.lct": head + "R\t900\t100\t0\tloom.case=0\nK\t300\t400\t0\tx\n#end records=2\n",
        "r18t/latin1.lct": (head + rng).encode() + b"K\t300\t400\t0\t\xff\n#end records=3\n",
        "r18t/binary.lct.gz": gz(b"\x00\x01\x02" * 100), "r18t/empty.lct": "",
        "r18t/end_bad.lct": head + rng + "#end records=x dropped=\n",
    }
    s = "{T}/r18t"
    for n, argv, exp, want in (
            ("trim_ok", [s + "/good.lct", s + "/o1.lct.gz"], "good", ["records"]),
            ("trim_cut", [s + "/cut.lct.gz", s + "/o2.lct.gz"], "bad", ["cut.lct.gz"]),
            ("trim_corrupt", [s + "/corrupt.lct.gz", s + "/o3.lct.gz"], "bad", ["corrupt.lct.gz"]),
            ("trim_noend", [s + "/noend.lct", s + "/o4.lct.gz"], "bad", ["noend.lct"]),
            ("trim_short_range", [s + "/short_r.lct", s + "/o5.lct.gz"], "bad", ["short_r.lct"]),
            ("trim_negative", [s + "/neg.lct", s + "/o6.lct.gz"], "bad", ["neg.lct"]),
            ("trim_backwards", [s + "/backwards.lct", s + "/o7.lct.gz"], "bad", ["backwards.lct"]),
            ("trim_not_utf8", [s + "/latin1.lct", s + "/o8.lct.gz"], "bad", ["latin1.lct"]),
            ("trim_binary", [s + "/binary.lct.gz", s + "/o9.lct.gz"], "bad", ["binary.lct.gz"]),
            ("trim_empty", [s + "/empty.lct", s + "/o10.lct.gz"], "bad", ["empty.lct"]),
            ("trim_end_bad", [s + "/end_bad.lct", s + "/o11.lct.gz"], "bad", ["end_bad.lct"]),
            ("trim_in_place", [s + "/good.lct", s + "/good.lct"], "bad", ["good.lct"]),
            ("trim_reps_huge", [s + "/good.lct", s + "/o12.lct.gz", "--reps", "99999999999999999999"], "good",
             ["records"]),
            ("trim_out_proc", [s + "/good.lct", "/proc/r18.lct.gz"], "bad", ["/proc/r18.lct.gz"])):
        r.script(n, "trim-lct.py", argv, exp, want, files=files, empty_ok=True)
    hf = "R\t0\t10000\t0\tloom.case=0\nR\t100\t9000\t0\tloom.phase=decode\n"
    cases = "case_id,x,spec\n0,0,e2e_decode batch=1 context=128\n"
    variants = {
        "one_attn": hf + "K\t200\t300\t0\tgemm\nK\t400\t500\t0\tflash_fwd\n",
        "no_attn": hf + "K\t200\t300\t0\tgemm\nK\t400\t500\t0\tgemm\n",
        "short_k": hf + "K\t200\n",
        "text_start": hf + "K\tx\t300\t0\tflash\n",
        "no_kernels": hf,
        "case_not_listed": hf.replace("loom.case=0", "loom.case=7") + "K\t200\t300\t0\tgemm\n",
    }
    for n, body in variants.items():
        files = {f"r18h/{n}/hf_eager.lct.gz": gz("#loom-cupti 1\n" + body + "#end records=1\n"),
                 f"r18h/{n}/hf_eager.cases.csv": cases}
        r.script(f"hf_split_{n}", "hf-decode-split.py", ["{T}/r18h/" + n], "bad", ["hf_eager"], files=files,
                 empty_ok=True)
    r.script("hf_split_cases_short", "hf-decode-split.py", ["{T}/r18h/cs"], "bad", ["hf_eager.cases.csv"],
             files={"r18h/cs/hf_eager.lct.gz": gz("#loom-cupti 1\n" + hf + "#end records=1\n"),
                    "r18h/cs/hf_eager.cases.csv": "case_id,x,spec\n0\n"}, empty_ok=True)
    r.script("hf_split_cases_not_utf8", "hf-decode-split.py", ["{T}/r18h/cu"], "bad", ["hf_eager.cases.csv"],
             files={"r18h/cu/hf_eager.lct.gz": gz("#loom-cupti 1\n" + hf + "#end records=1\n"),
                    "r18h/cu/hf_eager.cases.csv": b"case_id,x,spec\n0,0,\xff\xfe\n"}, empty_ok=True)


def add_capi(r):
    """The C API with NULL and non-UTF-8 arguments."""
    for n, body, exp, want in (
            ("open_null_err", "h = lib.loom_open(None, b'forest', None, 0)\nprint('ok' if not h else 'opened')",
             "good", ["ok"]),
            ("open_err_len_zero", "h = lib.loom_open(None, b'forest', err, 0)\nprint('ok' if not h else 'opened')",
             "good", ["ok"]),
            ("open_err_len_one", "h = lib.loom_open(None, b'forest', err, 1)\n"
                                 "print('ok' if not h and err.raw[0] == 0 else 'bad')", "good", ["ok"]),
            ("open_dir_not_utf8", "h = lib.loom_open(b'/nonexistent/\\xff\\xfe', None, err, 512)\n"
                                  "print('loom: ' + err.value.decode(), file=sys.stderr) or sys.exit(2) if not h "
                                  "else print('opened')", "bad", ["nonexistent"]),
            ("open_model_not_utf8", "h = lib.loom_open(None, b'learn\\xffed', err, 512)\n"
                                    "print('loom: ' + err.value.decode(), file=sys.stderr) or sys.exit(2) if not h "
                                    "else print('opened')", "bad", []),
            ("open_model_empty", "h = lib.loom_open(None, b'', err, 512)\n"
                                 "print('loom: ' + err.value.decode(), file=sys.stderr) or sys.exit(2) if not h "
                                 "else print('opened')", "bad", []),
            ("predict_kernel_not_utf8", "h = opened()\nr = lib.loom_predict(h, b'h200', b'gemm m=64 n=64 k=64 "
                                        "dtype=bf\\xff16', C.byref(p))\ndone(h, r, p.latency_us)", "bad", ["dtype"]),
            ("predict_family_not_utf8", "h = opened()\nr = lib.loom_predict(h, b'h200', b'\\xc3\\x28 m=1', "
                                        "C.byref(p))\ndone(h, r, p.latency_us)", "bad", []),
            ("predict_key_not_utf8", "h = opened()\nr = lib.loom_predict(h, b'h200', b'gemm m=64 n=64 k=64 "
                                     "dtype=bf16 \\xfe=1', C.byref(p))\ndone(h, r, p.latency_us)", "bad", []),
            ("tune_kernel_not_utf8", "h = opened()\nr = lib.loom_tune(h, b'h200', b'gemm m=\\xff n=64 k=64 "
                                     "dtype=bf16', cfg, 64, C.byref(us))\ndone(h, r, cfg.value)", "bad", ["m"]),
            ("tune_gpu_not_utf8", "h = opened()\nr = lib.loom_tune(h, b'h\\xff200', b'" + K + "', cfg, 64, "
                                  "C.byref(us))\ndone(h, r, cfg.value)", "bad", ["gpu"]),
            ("tune_null_latency", "h = opened()\nr = lib.loom_tune(h, b'h200', b'gemm m=3000 n=6144 k=4096 "
                                  "dtype=bf16', cfg, 64, None)\ndone(h, r, cfg.value)", "any", []),
            ("tune_cfg_len_one", "h = opened()\nr = lib.loom_tune(h, b'h200', b'gemm m=3000 n=6144 k=4096 "
                                 "dtype=bf16', cfg, 1, C.byref(us))\ndone(h, r, cfg.value)", "bad", ["config"]),
            ("last_error_null", "r = lib.loom_last_error(None)\nprint('ok' if r is not None else 'NULL')", "good",
             ["ok"]),
            ("close_null", "lib.loom_close(None)\nprint('ok')", "good", ["ok"]),
            ("error_not_utf8_echo", "h = opened()\nr = lib.loom_predict(h, b'\\xff' * 50, b'" + K + "', C.byref(p))\n"
                                    "e = lib.loom_last_error(h)\ne.decode('utf-8')\ndone(h, r, p.latency_us)", "bad",
             ["gpu"])):
        r.capi(n, body, exp, want)
