"""The cases of scripts/probe-bad-inputs.py: every subcommand, with bad or odd flags and files (written under a
scratch directory T before each run). expect='bad': must be refused (exit 2, one 'loom: ' line, naming `want`);
expect='any': an odd but valid input, accepted with sane output or refused cleanly."""
import json, os

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
K = "gemm m=64 n=64 k=64 dtype=bf16"


class Case:
    def __init__(self, name, argv, expect="bad", want=(), files=None, empty_ok=False):
        self.name, self.argv, self.expect, self.want = name, argv, expect, list(want)
        self.files, self.empty_ok = files or {}, empty_ok
        self.fmt = " ".join(x for x in argv if isinstance(x, str))
        self.fmt = "json" if "--format json" in self.fmt else ("csv" if "--format csv" in self.fmt else "")


def read(path):
    with open(os.path.join(REPO, path), "rb") as f:
        return f.read()


def build_cases(T):
    cs = []

    def c(name, argv, expect="bad", want=(), files=None, empty_ok=False):
        argv = [x.replace("{T}", T) if isinstance(x, str) else x.replace(b"{T}", T.encode()) for x in argv]
        cs.append(Case(name, argv, expect, want, files, empty_ok))

    P = ["predict", "--gpu", "h200", "--kernel", K]
    E = ["e2e", "--gpu", "h200", "--model", "llama-3-8b", "--phase", "decode", "--batch", "8", "--seq", "1",
         "--context", "1024"]
    S = ["simulate", "--gpu", "h200", "--model", "llama-3-8b"]
    SR = S + ["--rate", "2", "--num-requests", "20"]
    W = ["whatif", "--model", "llama-3-8b", "--batch", "8", "--input-len", "512", "--output-len", "64", "--gpus",
         "h200,h100-sxm"]
    WC = ["whatif", "--model", "llama-3-8b", "--gpus", "h200", "--rate", "2"]

    # --- global / argument parser ---------------------------------------------------------------------------------
    c("noargs", [])
    c("version_extra", ["--version", "extra"])
    c("unknown_cmd_bytes", [b"pr\xffdict"])
    c("empty_cmd", [""])
    c("predict_noflags", ["predict"])
    c("gpu_novalue", ["predict", "--kernel", K, "--gpu"], want=["--gpu"])
    c("gpu_empty", ["predict", "--gpu", "", "--kernel", K], want=["--gpu"])
    c("gpu_bytes", ["predict", "--gpu", b"h2\xff0", "--kernel", K])
    c("gpu_dup", ["predict", "--gpu", "h200,h200", "--kernel", K], "any")
    c("gpu_all_plus", ["predict", "--gpu", "all,h200", "--kernel", K])
    c("gpu_devnull", ["predict", "--gpu", "/dev/null", "--kernel", K])
    c("gpu_dir", ["predict", "--gpu", "tests", "--kernel", K])
    c("gpu_dir_slash", ["predict", "--gpu", "gpus/", "--kernel", K])
    c("gpu_missing_yaml", ["predict", "--gpu", "/nonexistent/x.yaml", "--kernel", K])
    c("flag_twice_kernel", ["predict", "--gpu", "h200", "--kernel", K, "--kernel", "gemm m=1 n=1 k=1 dtype=bf16"])
    c("flag_twice_format", P + ["--format", "json", "--format", "csv"])
    c("flag_eq_syntax", ["predict", "--gpu=h200", "--kernel", K], "any")
    c("flag_single_dash", ["predict", "-gpu", "h200", "--kernel", K])
    c("flag_double_dash_end", ["predict", "--gpu", "h200", "--kernel", K, "--"])
    c("flag_value_is_flag", ["predict", "--gpu", "--kernel", K])
    c("clock_bad", P + ["--clock", "turbo"], want=["--clock"])
    c("clock_empty", P + ["--clock", ""], want=["--clock"])
    for cmd in (P, ["diagnose", "--gpu", "h200", "--kernel", K], E, SR, W, WC, ["gpus"], ["gpus", "show", "h200"],
                ["tune", "--gpu", "h200", "--kernel", "gemm m=4096 n=4096 k=4096 dtype=bf16"],
                ["trace", "summary", "traces/h200"]):
        tag = cmd[0] + ("_" + cmd[1] if cmd[0] in ("gpus", "trace") and len(cmd) > 1 else "")
        if cmd is WC:
            tag = "whatif_cap"
        c(f"fmt_xml_{tag}", cmd + ["--format", "xml"], want=["--format"])
        c(f"fmt_empty_{tag}", cmd + ["--format", ""], want=["--format"])
        c(f"fmt_upper_{tag}", cmd + ["--format", "JSON"], "any")
        for f in ("json", "csv", "table"):
            c(f"fmt_{f}_{tag}", cmd + ["--format", f], "any")

    # --- kernel specs ---------------------------------------------------------------------------------------------
    specs = {
        "empty": "", "blank": "   ", "family_only": "gemm", "m0": "gemm m=0 n=64 k=64 dtype=bf16",
        "mneg": "gemm m=-1 n=64 k=64 dtype=bf16", "m_float": "gemm m=1.5 n=64 k=64 dtype=bf16",
        "m_exp": "gemm m=1e3 n=64 k=64 dtype=bf16", "m_hex": "gemm m=0x40 n=64 k=64 dtype=bf16",
        "m_huge": "gemm m=99999999999999999999 n=64 k=64 dtype=bf16", "m_nan": "gemm m=nan n=64 k=64 dtype=bf16",
        "m_inf": "gemm m=inf n=64 k=64 dtype=bf16", "m_big": "gemm m=4294967296 n=4294967296 k=64 dtype=bf16",
        "dup_key": "gemm m=64 m=128 n=64 k=64 dtype=bf16", "dup_dtype": "gemm m=64 n=64 k=64 dtype=bf16 dtype=fp16",
        "unknown_key": "gemm m=64 n=64 k=64 dtype=bf16 foo=1", "stray_word": K + " extra",
        "space_eq": "gemm m= 64 n=64 k=64 dtype=bf16", "empty_val": "gemm m= n=64 k=64 dtype=bf16",
        "no_eq": "gemm m n=64 k=64 dtype=bf16", "double_eq": "gemm m==64 n=64 k=64 dtype=bf16",
        "dtype_bad": "gemm m=64 n=64 k=64 dtype=bf17", "dtype_upper": "gemm m=64 n=64 k=64 dtype=BF16",
        "batch0": "gemm m=64 n=64 k=64 batch=0 dtype=bf16", "attn_heads0":
        "attention_prefill batch=1 heads=0 kv_heads=0 seq=128 head_dim=128 causal=1 dtype=bf16",
        "attn_kv_not_div": "attention_prefill batch=1 heads=32 kv_heads=5 seq=128 head_dim=128 causal=1 dtype=bf16",
        "attn_kv_gt": "attention_decode batch=1 heads=8 kv_heads=32 seq_kv=128 head_dim=128 dtype=bf16",
        "attn_causal2": "attention_prefill batch=1 heads=32 kv_heads=8 seq=128 head_dim=128 causal=2 dtype=bf16",
        "attn_seqkv_lt": "attention_prefill batch=1 heads=32 kv_heads=8 seq=128 seq_kv=64 head_dim=128 causal=1 "
        "dtype=bf16", "attn_hd_odd": "attention_decode batch=1 heads=8 kv_heads=8 seq_kv=128 head_dim=7 dtype=bf16",
        "attn_hd_huge": "attention_decode batch=1 heads=8 kv_heads=8 seq_kv=128 head_dim=100000 dtype=bf16",
        "moe_topk_gt": "moe tokens=64 experts=8 topk=9 hidden=4096 inter=14336 dtype=bf16",
        "moe_topk0": "moe tokens=64 experts=8 topk=0 hidden=4096 inter=14336 dtype=bf16",
        "moe_experts0": "moe tokens=64 experts=0 topk=0 hidden=4096 inter=14336 dtype=bf16",
        "moe_stage_bad": "moe tokens=64 experts=8 topk=2 hidden=4096 inter=14336 dtype=bf16 stage=w4",
        "rms_cols0": "rms_norm rows=64 cols=0 dtype=bf16", "rms_fp8": "rms_norm rows=64 cols=64 dtype=fp8",
        "elt_op_bad": "elementwise op=frob rows=64 cols=64 dtype=bf16",
        "elt_no_op": "elementwise rows=64 cols=64 dtype=bf16",
        "ar_gpus0": "all_reduce bytes=1024 gpus=0", "ar_gpus_huge": "all_reduce bytes=1024 gpus=1000",
        "ar_bytes0": "all_reduce bytes=0 gpus=2", "ar_bytes_neg": "all_reduce bytes=-5 gpus=2",
        "ar_dtype": "all_reduce bytes=1024 gpus=2 dtype=bf16", "config_bad": K + " config=999x1x1_s1_w1",
        "config_empty": K + " config=", "gemm_impl_bad": K + " impl=magic", "scales_bad":
        "gemm m=64 n=64 k=64 dtype=fp8 scales=whatever", "unicode": "gemm m=６４ n=64 k=64 dtype=bf16",
        "tab_sep": "gemm\tm=64\tn=64\tk=64\tdtype=bf16", "newline": "gemm m=64\nn=64 k=64 dtype=bf16",
        "rotary_heads0": "rotary tokens=64 heads=0 head_dim=128 dtype=bf16",
        "m_leading_plus": "gemm m=+64 n=64 k=64 dtype=bf16", "m_leading_zero": "gemm m=064 n=64 k=64 dtype=bf16",
    }
    ok_specs = {"space_eq", "tab_sep", "newline", "m_leading_plus", "m_leading_zero", "attn_hd_odd", "rms_fp8",
                "ar_bytes0", "dtype_upper", "m_exp", "attn_kv_not_div"}
    for k, s in specs.items():
        c(f"spec_{k}", ["predict", "--gpu", "h200", "--kernel", s], "any" if k in ok_specs else "bad")
    c("spec_bytes", ["predict", "--gpu", "h200", "--kernel", b"gemm m=6\xff n=64 k=64 dtype=bf16"])
    c("spec_nul_like", ["predict", "--gpu", "h200", "--kernel", "gemm m=64 n=64 k=64 dtype=bf16\x01"])
    c("spec_diagnose_m0", ["diagnose", "--gpu", "h200", "--kernel", specs["m0"]])
    c("spec_report_m0", ["report", "--gpu", "h200", "--kernel", specs["m0"], "-o", "{T}/r.html"])
    c("spec_tune_m0", ["tune", "--gpu", "h200", "--kernel", specs["m0"]])

    # --- diagnose --measured-us -------------------------------------------------------------------------------------
    D = ["diagnose", "--gpu", "h200", "--kernel", K]
    for v in ("0", "-1", "nan", "inf", "1e309", "abc", "5us", "", "0x10", "1e-30"):
        c(f"diag_measured_{v or 'empty'}", D + ["--measured-us", v], "any" if v in ("1e-30",) else "bad",
          want=["--measured-us"])
    c("diag_measured_on_predict", P + ["--measured-us", "5"], want=["--measured-us"])

    # --- --set overrides ----------------------------------------------------------------------------------------------
    sets = {
        "none": "", "eq_only": "=", "no_value": "dram.bandwidth=", "no_key": "=4TB/s", "no_eq": "dram.bandwidth",
        "ghz_bw": "dram.bandwidth=5GHz", "neg_bw": "dram.bandwidth=-1TB/s", "nan_bw": "dram.bandwidth=nanTB/s",
        "inf_bw": "dram.bandwidth=infTB/s", "zero_bw": "dram.bandwidth=0TB/s", "huge_bw": "dram.bandwidth=1e309TB/s",
        "unitless_bw": "dram.bandwidth=4.8", "space_unit": "dram.bandwidth=4.8 TB/s", "comma": "dram.bandwidth=4.8TB/s,1",
        "sms0": "sms=0", "sms_frac": "sms=1.5", "sms_huge": "sms=100000", "sms_neg": "sms=-4", "sms_hex": "sms=0x84",
        "name": "name=foo", "extends": "extends=h100-sxm", "boost0": "clock.boost=0MHz",
        "boost_huge": "clock.boost=1e9MHz", "tensor0": "tensor.bf16=0FLOP/clk", "tensor_unknown": "tensor.fp9=1",
        "price_neg": "price=-1USD/h", "price_nan": "price=nanUSD/h", "gpn0": "interconnect.gpus_per_node=0",
        "gpn_frac": "interconnect.gpus_per_node=2.5", "l2_0": "l2.size=0MiB", "regs0": "sm_limits.registers=0",
        "maxthr0": "sm_limits.max_threads=0", "tpb0": "sm_limits.max_threads_per_block=0",
        "launch_neg": "launch_overhead=-1us", "tdp0": "tdp=0W", "dram_type": "dram.type=foo",
        "arch_bad": "architecture=pascalx", "cc_bad": "compute_capability=abc", "nested_deep": "dram.size.x=1",
        "key_bytes": "dr\u00e4m.size=1GiB", "upper_key": "DRAM.bandwidth=4TB/s", "dot_trailing": "dram.=4TB/s",
        "group_whole": "dram=4TB/s", "onset_neg": "sustained_load.onset=-1s", "smem_bw0": "smem_bandwidth=0B/clk",
        "nvlink0": "interconnect.nvlink=0GB/s", "l2_per_sm_huge": "l2.per_sm=1e12B/clk",
        "fp32_0": "fp32=0FLOP/clk", "sfu0": "sfu=0ops/clk", "l1_0": "l1=0KiB",
    }
    ok_sets = {"sms_huge", "space_unit", "name", "nvlink0", "dram_type"}
    for k, s in sets.items():
        c(f"set_{k}", P + ["--set", s], "any" if k in ok_sets else "bad", want=["--set"] if k in (
            "none", "eq_only", "no_eq", "no_key") else [])
    c("set_e2e_sms0", E + ["--set", "sms=0"])
    c("set_sim_gpn0", SR + ["--set", "interconnect.gpus_per_node=0"])
    c("set_twice_same", P + ["--set", "sms=100", "--set", "sms=120"], "any")
    c("set_gpu_all", ["predict", "--gpu", "all", "--kernel", K, "--set", "dram.bandwidth=0TB/s"])
    c("set_on_gpus_cmd", ["gpus", "--set", "sms=1"], "any")
    c("set_whatif_prefix_unknown", W + ["--set", "h999:sms=100"])
    c("set_whatif_prefix_empty", W + ["--set", ":sms=100"])
    c("set_whatif_bad_val", W + ["--set", "h200:sms=0"])
    c("set_whatif_noprefix", W + ["--set", "sms=100"], "any")

    add_gpu_yaml(c)
    add_batch_csv(c)
    add_model_configs(c, E)
    add_e2e_flags(c, E)
    add_profiles(c, E, SR)
    add_serving(c, S, SR)
    add_whatif(c, W, WC)
    add_report_trace(c)
    add_misc(c)
    add_modes(c, P, E, SR, W, WC)
    return cs


S_REQ = ["simulate", "--gpu", "h200", "--model", "llama-3-8b", "--requests", "tests/data/serving/requests.csv"]


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


def add_gpu_yaml(c):
    base = read("gpus/h100-sxm.yaml").decode()
    G = lambda f: ["predict", "--gpu", "{T}/" + f, "--kernel", K]  # noqa: E731
    small = "extends: h100-sxm\nname: probe\n"
    ys = {
        "empty.yaml": "", "comments.yaml": "# nothing\n", "list.yaml": "- a\n- b\n", "scalar.yaml": "h100\n",
        "nul.yaml": "name: a\x00b\nextends: h100-sxm\n", "bytes.yaml": b"extends: h100-sxm\nname: \xff\xfe\n",
        "self.yaml": "extends: {T}/self.yaml\nname: x\n", "sms0.yaml": small + "sms: 0\n",
        "smsneg.yaml": small + "sms: -1\n", "smsnan.yaml": small + "sms: .nan\n", "smsinf.yaml": small + "sms: .inf\n",
        "smshex.yaml": small + "sms: 0x84\n", "smsexp.yaml": small + "sms: 1e3\n", "smsnull.yaml": small + "sms:\n",
        "smstilde.yaml": small + "sms: ~\n", "smslist.yaml": small + "sms: [1, 2]\n", "smsmap.yaml": small + "sms: {a: 1}\n",
        "smsquoted.yaml": small + 'sms: "132"\n', "smsfrac.yaml": small + "sms: 132.5\n",
        "smsunit.yaml": small + "sms: 132 SMs\n", "bw_ghz.yaml": small + "dram:\n  bandwidth: 5 GHz\n",
        "bw_zero.yaml": small + "dram:\n  bandwidth: 0 TB/s\n", "bw_nan.yaml": small + "dram:\n  bandwidth: nan TB/s\n",
        "bw_plain.yaml": small + "dram:\n  bandwidth: 4.8\n", "unknown.yaml": small + "colour: green\n",
        "ext_missing.yaml": "extends: h999\nname: x\n", "ext_dir.yaml": "extends: gpus\nname: x\n",
        "ext_devnull.yaml": "extends: /dev/null\nname: x\n", "clock_scalar.yaml": small + "clock: 1980 MHz\n",
        "clock_huge.yaml": small + "clock:\n  boost: 1e30 MHz\n", "tensor_empty.yaml": small + "tensor: {}\n",
        "tensor0.yaml": small + "tensor:\n  bf16: 0 FLOP/clk\n", "gpn0.yaml": small + "interconnect:\n  gpus_per_node: 0\n",
        "price_neg.yaml": small + "price: -3 USD/h\n", "arch.yaml": small + "architecture: kepler9\n",
        "cc.yaml": small + "compute_capability: 900\n", "dup.yaml": small + "sms: 100\nsms: 120\n",
        "tabs.yaml": small + "dram:\n\tbandwidth: 4 TB/s\n", "alias.yaml": small + "a: &x 1\nsms: *x\n",
        "l2_gt_dram.yaml": small + "l2:\n  size: 1 TiB\n", "regs0.yaml": small + "sm_limits:\n  registers: 0\n",
        "full_nosms.yaml": "\n".join(l for l in base.split("\n") if not l.startswith("sms:")),
        "full_noname.yaml": "\n".join(l for l in base.split("\n") if not l.startswith("name:")),
        "full_nodram.yaml": base.split("dram:")[0], "bom.yaml": "\ufeff" + small,
        "crlf.yaml": small.replace("\n", "\r\n"), "ext_list.yaml": "extends: [h100-sxm, h200]\nname: x\n",
        "ext_empty.yaml": "extends: ''\nname: x\n", "name_long.yaml": small.replace("probe", "x" * 100000),
        "deep.yaml": small + "dram:\n  bandwidth:\n    x: 1\n", "launch_neg.yaml": small + "launch_overhead: -4 us\n",
        "onset_nan.yaml": small + "sustained_load:\n  onset: .nan s\n", "doc_end.yaml": small + "...\n",
        "only_name.yaml": "name: x\n",
    }
    files = {}
    for n, v in ys.items():
        files[n] = v.replace("{T}", "@T@") if isinstance(v, str) else v
    ok = {"smsquoted.yaml", "crlf.yaml", "bom.yaml", "doc_end.yaml", "alias.yaml", "tensor_empty.yaml", "name_long.yaml",
          "smsexp.yaml"}
    ok.discard("comments.yaml")
    for n in ys:
        c(f"yaml_{n[:-5]}", G(n), "any" if n in ok else "bad", files={n: files[n]})
    # cycles and chains across files
    c("yaml_cycle2", G("cyc_a.yaml"), files={"cyc_a.yaml": "extends: {T}/cyc_b.yaml\nname: a\n".replace("{T}", "@T@"),
                                             "cyc_b.yaml": "extends: {T}/cyc_a.yaml\nname: b\n".replace("{T}", "@T@")})
    chain = {f"ch{i}.yaml": f"extends: @T@/ch{i + 1}.yaml\nname: c{i}\n" for i in range(60)}
    chain["ch60.yaml"] = "extends: h100-sxm\nname: c60\n"
    c("yaml_chain60", G("ch0.yaml"), files=chain)
    c("yaml_gpus_show_bytes", ["gpus", "show", "{T}/bytes.yaml"], files={"bytes.yaml": ys["bytes.yaml"]})
    c("yaml_gpus_show_json_bytes", ["gpus", "show", "{T}/bytes.yaml", "--format", "json"],
      files={"bytes.yaml": ys["bytes.yaml"]})
    c("yaml_e2e_gpn0", ["e2e", "--gpu", "{T}/gpn0.yaml", "--model", "llama-3-8b", "--phase", "decode", "--batch", "1",
                        "--seq", "1", "--context", "64"], files={"gpn0.yaml": files["gpn0.yaml"]})
    c("yaml_file_bytes_name", ["predict", "--gpu", b"{T}/\xff.yaml", "--kernel", K])


def add_batch_csv(c):
    B = lambda f: ["predict", "--gpu", "h200", "--batch", "{T}/" + f]  # noqa: E731
    h = "family,m,n,k,dtype\n"
    bs = {
        "empty.csv": "", "header_only.csv": h, "nan.csv": h + "gemm,nan,64,64,bf16\n", "inf.csv": h + "gemm,inf,64,64,bf16\n",
        "hex.csv": h + "gemm,0x40,64,64,bf16\n", "huge.csv": h + "gemm,1e30,64,64,bf16\n",
        "neg.csv": h + "gemm,-64,64,64,bf16\n", "nofam.csv": "m,n,k,dtype\n64,64,64,bf16\n",
        "famunk.csv": h + "gemx,64,64,64,bf16\n", "unkcol.csv": "family,m,n,k,dtype,zzz\ngemm,64,64,64,bf16,1\n",
        "emptycell.csv": h + "gemm,,64,64,bf16\n", "toomany.csv": h + "gemm,64,64,64,bf16,7\n",
        "toofew.csv": h + "gemm,64,64\n", "quoted.csv": h + '"gemm","64","64","64","bf16"\n',
        "crlf.csv": (h + "gemm,64,64,64,bf16\n").replace("\n", "\r\n"), "blank.csv": h + "gemm,64,64,64,bf16\n\n\n",
        "bytes.csv": (h + "gemm,64,64,64,bf16\n").encode() + b"gemm,6\xff,64,64,bf16\n",
        "nul.csv": h + "gemm,64,64,64,bf\x0016\n", "long.csv": h + "gemm," + "9" * 100000 + ",64,64,bf16\n",
        "spaces.csv": h + "gemm, 64 ,64,64,bf16\n", "frac.csv": h + "gemm,64.5,64,64,bf16\n",
        "dtype_bad.csv": h + "gemm,64,64,64,bf99\n", "semicolon.csv": "family;m;n;k;dtype\ngemm;64;64;64;bf16\n",
        "unterminated.csv": h + 'gemm,"64,64,64,bf16\n', "comment.csv": "# c\n" + h + "gemm,64,64,64,bf16\n",
        "hdr_blank.csv": "\n" + h + "gemm,64,64,64,bf16\n", "hdr_empty_col.csv": "family,m,,n,k,dtype\ngemm,64,,64,64,bf16\n",
        "mixed_fam.csv": "family,m,n,k,dtype,rows,cols\ngemm,64,64,64,bf16,5,5\n",
    }
    ok = {"crlf.csv", "blank.csv", "quoted.csv", "spaces.csv", "comment.csv"}
    for n, v in bs.items():
        c(f"batch_{n[:-4]}", B(n), "any" if n in ok else "bad", files={n: v})
    c("batch_devnull", ["predict", "--gpu", "h200", "--batch", "/dev/null"])
    c("batch_json", ["predict", "--gpu", "h200", "--batch", "{T}/ok.csv", "--format", "json"], "any",
      files={"ok.csv": h + "gemm,64,64,64,bf16\n"})
    c("batch_and_kernel", ["predict", "--gpu", "h200", "--batch", "{T}/ok.csv", "--kernel", K],
      files={"ok.csv": h + "gemm,64,64,64,bf16\n"})
    c("batch_threads0", ["predict", "--gpu", "h200", "--batch", "{T}/ok.csv", "--threads", "0"],
      files={"ok.csv": h + "gemm,64,64,64,bf16\n"})
    c("batch_gpu_all", ["predict", "--gpu", "all", "--batch", "{T}/ok.csv", "--format", "csv"], "any",
      files={"ok.csv": h + "gemm,64,64,64,bf16\n"})


def add_model_configs(c, E):
    base = json.loads(read("models/presets/llama-3-8b.json"))
    moe = json.loads(read("models/presets/qwen3-30b-a3b.json"))

    def mod(d, **kw):
        d = dict(d)
        for k, v in kw.items():
            if v is None:
                d.pop(k, None)
            else:
                d[k] = v
        return json.dumps(d)
    ms = {
        "empty": "", "obj": "{}", "arr": "[]", "null": "null", "heads0": mod(base, num_attention_heads=0),
        "heads_nodiv": mod(base, num_attention_heads=31), "kv_nodiv": mod(base, num_key_value_heads=5),
        "kv_gt": mod(base, num_key_value_heads=64), "kv0": mod(base, num_key_value_heads=0),
        "layers0": mod(base, num_hidden_layers=0), "layers_huge": mod(base, num_hidden_layers=1000000000),
        "hidden0": mod(base, hidden_size=0), "vocab0": mod(base, vocab_size=0), "inter0": mod(base, intermediate_size=0),
        "hidden_neg": mod(base, hidden_size=-4096), "hidden_frac": mod(base, hidden_size=4096.5),
        "hidden_str": mod(base, hidden_size="4096"), "hidden_bool": mod(base, hidden_size=True),
        "nan_literal": json.dumps(base).replace("4096", "NaN", 1), "big_num": json.dumps(base).replace("4096", "1e999", 1),
        "head_dim0": mod(base, head_dim=0), "head_dim_odd": mod(base, head_dim=127),
        "experts0": mod(moe, num_experts=0), "topk_gt": mod(moe, num_experts_per_tok=200),
        "topk0": mod(moe, num_experts_per_tok=0), "moe_inter0": mod(moe, moe_intermediate_size=0),
        "type_unknown": mod(base, model_type="frobnicator"), "no_type": mod(base, model_type=None),
        "dtype_f64": mod(base, torch_dtype="float64"), "dtype_unknown": mod(base, torch_dtype="bogus"),
        "bom": "\ufeff" + json.dumps(base), "trailing": json.dumps(base) + "garbage",
        "dupkey": json.dumps(base)[:-1] + ', "hidden_size": 8192}', "tie_str": mod(base, tie_word_embeddings="yes"),
        "bytes": json.dumps(base).encode().replace(b'"llama"', b'"ll\xffma"'), "truncated": json.dumps(base)[:100],
        "vocab_huge": mod(base, vocab_size=10 ** 12), "inter_huge": mod(base, intermediate_size=10 ** 12),
        "mlp_only_bad": mod(moe, mlp_only_layers=[999]), "sparse_step0": mod(moe, decoder_sparse_step=0),
        "kv_null": mod(base, num_key_value_heads=None), "heads_huge": mod(base, num_attention_heads=2 ** 40),
        "hidden_huge_div": mod(base, hidden_size=2 ** 40, num_attention_heads=32),
    }
    ok = {"kv_null", "bom", "no_type", "head_dim_odd", "tie_str"}
    for n, v in ms.items():
        argv = [x if x != "llama-3-8b" else "{T}/m_" + n + ".json" for x in E]
        c(f"model_{n}", argv, "any" if n in ok else "bad", files={f"m_{n}.json": v})
    c("model_dir", [x if x != "llama-3-8b" else "models" for x in E])
    c("model_devnull", [x if x != "llama-3-8b" else "/dev/null" for x in E])
    c("model_bytes_name", [x if x != "llama-3-8b" else b"ll\xffma" for x in E])
    c("model_sim_heads_nodiv", ["simulate", "--gpu", "h200", "--model", "{T}/m_heads_nodiv.json", "--rate", "1",
                                "--num-requests", "5"], files={"m_heads_nodiv.json": ms["heads_nodiv"]})
    c("model_whatif_kv_nodiv", ["whatif", "--model", "{T}/m_kv_nodiv.json", "--batch", "1", "--input-len", "8",
                                "--output-len", "8", "--gpus", "h200"], files={"m_kv_nodiv.json": ms["kv_nodiv"]})


def add_e2e_flags(c, E):
    def rep(flag, val):
        a = list(E)
        if flag in a:
            a[a.index(flag) + 1] = val
        else:
            a += [flag, val]
        return a
    for flag, vals in {"--batch": ["0", "-1", "1e12", "1.5", "abc", "", "99999999999999999999"],
                       "--seq": ["0", "-1", "2", "1e9"], "--context": ["-1", "0", "1e12", "nan"],
                       "--tp": ["0", "3", "16", "-1", "1,2", "5"], "--phase": ["foo", "", "Decode"],
                       "--cache-len": ["0", "-1", "10"], "--mode": ["foo", "megakernel"],
                       "--profile": ["nosuch", "/dev/null", "models", "{T}/nope.yaml"],
                       "--kernel-model": ["foo", ""], "--trace-out": ["/dev/full", "models", "/nonexistent/x.json"],
                       "--clock": ["sustained", "xx"]}.items():
        for v in vals:
            ok = (flag, v) in {("--mode", "megakernel"), ("--clock", "sustained"), ("--seq", "2"), ("--context", "0")}
            c(f"e2e{flag[1:]}_{v.replace('/', '_') or 'empty'}", rep(flag, v), "any" if ok else "bad",
              want=[flag] if flag in ("--batch", "--tp", "--phase", "--mode", "--kernel-model") else [])
    c("e2e_prefill_context", ["e2e", "--gpu", "h200", "--model", "llama-3-8b", "--phase", "prefill", "--batch", "1",
                              "--seq", "128", "--context", "64"], "any")
    c("e2e_rate_flag", E + ["--rate", "5"], want=["--rate"])
    c("e2e_requests_flag", E + ["--requests", "tests/data/serving/requests.csv"], want=["--requests"])
    c("e2e_gpu_all", [x if x != "h200" else "all" for x in E])
    c("e2e_gpu_two", [x if x != "h200" else "h200,h100-sxm" for x in E])
    c("e2e_seq_ctx_huge", ["e2e", "--gpu", "h200", "--model", "llama-3-8b", "--phase", "decode", "--batch", "1",
                           "--seq", "1", "--context", "100000000"], "any")  # reported as DOES NOT FIT
    c("e2e_tp8_t4", ["e2e", "--gpu", "t4", "--model", "llama-3-8b", "--phase", "decode", "--batch", "1", "--seq", "1",
                     "--context", "64", "--tp", "8"])


def add_profiles(c, E, SR):
    base = read("models/profiles/vllm.yaml").decode()
    ps = {
        "empty": "", "unknown": base + "colour: red\n", "qkv_bad": base.replace("qkv: fused", "qkv: maybe"),
        "gap_neg": base.replace("graph_gap_us: 1.2", "graph_gap_us: -1"),
        "gap_nan": base.replace("graph_gap_us: 1.2", "graph_gap_us: .nan"),
        "memu0": base.replace("memory_utilization: 0.9", "memory_utilization: 0"),
        "memu15": base.replace("memory_utilization: 0.9", "memory_utilization: 1.5"),
        "seqs0": base.replace("max_num_seqs: 256", "max_num_seqs: 0"),
        "block0": base.replace("block_size: 16", "block_size: 0"),
        "block_huge": base.replace("block_size: 16", "block_size: 100000000"),
        "mnbt0": base.replace("max_num_batched_tokens: 8192", "max_num_batched_tokens: 0"),
        "graphs_empty": base.replace("cuda_graph_sizes: [1, 2, 4,", "cuda_graph_sizes: [] #"),
        "graphs_zero": base.replace("cuda_graph_sizes: [1, 2,", "cuda_graph_sizes: [0, 2,"),
        "graphs_neg": base.replace("cuda_graph_sizes: [1, 2,", "cuda_graph_sizes: [-1, 2,"),
        "graphs_unsorted": base.replace("cuda_graph_sizes: [1, 2,", "cuda_graph_sizes: [2, 1,"),
        "policy_bad": base.replace("policy: mixed", "policy: yolo"),
        "decode_mode_bad": base.replace("decode_mode: graph", "decode_mode: warp"),
        "car_neg": base.replace("custom_all_reduce_max_bytes: 8388608", "custom_all_reduce_max_bytes: -1"),
        "host_neg": base.replace("host_overhead_us: 0", "host_overhead_us: -5"),
        "step_neg": base.replace("step_overhead_us: 0", "step_overhead_us: -5"),
        "bytes": base.encode().replace(b"vLLM: fused", b"vLLM\xff fused"), "list": "- a\n",
        "sched_scalar": base.split("scheduler:")[0] + "scheduler: 5\n",
    }
    for n, v in ps.items():
        c(f"profile_{n}", E + ["--profile", "{T}/p_" + n + ".yaml"], files={f"p_{n}.yaml": v})
        if n in ("seqs0", "block0", "mnbt0", "graphs_empty", "graphs_unsorted", "policy_bad", "block_huge", "step_neg"):
            c(f"profile_sim_{n}", SR + ["--profile", "{T}/p_" + n + ".yaml"], "any" if n == "graphs_unsorted" else "bad",
              files={f"p_{n}.yaml": v})
    c("profile_sim_hf_eager", SR + ["--profile", "hf-eager"], "any")


def add_serving(c, S, SR):
    def R(n):
        return S + ["--requests", "{T}/" + n]
    h = "arrival_s,prompt_tokens,output_tokens\n"
    rs = {
        "empty.csv": "", "hdr.csv": h, "missing_col.csv": "arrival_s,prompt_tokens\n0,10\n",
        "neg_arrival.csv": h + "-1,10,10\n", "unsorted.csv": h + "1,10,10\n0,10,10\n", "zero_prompt.csv": h + "0,0,10\n",
        "zero_out.csv": h + "0,10,0\n", "huge_prompt.csv": h + "0,1000000000000,10\n", "huge_out.csv": h + "0,10,1e12\n",
        "nan_arrival.csv": h + "nan,10,10\n", "inf_arrival.csv": h + "inf,10,10\n",
        "cached_gt.csv": "arrival_s,prompt_tokens,output_tokens,cached_prefix_tokens\n0,10,10,20\n",
        "cached_neg.csv": "arrival_s,prompt_tokens,output_tokens,cached_prefix_tokens\n0,10,10,-1\n",
        "unk_col.csv": "arrival_s,prompt_tokens,output_tokens,zzz\n0,10,10,1\n",
        "dup_col.csv": "arrival_s,prompt_tokens,output_tokens,output_tokens\n0,10,10,10\n",
        "bytes.csv": (h + "0,10,10\n").encode() + b"0.1,1\xff,10\n", "crlf.csv": (h + "0,10,10\n").replace("\n", "\r\n"),
        "blank.csv": h + "0,10,10\n\n\n", "frac_tokens.csv": h + "0,10.5,10\n", "hex.csv": h + "0,0x10,10\n",
        "huge_arrival.csv": h + "1e300,10,10\n", "toofew.csv": h + "0,10\n", "toomany.csv": h + "0,10,10,5\n",
        "e.jsonl": "", "blank.jsonl": '{"arrival_s": 0, "prompt_tokens": 10, "output_tokens": 5}\n\n',
        "malformed.jsonl": '{"arrival_s": 0, "prompt_tokens": 10,\n', "missing.jsonl": '{"arrival_s": 0}\n',
        "extra.jsonl": '{"arrival_s": 0, "prompt_tokens": 10, "output_tokens": 5, "zzz": 1}\n',
        "strnum.jsonl": '{"arrival_s": "0", "prompt_tokens": 10, "output_tokens": 5}\n', "arr.jsonl": "[1,2,3]\n",
        "null.jsonl": '{"arrival_s": null, "prompt_tokens": 10, "output_tokens": 5}\n',
        "frac.jsonl": '{"arrival_s": 0, "prompt_tokens": 10.5, "output_tokens": 5}\n',
        "neg.jsonl": '{"arrival_s": 0, "prompt_tokens": -10, "output_tokens": 5}\n',
        "big.jsonl": '{"arrival_s": 0, "prompt_tokens": 1e400, "output_tokens": 5}\n',
        "dupkey.jsonl": '{"arrival_s": 0, "prompt_tokens": 10, "prompt_tokens": 20, "output_tokens": 5}\n',
        "two_objs.jsonl": '{"arrival_s": 0, "prompt_tokens": 10, "output_tokens": 5} {"x": 1}\n',
        "reqs.txt": h + "0,10,10\n", "reqs.json": '[{"arrival_s": 0, "prompt_tokens": 10, "output_tokens": 5}]',
    }
    ok = {"crlf.csv", "blank.csv", "blank.jsonl", "unsorted.csv", "reqs.txt"}
    for n, v in rs.items():
        c(f"req_{n.replace('.', '_')}", R(n), "any" if n in ok else "bad", files={n: v})
    c("req_devnull", S + ["--requests", "/dev/null"])
    c("req_dir", S + ["--requests", "tests"])
    c("req_missing", S + ["--requests", "/nonexistent.csv"])
    flags = {"--rate": ["-1", "inf", "1e308", "0.0000001", "1e-300"], "--num-requests": ["0", "-1", "1e12", "1.5",
             "100000000000"], "--arrivals": ["gamma:cv=0", "gamma:cv=-1", "gamma:cv=nan", "gamma", "poisson:x", "gamma:cv=",
             "uniform", "gamma:cv=1e308", ""], "--prompt-len": ["0", "-5", "uniform:5:1", "uniform:0:0", "lognormal:0:1",
             "lognormal:100:-1", "lognormal:100:100", "file:/nonexistent", "file:/dev/null", "uniform:1", "uniform:a:b",
             "lognormal:100", "file:", "1e12", "normal:1:2"], "--output-len": ["0", "uniform:1:0", "-1"],
             "--seed": ["-1", "1e30", "abc", "18446744073709551616", "1.5"], "--replicas": ["0", "-1", "1000000000", "2.5"],
             "--pp": ["0", "3", "64", "-1"], "--tp": ["0", "3", "16", "2,4"], "--router": ["foo", ""],
             "--slo": ["ttft=0", "ttft=-1s", "ttft=nan", "tpot=5parsecs", "foo=1s", "ttft", "", "ttft=1s,ttft=2s",
                       "ttft=1e309s", "ttft=2s,"], "--trace-out": ["/dev/full", "models", "/nonexistent/t.json"],
             "--profile": ["hf-eager", "nosuch"], "--clock": ["auto", "bad"]}
    ok_f = {("--rate", "0.0000001"), ("--pp", "64"), ("--pp", "3"), ("--clock", "auto"), ("--profile", "hf-eager"),
            ("--arrivals", "gamma:cv=1e308")}
    for flag, vals in flags.items():
        for v in vals:
            name = f"sim{flag[1:]}_{v.replace('/', '_').replace(':', '_') or 'empty'}"
            c(name, SR + [flag, v], "any" if (flag, v) in ok_f else "bad",
              want=[flag] if flag not in ("--trace-out", "--prompt-len", "--profile") else [])
    c("sim_pertreq_csv", SR + ["--per-request", "--format", "csv"], "any")
    c("sim_pertreq_json", SR + ["--per-request", "--format", "json"], "any")
    c("sim_batch_flag", SR + ["--batch", "8"], want=["--batch"])
    c("sim_kernel_flag", SR + ["--kernel", K], want=["--kernel"])
    c("sim_prompt_file_empty", SR + ["--prompt-len", "file:{T}/empty_lens.txt"], files={"empty_lens.txt": ""})
    c("sim_prompt_file_bad", SR + ["--prompt-len", "file:{T}/bad_lens.txt"], files={"bad_lens.txt": "10\nabc\n-5\n"})
    c("sim_prompt_file_zero", SR + ["--prompt-len", "file:{T}/z_lens.txt"], files={"z_lens.txt": "0\n0\n"})
    c("sim_gpu_all", ["simulate", "--gpu", "all", "--model", "llama-3-8b", "--rate", "1"])
    c("sim_replicas_tp_exceed", SR + ["--tp", "8", "--pp", "2"], "any")
    c("sim_seed_twice", SR + ["--seed", "1", "--seed", "2"])


def add_whatif(c, W, WC):
    def rep(a, flag, val):
        a = list(a)
        a[a.index(flag) + 1] = val
        return a
    for flag, vals in {"--batch": ["0", "-1", "1e12"], "--input-len": ["0", "-1", "1e12"], "--output-len": ["0", "-5"],
                       "--gpus": ["", "h999", "h200,", ",", "all,all"], "--model": ["", "nosuch", "models"]}.items():
        for v in vals:
            c(f"whatif{flag[1:]}_{v or 'empty'}", rep(W, flag, v), want=[flag] if flag in ("--batch", "--gpus") else [])
    for v in ("0", "3", "1,1", "1,0", "-2", "16"):
        c(f"whatif_tp_{v}", W + ["--tp", v], "any" if v == "1,1" else "bad")
    for flag, vals in {"--rate": ["0", "-1", "nan", "1e308"], "--slo": ["ttft=0", "bad"], "--pp": ["0", "3"],
                       "--tp": ["0", "5"], "--requests": ["/nonexistent.csv", "/dev/null"]}.items():
        for v in vals:
            c(f"whatifcap{flag[1:]}_{v.replace('/', '_')}", WC + [flag, v], "any" if v == "1e308" or (flag, v) == ("--pp", "3") else "bad")
    c("whatif_gpu_flag", W + ["--gpu", "h200"])
    c("whatif_both_modes", W + ["--rate", "2"])


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
    c("import_lct_no_cases", ["trace", "import", "--lct", "traces/tune/h200/moe-prefill.lct.gz", "-o", "{T}/o.csv.gz"])
    c("import_cases_no_lct", ["trace", "import", "--cases", "tests/data/trace/zero_dim.cases.csv", "-o",
                              "{T}/o.csv.gz"])
    c("import_no_o", ["trace", "import", "--lct", "traces/tune/h200/moe-prefill.lct.gz", "--cases",
                      "tests/data/trace/zero_dim.cases.csv"])
    c("import_lct_junk", ["trace", "import", "--lct", "{T}/j.lct", "--cases", "tests/data/trace/zero_dim.cases.csv",
                          "-o", "{T}/o.csv.gz"], files={"j.lct": b"junk"})
    c("import_cases_empty", ["trace", "import", "--lct", "traces/tune/h200/moe-prefill.lct.gz", "--cases",
                             "{T}/e.cases.csv", "-o", "{T}/o.csv.gz"], files={"e.cases.csv": ""})
    c("import_from_bad", ["trace", "import", "--from", "nope", "tests/data/public/neusight_ok.csv"])
    c("import_from_empty_file", ["trace", "import", "--from", "neusight", "{T}/e.csv", "-o", "{T}/od"],
      files={"e.csv": ""})
    c("paths_missing", ["trace", "paths", "/nonexistent"])
    c("paths_o_full", ["trace", "paths", "{T}/emptydir2", "-o", "/dev/full"], files={"emptydir2/.keep": ""})
    c("fitcoll_missing", ["trace", "fit-collectives", "--traces", "/nonexistent"])


def add_misc(c):
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
        c(f"summary_lct_fmt_{f}", ["trace", "summary", "traces/tune/h200/moe-prefill.lct.gz", "--format", f],
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
