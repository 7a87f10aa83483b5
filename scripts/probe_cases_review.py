"""Probe cases (see probe_cases.py) a reviewer added after the first 861: empty strings for every path and value,
empty positionals, a GPU named by the wrong flag, empty replays, empty path tables, implausible public latencies,
SLOs no row meets, length files that are folders or carry a BOM, duplicate list items, repeated and misplaced
flags, --format on every command, signed zeros and spaces in numbers, odd encodings (BOM, CRLF, non-UTF-8) and odd
files (zero-length and truncated gzip, symlink loops, folders, /dev/full) across readers, and the Python module."""
import gzip

from probe_cases import K, read  # noqa: F401

P = ["predict", "--gpu", "h200", "--kernel", K]
E = ["e2e", "--gpu", "h200", "--model", "llama-3-8b", "--phase", "decode", "--batch", "8", "--seq", "1",
     "--context", "1024"]
SR = ["simulate", "--gpu", "h200", "--model", "llama-3-8b", "--rate", "2", "--num-requests", "20"]
S = ["simulate", "--gpu", "h200", "--model", "llama-3-8b"]
WC = ["whatif", "--model", "llama-3-8b", "--gpus", "h200", "--rate", "2"]
W = ["whatif", "--model", "llama-3-8b", "--batch", "1", "--input-len", "8", "--output-len", "8", "--gpus", "h200"]
NS = "tests/data/public/neusight_ok.csv"
CHROME = "tests/data/trace/torch_profile_sample.json"
CAL = "tests/data/calibrate/good.json"
REQ = "tests/data/serving/requests.csv"
MOE = ["tune", "--gpu", "h200", "--model", "qwen3-30b-a3b", "--export-moe-configs"]


def add_review(c):
    add_empty(c)
    add_names(c)
    add_outputs(c)
    add_numbers(c)
    add_encodings(c)
    add_flags(c)
    add_python(c)


def add_empty(c):
    """An empty string is never a path, a name or a number: refused naming the flag (or the empty argument)."""
    for name, argv, flag in (
            ("e2e_trace_out", E + ["--trace-out", ""], "--trace-out"),
            ("sim_trace_out", SR + ["--trace-out", ""], "--trace-out"),
            ("replay", ["e2e", "--gpu", "h200", "--replay", ""], "--replay"),
            ("batch", ["predict", "--gpu", "h200", "--batch", ""], "--batch"),
            ("requests", S + ["--requests", ""], "--requests"),
            ("whatif_requests", ["whatif", "--model", "llama-3-8b", "--gpus", "h200", "--requests", ""], "--requests"),
            ("tables", ["tune", "--gpu", "h200", "--kernel", K, "--tables", ""], "--tables"),
            ("report_o", ["report", "--sample", "-o", ""], "-o"),
            ("report_kernel_o", ["report", "--gpu", "h200", "--kernel", K, "-o", ""], "-o"),
            ("report_e2e", ["report", "--e2e", "", "-o", "{T}/r.html"], "--e2e"),
            ("report_json_out", ["report", "--sample", "--json-out", "", "-o", "{T}/r.html"], "--json-out"),
            ("calib_o", ["calibrate", CAL, "--gpu", "h100-sxm", "-o", ""], "-o"),
            ("chrome", ["trace", "import", "--chrome", ""], "--chrome"),
            ("import_o", ["trace", "import", "--from", "neusight", NS, "-o", ""], "-o"),
            ("import_lct", ["trace", "import", "--lct", "", "--cases", "tests/data/trace/zero_dim.cases.csv", "-o",
                            "{T}/x.csv.gz"], "--lct"),
            ("paths_o", ["trace", "paths", "traces/h200", "-o", ""], "-o"),
            ("validate_e2e", ["validate", "--e2e", "--traces", ""], "--traces"),
            ("validate_serving", ["validate", "--serving", "--traces", ""], "--traces"),
            ("validate_coll", ["validate", "--collectives", "--traces", ""], "--traces"),
            ("train_traces", ["train", "--traces", "", "--out", "{T}/m"], "--traces"),
            ("train_out", ["train", "--out", ""], "--out"),
            ("tune_fit_traces", ["tune", "--fit", "--gpu", "h200", "--family", "gemm", "--traces", "", "--out",
                                 "{T}/f.json"], "--traces"),
            ("tune_plan_out", ["tune", "--plan", "--gpu", "h200", "--family", "gemm", "--out", ""], "--out"),
            ("tune_export_out", ["tune", "--export", "--gpu", "h200", "--family", "gemm", "--out", ""], "--out"),
            ("moe_configs", MOE + [""], "--export-moe-configs"),
            ("from", ["e2e", "--gpu", "h200", "--replay", CHROME, "--from", ""], "--from"),
            ("title", ["report", "--sample", "--title", "", "-o", "{T}/t.html"], "--title"),
            ("router", SR + ["--router", ""], "--router"),
            ("seed", SR + ["--seed", ""], "--seed"),
            ("threads", ["predict", "--gpu", "h200", "--batch", "examples/kernels.csv", "--threads", ""], "--threads")):
        c(f"rv_empty_{name}", argv, want=[flag])
    for name, argv in (("calibrate", ["calibrate", "", "--gpu", "h100-sxm"]), ("summary", ["trace", "summary", ""]),
                       ("paths", ["trace", "paths", "", "-o", "{T}/p.json"]),
                       ("import_from", ["trace", "import", "--from", "neusight", "", "-o", "{T}/oe"]),
                       ("gpus_show", ["gpus", "show", ""])):
        c(f"rv_emptypos_{name}", argv, want=["empty"])


def add_names(c):
    """A refusal names what the user typed: the flag or word that carried the bad name, not another one."""
    c("rv_from_unknown", ["e2e", "--gpu", "h200", "--replay", CHROME, "--from", "h999"], want=["--from", "h999"])
    c("rv_gpus_show_unknown", ["gpus", "show", "h999"], want=["gpus show", "h999"])
    c("rv_gpus_show_typo", ["gpus", "show", "h20O"], want=["gpus show"])
    c("rv_tune_gpu_yaml", ["tune", "--gpu", "gpus/h200.yaml", "--kernel", "gemm m=4096 n=4096 k=4096 dtype=bf16"],
      want=["--gpu", "catalogue key"])
    c("rv_tune_export_gpu_yaml", ["tune", "--export", "--gpu", "gpus/h200.yaml", "--family", "gemm", "--out", "{T}/ty"],
      want=["--gpu", "catalogue key"])
    c("rv_batch_gpu_col_unknown", ["predict", "--gpu", "h200", "--batch", "{T}/gc.csv", "--format", "csv"],
      want=["gc.csv:3", "h999"], files={"gc.csv": "family,gpu,m,n,k,dtype\ngemm,h200,64,64,64,bf16\ngemm,h999,64,64,64,bf16\n"})
    c("rv_neusight_gpu_relabel", ["trace", "import", "--from", "neusight", NS, "--gpu", "h200", "-o", "{T}/orl"],
      want=["--gpu", "v100-pcie-32gb"])
    c("rv_neusight_gpu_same", ["trace", "import", "--from", "neusight", NS, "--gpu", "v100-pcie-32gb", "-o", "{T}/ors"],
      "good")
    c("rv_neusight_gpu_unknown_device", ["trace", "import", "--from", "neusight",
                                         "tests/data/public/neusight_unknown_device.csv", "--gpu", "t4", "-o", "{T}/oru"],
      "good")
    for n, argv in (("tune", ["tune", "--gpu", "all", "--kernel", K]), ("calibrate", ["calibrate", CAL, "--gpu", "all"]),
                    ("tune_list", ["tune", "--gpu", "h200,h100-sxm", "--kernel", K]),
                    ("import", ["trace", "import", "--from", "neusight", "tests/data/public/neusight_unknown_device.csv",
                                "--gpu", "all", "-o", "{T}/ga"])):  # said "unknown GPU 'all' (did you mean 'a10'?)"
        c(f"rv_one_gpu_{n}", argv, want=["--gpu", "several GPUs"])
    c("rv_gpu_all_in_list", ["predict", "--gpu", "h200,all", "--kernel", K], want=["--gpu", "give it alone"])
    c("rv_moe_tp_dup", MOE + ["{T}/mtp", "--tp", "1,1"], want=["--tp"])
    c("rv_moe_tp_dup2", MOE + ["{T}/mtp2", "--tp", "2,4,2"], want=["--tp"])
    # A length file that is a folder is a folder, not "no lengths"; a BOM'd one reads like any other text file.
    c("rv_lens_dir", SR + ["--prompt-len", "file:{T}/lensdir"], want=["directory"],
      files={"lensdir/a.txt": "10\n"})
    c("rv_lens_bom", SR + ["--prompt-len", "file:{T}/bom_lens.txt"], "good", files={"bom_lens.txt": "\ufeff10\n20\n"})
    c("rv_lens_bom_crlf", SR + ["--output-len", "file:{T}/bc_lens.txt"], "good",
      files={"bc_lens.txt": "\ufeff10\r\n20\r\n"})
    c("rv_lens_devnull_out", SR + ["--output-len", "file:/dev/null"], want=["/dev/null"])


def add_outputs(c):
    """Empty answers with exit 0, and implausible measurements written into a corpus."""
    ev = '{"traceEvents": []}'
    c("rv_replay_no_events", ["e2e", "--gpu", "h200", "--replay", "{T}/ev.json"], want=["kernel"], files={"ev.json": ev})
    c("rv_replay_json_no_events", ["e2e", "--gpu", "h200", "--replay", "{T}/ev2.json", "--format", "json"],
      want=["kernel"], files={"ev2.json": ev})
    c("rv_replay_csv_cpu_only", ["e2e", "--gpu", "h200", "--replay", "{T}/cpu.json", "--format", "csv"],
      files={"cpu.json": '{"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "ts": 0, "dur": 5}]}'})
    c("rv_replay_loom_trace_out", ["e2e", "--gpu", "h200", "--replay", "{T}/own.json"],
      files={"own.json": '{"displayTimeUnit":"ns","traceEvents":[{"cat":"gemm","dur":1.0,"name":"qkv","ph":"X",'
                         '"pid":1,"tid":3,"ts":4.0,"args":{"kernel":"gemm m=8 n=6144 k=4096 dtype=bf16"}}]}'})
    rl = '{"title": "t", "rooflines": [{"gpu": "h200", "dram_bytes_per_s": %s, "ceilings": [{"name": "bf16", ' \
         '"flops_per_s": %s}], "points": []}]}'
    for n, text in (("neg_ceiling", rl % ("4.8e12", "-1e308")), ("zero_bw", rl % ("0", "9.9e14")),
                    ("dup_key", (rl % ("4.8e12", "9.9e14"))[:-1] + ', "title": "x"}'),
                    ("neg_scatter", '{"scatters": [{"title": "s", "points": [{"label": "k", "measured_us": -5, '
                                    '"predicted_us": 3}]}]}')):  # drawn as charts of impossible numbers
        c(f"rv_report_json_{n}", ["report", "--json-in", "{T}/rj_" + n + ".json", "-o", "{T}/rj.html"],
          want=["rj_" + n + ".json"], files={"rj_" + n + ".json": text})
    c("rv_report_e2e_dup_key", ["report", "--e2e", "{T}/e2e_dup.json", "-o", "{T}/rj2.html"], want=["duplicate key"],
      files={"e2e_dup.json": '{"kernels": [], "kernels": []}'})
    c("rv_replay_gz_trunc", ["e2e", "--gpu", "h200", "--replay", "{T}/t.json.gz"],
      files={"t.json.gz": read("tests/data/trace/torch_profile_h200.json.gz")[:300]})
    c("rv_replay_gz_empty", ["e2e", "--gpu", "h200", "--replay", "{T}/z.json.gz"], files={"z.json.gz": b""})
    c("rv_paths_empty_dir", ["trace", "paths", "{T}/pe", "-o", "{T}/p.json"], files={"pe/.keep": ""})
    c("rv_paths_empty_dir_stdout", ["trace", "paths", "{T}/pe2"], files={"pe2/.keep": ""})
    c("rv_paths_public_only", ["trace", "paths", "tests/data/public"])
    head = read(NS).split(b"\n")[0] + b"\n"
    row = read(NS).split(b"\n")[1]
    for n, v in (("huge", b"1e300"), ("tiny", b"1e-300"), ("hour", b"1e12")):
        c(f"rv_neusight_latency_{n}", ["trace", "import", "--from", "neusight", "{T}/ns_" + n + ".csv", "-o",
                                        "{T}/ons_" + n], want=["Latency"],
          files={"ns_" + n + ".csv": head + row.replace(b"0.8186048150062561", v, 1) + b"\n"})
    pw = read("tests/data/public/moe_dse_H800_bad_stage.csv").split(b"\n")
    pw_row = pw[1].replace(b"w5", b"w13").replace(b"4.268666666666667", b"1e300")
    c("rv_pipeweave_moe_huge", ["trace", "import", "--from", "pipeweave", "{T}/moe_dse_H800_h.csv", "-o", "{T}/opw"],
      want=["avg_duration"], files={"moe_dse_H800_h.csv": pw[0] + b"\n" + pw_row + b"\n"})
    vd = read("tests/data/public/vidur_no_gpu_path.csv").split(b"\n")
    c("rv_vidur_huge", ["trace", "import", "--from", "vidur", "{T}/vh.csv", "--gpu", "a100-sxm4-80gb", "-o", "{T}/ovd"],
      want=["time_stats"], files={"vh.csv": vd[0] + b"\n" + vd[1].replace(b"1.711,", b"1e300,", 1) + b"\n"})
    # Capacity planning where no GPU / tp meets the SLO is an answer of "none": an error naming --slo, not exit 0.
    for f in ("table", "json", "csv"):
        c(f"rv_cap_slo_unmeetable_{f}", ["whatif", "--model", "llama-3-8b", "--gpus", "h200,h100-sxm", "--rate", "2",
                                         "--tp", "1", "--slo", "ttft=1ns", "--format", f], want=["--slo"])
    c("rv_cap_slo_tpot_unmeetable", WC + ["--tp", "1", "--slo", "tpot=1us"], want=["--slo"])
    c("rv_cap_slo_some_meet", ["whatif", "--model", "llama-3-8b", "--gpus", "h200,t4", "--rate", "0.5", "--tp", "8"],
      "good")


def add_numbers(c):
    """Signed zeros, spaces, plus signs, digit separators and unit oddities."""
    for flag, base, v in (("--rate", SR, "-0"), ("--num-requests", SR, "-0"), ("--batch", E, "-0"),
                          ("--context", E, "-0"), ("--seed", SR, "-0"), ("--replicas", SR, "-0"),
                          ("--rate", SR, " 2"), ("--rate", SR, "2 "), ("--rate", SR, "1_000"),
                          ("--num-requests", SR, "1,000"), ("--batch", E, "8 "), ("--rate", SR, "0x2"),
                          ("--rate", SR, "2req/s"), ("--num-requests", SR, "20.0"), ("--threads", WC, "-0"),
                          ("--top", E, "-0"), ("--top", E, "1e2")):
        a = list(base)
        if flag in a:
            a[a.index(flag) + 1] = v
        else:
            a += [flag, v]
        ok = (flag, v) in {("--context", "-0"), ("--seed", "-0")}
        c(f"rv_num{flag[1:]}_{v.strip().replace(' ', '_') or 'sp'}{'_sp' if v != v.strip() else ''}", a,
          "any" if ok else "bad", want=[] if ok else [flag])
    for n, extra in (("scatter_max", ["--scatter-max", "5"]), ("roofline_max", ["--roofline-max", "5"]),
                     ("set", ["--set", "sms=100"])):  # read by another input only: were silently ignored
        c(f"rv_report_sample_{n}", ["report", "--sample", "-o", "{T}/rs.html"] + extra, want=[extra[0]])
        c(f"rv_report_kernel_{n}", ["report", "--gpu", "h200", "--kernel", K, "-o", "{T}/rk.html"] + extra,
          "good" if n == "set" else "bad", want=[] if n == "set" else [extra[0]])
    for v in ("-0", "0", "-5"):
        c(f"rv_validate_e2e_max_error_{v}", ["validate", "--e2e", "--max-error", v], want=["--max-error"])
    c("rv_measured_neg0", ["diagnose", "--gpu", "h200", "--kernel", K, "--measured-us", "-0"], want=["--measured-us"])
    c("rv_max_mape_neg0", ["validate", "--max-mape", "-0"], want=["--max-mape"])
    for n, s in (("1e3GBps", "dram.bandwidth=1e3GB/s"), ("trailing_sp", "dram.bandwidth=4.8TB/s "),
                 ("comma_dec", "dram.bandwidth=4,8TB/s"), ("exp0", "dram.bandwidth=4.8e0TB/s"),
                 ("neg0_mhz", "clock.boost=-0MHz"), ("unit_only", "dram.bandwidth=TB/s"),
                 ("double_unit", "dram.bandwidth=4.8TB/sTB/s"), ("plus", "dram.bandwidth=+4.8TB/s"),
                 ("hex_sms", "sms=0X84"), ("sms_sp", "sms= 132"), ("size_neg0", "l2.size=-0MiB")):
        ok = n in ("1e3GBps", "exp0", "plus", "sms_sp", "trailing_sp")
        c(f"rv_set_{n}", P + ["--set", s], "good" if ok else "bad")
    for n, s in (("neg0", "ttft=-0s"), ("hex", "ttft=0x10s"), ("huge", "ttft=1e30s"), ("spaces", " ttft=2s"),
                 ("dup_same", "ttft=2s,ttft=2s"), ("empty_item", "ttft=2s,,tpot=50ms")):
        c(f"rv_slo_{n}", SR + ["--slo", s], "any" if n == "spaces" else "bad", want=["--slo"])
    for n, s in (("neg0", "gemm m=-0 n=64 k=64 dtype=bf16"), ("u_sep", "gemm m=6_4 n=64 k=64 dtype=bf16"),
                 ("ws_val", "gemm m=64\u00a0 n=64 k=64 dtype=bf16"), ("e_plus", "gemm m=1e+3 n=64 k=64 dtype=bf16")):
        c(f"rv_spec_{n}", ["predict", "--gpu", "h200", "--kernel", s], "any" if n == "e_plus" else "bad")


def add_encodings(c):
    """BOM, CRLF and non-UTF-8 bytes in every reader; zero-length and truncated gzip; symlink loops; folders."""
    prof = read("models/profiles/vllm.yaml")
    model = read("models/presets/llama-3-8b.json")
    static = {"static.yaml": read("models/profiles/hf-sdpa.yaml").replace(b"kv_cache: cat ", b"kv_cache: static #")}
    EH = ["e2e", "--gpu", "h200", "--model", "llama-3-8b", "--profile", "{T}/static.yaml", "--phase", "decode",
          "--context", "64"]
    c("rv_static_cache_memory", EH + ["--batch", "1", "--cache-len", "100000000"], "good", want=["DOES NOT FIT"],
      files=static)  # the cache's kernels were priced at 1e8 tokens, its memory at 64
    c("rv_static_cache_limit", EH + ["--batch", "64", "--cache-len", "100000000"], want=["--cache-len"], files=static)
    c("rv_static_cache_ok", EH + ["--batch", "1", "--cache-len", "4096"], "good", want=["fits"], files=static)
    # Every output token of a simulation is kept (gap + iteration): 1e7 requests exhausted memory after minutes.
    c("rv_sim_tokens_limit", S + ["--rate", "2", "--num-requests", "10000000"], want=["--num-requests"])
    c("rv_sim_tokens_limit_outlen", S + ["--rate", "2", "--num-requests", "20000", "--output-len", "1000"],
      want=["--output-len"])
    c("rv_cap_tokens_limit", WC + ["--num-requests", "10000000"], want=["--num-requests"])
    c("rv_sim_tokens_ok", S + ["--rate", "50", "--num-requests", "20000", "--output-len", "64", "--quiet"], "good")
    c("rv_profile_bom_crlf", E + ["--profile", "{T}/pb.yaml"], "good",
      files={"pb.yaml": b"\xef\xbb\xbf" + prof.replace(b"\n", b"\r\n")})
    c("rv_model_crlf", [x if x != "llama-3-8b" else "{T}/mc.json" for x in E], "good",
      files={"mc.json": model.replace(b"\n", b"\r\n")})
    c("rv_model_latin1", [x if x != "llama-3-8b" else "{T}/ml.json" for x in E],
      files={"ml.json": model.replace(b'"llama"', b'"ll\xe9ma"', 1)})
    c("rv_chrome_bom", ["trace", "import", "--chrome", "{T}/cb.json"], "good", files={"cb.json": b"\xef\xbb\xbf" + read(CHROME)})
    c("rv_calib_bom", ["calibrate", "{T}/calb.json", "--gpu", "h100-sxm"], "good",
      files={"calb.json": b"\xef\xbb\xbf" + read(CAL)})
    c("rv_req_jsonl_crlf", S + ["--requests", "{T}/rc.jsonl"], "good",
      files={"rc.jsonl": b'{"arrival_s": 0, "prompt_tokens": 10, "output_tokens": 5}\r\n'
                         b'{"arrival_s": 1, "prompt_tokens": 10, "output_tokens": 5}\r\n'})
    c("rv_req_jsonl_nan", S + ["--requests", "{T}/rn.jsonl"],
      files={"rn.jsonl": '{"arrival_s": NaN, "prompt_tokens": 10, "output_tokens": 5}\n'})
    c("rv_req_jsonl_bigint", S + ["--requests", "{T}/rb.jsonl"],
      files={"rb.jsonl": '{"arrival_s": 0, "prompt_tokens": 99999999999999999999999, "output_tokens": 5}\n'})
    c("rv_req_csv_bom_crlf", S + ["--requests", "{T}/rbc.csv"], "good",
      files={"rbc.csv": "\ufeffarrival_s,prompt_tokens,output_tokens\r\n0,10,10\r\n"})
    c("rv_req_csv_only_bom", S + ["--requests", "{T}/rob.csv"], files={"rob.csv": "\ufeff"})
    c("rv_req_csv_dup_hdr_case", S + ["--requests", "{T}/rdc.csv"],
      files={"rdc.csv": "arrival_s,prompt_tokens,output_tokens,Output_Tokens\n0,10,10,10\n"})
    c("rv_batch_bom_crlf", ["predict", "--gpu", "h200", "--batch", "{T}/bb.csv"], "good",
      files={"bb.csv": "\ufefffamily,m,n,k,dtype\r\ngemm,64,64,64,bf16\r\n"})
    c("rv_batch_dup_col", ["predict", "--gpu", "h200", "--batch", "{T}/bd.csv"],
      files={"bd.csv": "family,m,n,k,dtype,m\ngemm,64,64,64,bf16,128\n"})
    c("rv_batch_latin1", ["predict", "--gpu", "h200", "--batch", "{T}/bl.csv"],
      files={"bl.csv": b"family,m,n,k,dtype\ngemm,64,64,64,bf\xe916\n"})
    c("rv_lct_gz_empty", ["trace", "import", "--lct", "{T}/e.lct.gz", "--cases", "tests/data/trace/zero_dim.cases.csv",
                          "-o", "{T}/le.csv.gz"], files={"e.lct.gz": b""})
    c("rv_lct_gz_trunc", ["trace", "import", "--lct", "{T}/t.lct.gz", "--cases", "tests/data/trace/zero_dim.cases.csv",
                          "-o", "{T}/lt.csv.gz"], files={"t.lct.gz": read("traces/e2e/h200/graph_decode.lct.gz")[:500]})
    c("rv_summary_gz_empty_corpus", ["trace", "summary", "{T}/zc"], files={"zc/x.corpus.csv.gz": b""})
    c("rv_summary_gz_valid_empty", ["trace", "summary", "{T}/zv"], files={"zv/x.corpus.csv.gz": gzip.compress(b"")})
    c("rv_neusight_gz_trunc", ["trace", "import", "--from", "neusight", "{T}/nt.csv.gz", "-o", "{T}/ont"],
      files={"nt.csv.gz": gzip.compress(read(NS) * 3)[:60]})
    c("rv_validate_serving_devnull", ["validate", "--serving", "--traces", "/dev/null"], want=["directory"])
    c("rv_validate_serving_file", ["validate", "--serving", "--traces", REQ], want=["directory"])
    c("rv_tables_dir", ["tune", "--gpu", "h200", "--kernel", K, "--tables", "models"], want=["models", "directory"])
    c("rv_profile_dir", E + ["--profile", "models"], want=["models"])
    # Symlink loops, one per reader kind: a clean refusal naming the link.
    loop = {"la": "@LINK@lb", "lb": "@LINK@la"}
    for n, argv in (("gpu", ["predict", "--gpu", "{T}/la", "--kernel", K]), ("model", [x if x != "llama-3-8b" else "{T}/la" for x in E]),
                    ("profile", E + ["--profile", "{T}/la"]), ("replay", ["e2e", "--gpu", "h200", "--replay", "{T}/la"]),
                    ("requests", S + ["--requests", "{T}/la"]), ("batch", ["predict", "--gpu", "h200", "--batch", "{T}/la"]),
                    ("calibrate", ["calibrate", "{T}/la", "--gpu", "h100-sxm"]), ("chrome", ["trace", "import", "--chrome", "{T}/la"]),
                    ("tables", ["tune", "--gpu", "h200", "--kernel", K, "--tables", "{T}/la"]),
                    ("report_e2e", ["report", "--e2e", "{T}/la", "-o", "{T}/rl.html"]),
                    ("trace_out", E + ["--trace-out", "{T}/la"]), ("report_o", ["report", "--sample", "-o", "{T}/la"]),
                    ("summary", ["trace", "summary", "{T}/la"]), ("lens", SR + ["--prompt-len", "file:{T}/la"]),
                    ("neusight", ["trace", "import", "--from", "neusight", "{T}/la", "-o", "{T}/ol"])):
        c(f"rv_loop_{n}", argv, want=["la", "symbolic links"], files=loop)


def add_flags(c):
    """Flags repeated with different values, flags of other commands, --format on every command."""
    c("rv_rate_twice", WC + ["--rate", "3"], want=["--rate"])
    c("rv_requests_twice", S + ["--requests", REQ, "--requests", "tests/data/serving/requests.jsonl"], want=["--requests"])
    c("rv_replay_twice", ["e2e", "--gpu", "h200", "--replay", CHROME, "--replay", "{T}/ev3.json"], want=["--replay"],
      files={"ev3.json": '{"traceEvents": []}'})
    lct, cases = "traces/e2e/h200/graph_decode.lct.gz", "traces/e2e/h200/graph_decode.cases.csv"
    c("rv_cases_twice", ["trace", "import", "--lct", lct, "--cases", cases, "--cases", cases, "-o", "{T}/ct.csv.gz"],
      want=["--cases", "twice"])  # every case was imported twice
    c("rv_cases_twice_spelling", ["trace", "import", "--lct", lct, "--cases", cases, "--cases", "./" + cases, "-o",
                                  "{T}/ct2.csv.gz"], want=["--cases", "twice"])
    c("rv_lct_twice", ["trace", "import", "--lct", lct, "--lct", lct, "--cases", cases, "-o", "{T}/ct3.csv.gz"],
      want=["--lct", "twice"])
    c("rv_from_file_twice", ["trace", "import", "--from", "neusight", NS, NS, "-o", "{T}/ft"], want=["twice"])
    c("rv_o_and_out", ["trace", "import", "--from", "neusight", NS, "-o", "{T}/a1", "--out", "{T}/a2"], want=["-o"])
    for n, argv, flag in (("predict_rate", P + ["--rate", "2"], "--rate"), ("predict_traces", P + ["--traces", "traces"], "--traces"),
                          ("e2e_kernel", E + ["--kernel", K], "--kernel"), ("sim_replay", SR + ["--replay", CHROME], "--replay"),
                          ("predict_trace_out", P + ["--trace-out", "{T}/x.json"], "--trace-out"),
                                                    ("calib_set", ["calibrate", CAL, "--gpu", "h100-sxm", "--set", "sms=100"], "--set"),
                          ("gpus_model", ["gpus", "--model", "llama-3-8b"], "--model"),
                          ("summary_gpu", ["trace", "summary", "traces/h200", "--gpu", "h200"], "--gpu"),
                          ("paths_format", ["trace", "paths", "traces/h200", "--format", "csv"], "--format"),
                          ("validate_rate", ["validate", "--rate", "2"], "--rate"),
                          ("train_format", ["train", "--out", "{T}/tm", "--format", "json"], "--format"),
                          ("diag_batch", ["diagnose", "--gpu", "h200", "--batch", "examples/kernels.csv"], "--batch"),
                          ("tune_kernel_format_csv", ["tune", "--gpu", "h200", "--kernel",
                                                      "gemm m=4096 n=4096 k=4096 dtype=bf16", "--format", "xml"], "--format")):
        c(f"rv_wrong_{n}", argv, want=[flag])
    for n, argv in (("gpus_show", ["gpus", "show", "h200"]), ("replay", ["e2e", "--gpu", "h200", "--replay", CHROME]),
                    ("import_from", ["trace", "import", "--from", "neusight", NS, "-o", "{T}/ff"]),
                    ("calibrate", ["calibrate", CAL, "--gpu", "h100-sxm"]), ("tune_plan", ["tune", "--plan", "--gpu",
                                                                                        "h200", "--family", "gemm"]),
                    ("sim_per_request", SR + ["--per-request"]), ("whatif_rank", W)):
        for f in ("json", "csv", "table"):  # calibrate and tune --plan write one kind of file: a clean refusal is fine
            c(f"rv_fmt_{n}_{f}", argv + ["--format", f], "any" if n in ("calibrate", "tune_plan") else "good")
        c(f"rv_fmt_{n}_yaml", argv + ["--format", "yaml"], want=["--format"])


PY = ("import sys, loom\ntry:\n    r = {expr}\nexcept ValueError as e:\n    print('loom: ' + str(e), file=sys.stderr)\n"
      "    sys.exit(2)\nprint(repr(r))\n")


def add_python(c):
    """The Python module: bad input raises ValueError (exit 2 with its line here); never another exception."""
    row = "{'family': 'gemm', 'm': %s, 'n': 64, 'k': 64, 'dtype': 'bf16'}"
    for n, expr, exp in (
            ("batch_threads0", f"loom.predict_batch('h200', [{row % 64}], threads=0)", "bad"),
            ("batch_threads_neg", f"loom.predict_batch('h200', [{row % 64}], threads=-3)", "bad"),
            ("batch_threads_huge", f"loom.predict_batch('h200', [{row % 64}], threads=1000000)", "bad"),
            ("batch_m_huge_int", f"loom.predict_batch('h200', [{row % '10**30'}])", "bad"),
            ("batch_m_neg_huge_int", f"loom.predict_batch('h200', [{row % '-10**30'}])", "bad"),
            ("batch_m_str", "loom.predict_batch('h200', [" + row % "'64'" + "])", "good"),
            ("batch_m_inf", "loom.predict_batch('h200', [" + row % "float('inf')" + "])", "bad"),
            ("batch_rows_int", "loom.predict_batch('h200', 5)", "bad"),
            ("batch_rows_none", "loom.predict_batch('h200', None)", "bad"),
            ("batch_gpu_empty", f"loom.predict_batch('', [{row % 64}])", "bad"),
            ("batch_gpu_col_unknown", "loom.predict_batch('h200', [dict(" + row % 64 + ", gpu='h999')])", "bad"),
            ("predict_gpu_nul", "loom.predict('h200\\x00', '" + K + "')", "bad"),
            ("e2e_profile_dir", "loom.e2e('h200', 'llama-3-8b', 'decode', profile='models')", "bad"),
            ("e2e_kernel_model_bad", "loom.e2e('h200', 'llama-3-8b', 'decode', kernel_model='foo')", "bad"),
            ("e2e_mode_empty_ok", "loom.e2e('h200', 'llama-3-8b', 'decode', context=64)", "good"),
            ("tune_gpu_path", "loom.tune('gpus/h200.yaml', 'gemm m=4096 n=4096 k=4096 dtype=bf16')", "bad"),
            ("diagnose_model_bad", f"loom.diagnose('h200', '{K}', model='foo')", "bad")):
        c(f"rv_py_{n}", ["@python", PY.format(expr=expr)], exp,
          want=["catalogue key"] if "gpu_path" in n else ["kernel_model"] if "kernel_model" in n else
          ["rows[0] gpu"] if "gpu_col" in n else [])
