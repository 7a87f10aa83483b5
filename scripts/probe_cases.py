"""The cases of scripts/probe-bad-inputs.py: every subcommand, with bad or odd flags and files (written under a
scratch directory T before each run). expect='bad': must be refused (exit 2, one 'loom: ' line, naming `want`);
expect='any': an odd but valid input, accepted with sane output or refused cleanly; expect='good': a valid input that
must be accepted with sane output."""
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

    from probe_cases_serving import add_e2e_flags, add_profiles, add_serving, add_whatif
    from probe_cases_tools import add_misc, add_modes, add_report_trace
    from probe_cases_review import add_review
    from probe_cases_round3 import add_round3
    from probe_cases_round4 import add_round4
    from probe_cases_r5 import add_round5
    from probe_cases_r6 import add_round6
    from probe_cases_r7 import add_round7
    from probe_cases_r8 import add_round8
    from probe_cases_r9 import add_round9
    from probe_cases_r10 import add_round10
    from probe_cases_r11 import add_round11
    from probe_cases_r12 import add_round12
    from probe_cases_r13 import add_round13
    from probe_cases_r14 import add_round14
    from probe_cases_r15 import add_round15
    from probe_cases_r16 import add_round16
    from probe_cases_r17 import add_round17
    from probe_cases_r18 import add_round18
    from probe_cases_r19 import add_round19
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
    add_review(c)
    add_round3(c)
    add_round4(c)
    add_round5(c)
    add_round6(c)
    add_round7(c)
    add_round8(c)
    add_round9(c)
    add_round10(c)
    add_round11(c)
    add_round12(c)
    add_round13(c)
    add_round14(c)
    add_round15(c)
    add_round16(c)
    add_round17(c)
    add_round18(c)
    add_round19(c)
    return cs


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
