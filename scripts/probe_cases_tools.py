"""Probe cases (see probe_cases.py): report, trace, gpus, calibrate, tune, validate, train, mode and device cases."""
from probe_cases import K, read  # noqa: F401

S_REQ = ["simulate", "--gpu", "h200", "--model", "llama-3-8b", "--requests", "tests/data/serving/requests.csv"]

def add_report_trace(c):
    O = ["-o", "{T}/out.html"]
    c("report_no_o", ["report", "--sample"], "any")
    c("report_o_full", ["report", "--sample", "-o", "/dev/full"])
    c("report_o_dir", ["report", "--sample", "-o", "models"])
    c("report_o_twice", ["report", "--sample", "-o", "{T}/a.html", "-o", "{T}/b.html"])
    js = {"empty.json": "", "garbage.json": "not json", "arr.json": "[]", "obj.json": "{}", "null.json": "null",
          "bytes.json": b'{"gpu": "\xff"}', "nested_deep.json": "[" * 100000 + "]" * 100000,
          "trunc.json": '{"splits": [', "num.json": "5"}
    for kind in ("--json-in", "--validation", "--e2e", "--whatif", "--simulate"):
        for n, v in js.items():
            c(f"report{kind[1:]}_{n[:-5]}", ["report", kind, "{T}/" + n] + O, files={n: v})
        c(f"report{kind[1:]}_missing", ["report", kind, "/nonexistent.json"] + O)
        c(f"report{kind[1:]}_dir", ["report", kind, "models"] + O)
    c("report_e2e_is_sim", ["report", "--e2e", "{T}/simout.json"] + O, files={"simout.json": '{"requests": 5}'})
    # trace summary / import
    c("trace_noargs", ["trace"])
    c("trace_sub_bad", ["trace", "sumary"])
    c("trace_summary_missing", ["trace", "summary", "/nonexistent"])
    c("trace_summary_emptydir", ["trace", "summary", "{T}/emptydir"], files={"emptydir/.keep": ""})
    c("trace_summary_devnull", ["trace", "summary", "/dev/null"])
    for n, v in {"e.lct": b"", "junk.lct": b"junk\x00\xff" * 10, "e.lct.gz": b"", "trunc.lct.gz": b"\x1f\x8b\x08\x00",
                 "junk.corpus.csv.gz": b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03garbage",
                 "e.corpus.csv": b"", "hdr.corpus.csv": b"family,gpu\n"}.items():
        c(f"trace_summary_{n.replace('.', '_')}", ["trace", "summary", "{T}/" + n], files={n: v})
    c("trace_summary_two", ["trace", "summary", "traces/h200", "traces/h100"])
    ch = {"e.json": "", "obj.json": "{}", "arr.json": "[]", "events_str.json": '{"traceEvents": "x"}',
          "events_empty.json": '{"traceEvents": []}',
          "neg_ts.json": '{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": -5, "dur": 3}]}',
          "huge_dur.json": '{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": 0, "dur": 1e300}]}',
          "noname.json": '{"traceEvents": [{"ph": "X", "cat": "kernel", "ts": 0, "dur": 3}]}',
          "trunc.json": read("tests/data/trace/torch_profile_sample.json")[:700],
          "bytes.json": b'{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "\xff", "ts": 0, "dur": 3}]}',
          "gz_trunc.json.gz": read("tests/data/trace/torch_profile_h200.json.gz")[:200],
          "nan.json": '{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": 0, "dur": NaN}]}'}
    for n, v in ch.items():
        c(f"chrome_{n.replace('.', '_')}", ["trace", "import", "--chrome", "{T}/" + n],
          "any" if n == "neg_ts.json" else "bad", files={n: v})
    c("chrome_missing", ["trace", "import", "--chrome", "/nonexistent.json"])
    c("chrome_format_json", ["trace", "import", "--chrome", "tests/data/trace/torch_profile_sample.json", "--format",
                             "json"], "any")
    c("import_lct_no_cases", ["trace", "import", "--lct", "traces/e2e/h200/graph_decode.lct.gz", "-o", "{T}/o.csv.gz"])
    c("import_cases_no_lct", ["trace", "import", "--cases", "tests/data/trace/zero_dim.cases.csv", "-o",
                              "{T}/o.csv.gz"])
    c("import_no_o", ["trace", "import", "--lct", "traces/e2e/h200/graph_decode.lct.gz", "--cases",
                      "tests/data/trace/zero_dim.cases.csv"])
    c("import_lct_junk", ["trace", "import", "--lct", "{T}/j.lct", "--cases", "tests/data/trace/zero_dim.cases.csv",
                          "-o", "{T}/o.csv.gz"], files={"j.lct": b"junk"})
    c("import_cases_empty", ["trace", "import", "--lct", "traces/e2e/h200/graph_decode.lct.gz", "--cases",
                             "{T}/e.cases.csv", "-o", "{T}/o.csv.gz"], files={"e.cases.csv": ""})
    c("import_from_bad", ["trace", "import", "--from", "nope", "tests/data/public/neusight_ok.csv"])
    c("import_from_empty_file", ["trace", "import", "--from", "neusight", "{T}/e.csv", "-o", "{T}/od"],
      files={"e.csv": ""})
    c("paths_missing", ["trace", "paths", "/nonexistent"])
    c("paths_o_full", ["trace", "paths", "{T}/emptydir2", "-o", "/dev/full"], files={"emptydir2/.keep": ""})
    c("fitcoll_missing", ["trace", "fit-collectives", "--traces", "/nonexistent"])
    c("fitcoll_o_dir", ["trace", "fit-collectives", "-o", "models"], want=["models"])
    c("fitcoll_o_nofolder", ["trace", "fit-collectives", "-o", "/nonexistent/c.json"], want=["/nonexistent"])
    c("import_o_nofolder", ["trace", "import", "--lct", "tests/data/trace/sample.lct", "--cases", "{T}/x.cases.csv",
                            "-o", "/nonexistent/o.csv.gz"], want=["/nonexistent"], files={"x.cases.csv": ""})
    # Beyond the model's max_position_embeddings: priced, with a warning (exit 0).
    c("e2e_beyond_positions", ["e2e", "--gpu", "h200", "--model", "llama-3-8b", "--phase", "decode", "--context",
                               "20000", "--format", "json"], "ok")


def add_misc(c):
    W1 = ["whatif", "--model", "llama-3-8b", "--batch", "1", "--input-len", "100", "--output-len", "10"]
    c("whatif_gpus_twice", W1 + ["--gpus", "h200,h200"], want=["--gpus"])
    c("whatif_tp_twice", W1 + ["--gpus", "h200", "--tp", "1,1"], want=["--tp"])
    c("whatif_cap_tp_twice", ["whatif", "--model", "llama-3-8b", "--rate", "3", "--gpus", "h200", "--tp", "2,2"],
      want=["--tp"])
    c("simulate_pp_beyond_layers", ["simulate", "--gpu", "h200", "--model", "llama-3-8b", "--rate", "5",
                                    "--num-requests", "10", "--pp", "33"], want=["--pp", "32"])
    c("tune_gemm_too_big", ["tune", "--gpu", "h200", "--kernel", "gemm m=99999999999 n=8 k=8 dtype=bf16"],
      want=["--kernel"])
    c("tune_moe_export_tp3", ["tune", "--gpu", "h200", "--model", "qwen3-30b-a3b", "--tp", "3",
                              "--export-moe-configs", "{T}/moe3"], want=["--tp"])
    c("gpus_show_missing", ["gpus", "show", "h999"], want=["h999"])
    c("gpus_show_empty", ["gpus", "show", ""])
    c("gpus_show_two", ["gpus", "show", "h200", "h100-sxm"])
    c("gpus_show_devnull", ["gpus", "show", "/dev/null"])
    c("gpus_show_dir", ["gpus", "show", "gpus"])
    c("gpus_bad_sub", ["gpus", "list"])
    c("gpus_kernel_flag", ["gpus", "--kernel", K])
    c("gpus_out_full", ["gpus", "--format", "json", "-o", "/dev/full"])
    cal = read("tests/data/calibrate/good.json").decode()
    cf = {"e.json": "", "arr.json": "[]", "neg_clock.json": cal.replace('"clock_mhz": 1980', '"clock_mhz": -1980'),
          "zero_bw.json": cal.replace("3043554955315.689", "0"), "huge_bw.json": cal.replace("3043554955315.689", "1e300"),
          "slow_lt1.json": cal.replace('"slowdown": 1.1693', '"slowdown": 0.2'),
          "sms0.json": cal.replace('"sms": 132', '"sms": 0'), "bytes.json": cal.encode().replace(b'"vm"', b'"v\xffm"'),
          "mhz0.json": cal.replace('"sustained_sm_mhz": 1500', '"sustained_sm_mhz": 0')}
    for n, v in cf.items():
        c(f"calib_{n[:-5]}", ["calibrate", "{T}/" + n, "--gpu", "h100-sxm"], "any" if n == "neg_clock.json" else "bad",
          files={n: v})
    for f in ("json", "csv", "xml"):
        c(f"calib_fmt_{f}", ["calibrate", "tests/data/calibrate/good.json", "--gpu", "h100-sxm", "--format", f],
          "any" if f != "xml" else "bad")
        c(f"report_fmt_{f}", ["report", "--sample", "-o", "{T}/f.html", "--format", f], "any" if f == "json" else "bad")
        c(f"chrome_fmt_{f}", ["trace", "import", "--chrome", "tests/data/trace/torch_profile_sample.json", "--format", f],
          "any" if f != "xml" else "bad")
        c(f"summary_lct_fmt_{f}", ["trace", "summary", "traces/e2e/h200/graph_decode.lct.gz", "--format", f],
          "any" if f != "xml" else "bad")
        c(f"tune_plan_fmt_{f}", ["tune", "--plan", "--gpu", "h200", "--family", "gemm", "--format", f])
        c(f"tune_moecfg_fmt_{f}", ["tune", "--gpu", "h200", "--model", "qwen3-30b-a3b", "--export-moe-configs",
                                   "{T}/mc_" + f, "--format", f])
    c("calib_dir", ["calibrate", "models", "--gpu", "h100-sxm"])
    c("calib_devnull", ["calibrate", "/dev/null", "--gpu", "h100-sxm"])
    c("calib_wrong_gpu", ["calibrate", "tests/data/calibrate/good.json", "--gpu", "t4"], "any")
    c("calib_o_dir", ["calibrate", "tests/data/calibrate/good.json", "--gpu", "h100-sxm", "-o", "models"])
    c("calib_two_files", ["calibrate", "tests/data/calibrate/good.json", "tests/data/calibrate/good.json", "--gpu",
                          "h100-sxm"])
    T = ["tune", "--gpu", "h200"]
    for flag, v in (("--family", "foo"), ("--sample-fraction", "0"), ("--sample-fraction", "1.5"),
                    ("--sample-fraction", "nan"), ("--lambda", "-1"), ("--lambda", "nan"), ("--lambda", "inf")):
        c(f"tune_plan{flag[1:]}_{v}", T + ["--plan", "--family", "gemm" if flag != "--family" else v, flag, v],
          want=[flag])
    c("tune_plan_no_family", T + ["--plan"])
    c("tune_plan_tables_missing", T + ["--plan", "--family", "gemm", "--tables", "/nonexistent/t.json"])
    c("tune_plan_tables_other", T + ["--plan", "--family", "gemm", "--tables", "models/tune/h100-sxm-gemm.json"])
    c("tune_two_modes", T + ["--plan", "--fit", "--family", "gemm"])
    c("tune_t4_kernel", ["tune", "--gpu", "t4", "--kernel", "gemm m=4096 n=4096 k=4096 dtype=bf16"])
    c("tune_export_full", T + ["--export", "--family", "gemm", "--out", "/dev/full"])
    c("tune_export_moe_devnull", T + ["--model", "qwen3-30b-a3b", "--export-moe-configs", "/dev/null"])
    c("tune_export_moe_dense", T + ["--model", "llama-3-8b", "--export-moe-configs", "{T}/moecfg"])
    c("tune_export_moe_dtype", T + ["--model", "qwen3-30b-a3b", "--export-moe-configs", "{T}/moecfg2", "--dtype",
                                    "fp16"], want=["--dtype"])
    c("tune_export_moe_tp3", T + ["--model", "qwen3-30b-a3b", "--export-moe-configs", "{T}/moecfg3", "--tp", "3"], "any")
    c("tune_kernel_nan", T + ["--kernel", "gemm m=nan n=1 k=1 dtype=bf16"])
    c("tune_kernel_attention", T + ["--kernel", "rms_norm rows=4 cols=4 dtype=bf16"])
    c("tune_sample_fraction_kernel", T + ["--kernel", K, "--sample-fraction", "0.5"])
    for v in ("-1", "nan", "abc", "1e309", ""):
        c(f"validate_max_mape_{v or 'empty'}", ["validate", "--max-mape", v], want=["--max-mape"])
    c("validate_e2e_missing", ["validate", "--e2e", "--traces", "/nonexistent"])
    c("validate_serving_missing", ["validate", "--serving", "--traces", "/nonexistent"])
    c("validate_two_modes", ["validate", "--e2e", "--serving"])
    c("validate_kernel_flag", ["validate", "--kernel", K])
    c("validate_check_e2e", ["validate", "--e2e", "--check", "--traces", "/nonexistent"])
    c("train_out_novalue", ["train", "--out"])
    c("train_traces_missing", ["train", "--traces", "/nonexistent", "--out", "{T}/m"])
    c("train_out_devnull", ["train", "--out", "/dev/null"])
    c("train_gpu_flag", ["train", "--gpu", "h200", "--out", "{T}/m2"])
    c("train_stray", ["train", "extra", "--out", "{T}/m3"])

def add_modes(c, P, E, SR, W, WC):
    """Flags of another mode of the same command, list/flag interplay, odd combinations."""
    K2 = ["--kernel", K]
    c("mode_validate_check_e2e", ["validate", "--e2e", "--check", "--traces", "tests/data/calibrate"])
    c("mode_validate_maxmape_serving", ["validate", "--serving", "--max-mape", "5", "--traces", "tests/data/calibrate"])
    c("mode_validate_e2e_gpu", ["validate", "--e2e", "--gpu", "h200", "--traces", "tests/data/calibrate"])
    c("mode_validate_e2e_nodir", ["validate", "--e2e", "--traces", "tests/data/calibrate"])
    c("mode_validate_serving_nodir", ["validate", "--serving", "--traces", "tests/data/calibrate"])
    c("mode_validate_coll_nodir", ["validate", "--collectives", "--traces", "tests/data/calibrate"])
    c("mode_report_measured_no_kernel", ["report", "--sample", "--measured-us", "5", "-o", "{T}/m.html"])
    c("mode_report_sample_gpu", ["report", "--sample", "--gpu", "h200", "-o", "{T}/m2.html"])
    c("mode_report_json_out_full", ["report", "--sample", "--json-out", "/dev/full", "-o", "{T}/m3.html"])
    c("mode_chrome_and_lct", ["trace", "import", "--chrome", "tests/data/trace/torch_profile_sample.json", "--lct",
                              "x.lct"])
    c("mode_chrome_and_from", ["trace", "import", "--chrome", "tests/data/trace/torch_profile_sample.json", "--from",
                               "neusight"])
    c("mode_from_lenient", ["trace", "import", "--from", "neusight", "tests/data/public/neusight_ok.csv", "--lct", "x",
                            "-o", "{T}/fl"])
    c("mode_from_header_only", ["trace", "import", "--from", "neusight", "{T}/hdr_ns.csv", "-o", "{T}/fh"],
      files={"hdr_ns.csv": read("tests/data/public/neusight_ok.csv").split(b"\n")[0] + b"\n"})
    c("mode_predict_interval_batch", ["predict", "--gpu", "h200", "--batch", "examples/kernels.csv", "--interval"], "any")
    c("mode_predict_model_bad", P + ["--model", "foo"], want=["--model"])
    c("mode_predict_model_analytical", P + ["--model", "analytical"], "any")
    c("mode_diagnose_gpu_all", ["diagnose", "--gpu", "all"] + K2)
    c("mode_diagnose_two", ["diagnose", "--gpu", "h200,h100-sxm"] + K2)
    c("mode_diagnose_threads", ["diagnose", "--gpu", "h200", "--threads", "2"] + K2)
    c("mode_e2e_ctx_count", ["e2e", "--gpu", "h200", "--model", "llama-3-8b", "--phase", "decode", "--batch", "2",
                             "--context", "1,2,3"])
    c("mode_e2e_top0", E + ["--top", "0"])
    c("mode_e2e_top_neg", E + ["--top", "-1"])
    c("mode_e2e_replay_missing", E + ["--replay", "/nonexistent.json"])
    c("mode_e2e_from_bad", E + ["--from", "nowhere"])
    c("mode_e2e_cache_len_hf", ["e2e", "--gpu", "h200", "--model", "llama-3-8b", "--phase", "decode", "--batch", "1",
                                "--context", "64", "--profile", "hf-sdpa", "--cache-len", "100000000000"])
    c("mode_e2e_interval", E + ["--interval"], "any")
    c("mode_whatif_interval_cap", WC + ["--interval"])
    c("mode_whatif_threads0", WC + ["--threads", "0"], want=["--threads"])
    c("mode_whatif_threads_huge", WC + ["--threads", "100000"], want=["--threads"])
    c("mode_whatif_gpus_all_set", ["whatif", "--model", "llama-3-8b", "--batch", "1", "--input-len", "8",
                                   "--output-len", "8", "--gpus", "all", "--set", "sms=1"], "any")
    c("mode_whatif_requests_one", ["whatif", "--model", "llama-3-8b", "--gpus", "h200", "--requests", "{T}/one.csv"],
      files={"one.csv": "arrival_s,prompt_tokens,output_tokens\n0,10,10\n"})
    c("mode_sim_perreq_table", SR + ["--per-request"], "any")
    c("mode_sim_replicas_requests", S_REQ + ["--replicas", "2"], "any")
    c("mode_sim_num_requests_with_file", S_REQ + ["--num-requests", "5"])
    c("mode_sim_seed_with_file", S_REQ + ["--seed", "5"])
    c("mode_sim_big", ["simulate", "--gpu", "h200", "--model", "llama-3.2-1b", "--rate", "50", "--num-requests",
                       "20000"], "any")
    c("mode_sim_arrival_far", ["simulate", "--gpu", "h200", "--model", "llama-3-8b", "--requests", "{T}/far.csv"], "any",
      files={"far.csv": "arrival_s,prompt_tokens,output_tokens\n0,10,10\n999999999,10,10\n"})
    c("mode_sim_bom_csv", ["simulate", "--gpu", "h200", "--model", "llama-3-8b", "--requests", "{T}/bom.csv"], "any",
      files={"bom.csv": "\ufeffarrival_s,prompt_tokens,output_tokens\n0,10,10\n"})
    c("mode_sim_bom_jsonl", ["simulate", "--gpu", "h200", "--model", "llama-3-8b", "--requests", "{T}/bom.jsonl"], "any",
      files={"bom.jsonl": '\ufeff{"arrival_s": 0, "prompt_tokens": 10, "output_tokens": 5}\n'})
    c("mode_model_traversal", [x if x != "llama-3-8b" else "../presets/llama-3-8b" for x in E])
    c("mode_kernel_1mb", ["predict", "--gpu", "h200", "--kernel", "gemm " + "m=1 " * 25000])
    c("mode_tune_tables_garbage", ["tune", "--gpu", "h200", "--kernel", "gemm m=4096 n=4096 k=4096 dtype=bf16",
                                   "--tables", "{T}/garbage.json"], files={"garbage.json": "{]"})
    c("mode_tune_tables_other_gpu", ["tune", "--gpu", "h200", "--kernel", "gemm m=4096 n=4096 k=4096 dtype=bf16",
                                     "--tables", "models/tune/h100-sxm-gemm.json"])
    c("mode_tune_tables_moe_for_gemm", ["tune", "--gpu", "h200", "--kernel", "gemm m=4096 n=4096 k=4096 dtype=bf16",
                                        "--tables", "models/tune/h200-moe.json"])
    c("mode_gpus_show_set_bad", ["gpus", "show", "h200", "--set", "sms=0"])
    c("mode_fitcoll_full", ["trace", "fit-collectives", "-o", "/dev/full"])
    for dev in ("/dev/zero", "/dev/urandom", "/dev/null"):
        d = dev[5:]
        c(f"dev_{d}_batch", ["predict", "--gpu", "h200", "--batch", dev])
        c(f"dev_{d}_model", [x if x != "llama-3-8b" else dev for x in E])
        c(f"dev_{d}_requests", ["simulate", "--gpu", "h200", "--model", "llama-3-8b", "--requests", dev])
        c(f"dev_{d}_profile", E + ["--profile", dev])
        c(f"dev_{d}_replay", ["e2e", "--gpu", "h200", "--replay", dev])
        c(f"dev_{d}_chrome", ["trace", "import", "--chrome", dev])
        c(f"dev_{d}_validation", ["report", "--validation", dev, "-o", "{T}/dv.html"])
        c(f"dev_{d}_json_in", ["report", "--json-in", dev, "-o", "{T}/dv.html"])
        c(f"dev_{d}_calibrate", ["calibrate", dev, "--gpu", "h100-sxm"])
        c(f"dev_{d}_tables", ["tune", "--gpu", "h200", "--kernel", "gemm m=64 n=64 k=64 dtype=bf16", "--tables", dev])
        c(f"dev_{d}_gpu", ["predict", "--gpu", dev, "--kernel", K])
        c(f"dev_{d}_lens", SR + ["--prompt-len", "file:" + dev])
        c(f"dev_{d}_neusight", ["trace", "import", "--from", "neusight", dev, "-o", "{T}/dn"])
        c(f"dev_{d}_lct", ["trace", "import", "--lct", dev, "--cases", "tests/data/trace/zero_dim.cases.csv", "-o",
                           "{T}/dl.csv.gz"])
    c("mode_calib_o_full", ["calibrate", "tests/data/calibrate/good.json", "--gpu", "h100-sxm", "-o", "/dev/full"])
