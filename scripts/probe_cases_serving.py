"""Probe cases (see probe_cases.py): e2e flags, serving profiles, request streams and simulate, whatif."""
from probe_cases import K, read  # noqa: F401

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
