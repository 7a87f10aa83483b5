"""Probe cases, sixth round (second half; see probe_cases_r6.py): config.json fields loom does not model, deep nesting,
10 MB lines, CSV dialects, gzip oddities, Unicode look-alikes and zero-width spaces, environment variables, --format
spellings, and numeric flags exactly at and one past their limits."""
import gzip
import json

from probe_cases import REPO, read  # noqa: F401
from probe_cases_r6 import ENV6, SAME
from probe_cases_round4 import CASES, E, K, LCT, NS, P, REQ, S, SR, TK, W, WC

BATCH = ["predict", "--gpu", "h200", "--batch"]
M = json.loads(read("models/presets/llama-3-8b.json"))


def add_round6b(c):
    add_model_fields(c)
    add_deep(c)
    add_long_lines(c)
    add_csv(c)
    add_gzip(c)
    add_lookalikes(c)
    add_env(c)
    add_formats(c)
    add_limits(c)
    add_links_and_lists(c)
    add_replay_skips(c)


def em(name):
    return [x if x != "llama-3-8b" else "{T}/" + name for x in E]


def add_model_fields(c):
    """config.json fields loom does not use to price a step: each refused when it would change the answer (quantized
    weights, another dtype) or is malformed; tolerated when it only describes training or tokenisation."""
    for n, kv, exp, want in (
            ("quant_awq", {"quantization_config": {"quant_method": "awq", "bits": 4}}, "bad", ["quantization_config"]),
            ("quant_fp8", {"quantization_config": {"quant_method": "fp8"}}, "bad", ["quantization_config"]),
            ("tie_str", {"tie_word_embeddings": "yes"}, "bad", ["tie_word_embeddings"]),
            ("attn_bias_str", {"attention_bias": "no"}, "bad", ["attention_bias"]),
            ("kv_heads_nodiv", {"num_key_value_heads": 3}, "bad", ["num_key_value_heads"]),
            ("kv_heads_more", {"num_key_value_heads": 64}, "bad", ["num_key_value_heads"]),
            ("inter0", {"intermediate_size": 0}, "bad", ["intermediate_size"]),
            ("vocab0", {"vocab_size": 0}, "bad", ["vocab_size"]),
            ("head_dim0", {"head_dim": 0}, "bad", ["head_dim"]),
            ("positions0", {"max_position_embeddings": 0}, "bad", ["max_position_embeddings"]),
            ("layers_float", {"num_hidden_layers": 32.5}, "bad", ["num_hidden_layers"]),
            ("layers_float_int", {"num_hidden_layers": 32.0}, "any", []),
            ("hidden_str", {"hidden_size": "4096"}, "bad", ["hidden_size"]),
            ("heads_bool", {"num_attention_heads": True}, "bad", ["num_attention_heads"]),
            ("arch_unknown", {"architectures": ["MambaForCausalLM"]}, "bad", ["architectures"]),
            ("arch_empty", {"architectures": []}, "any", []),
            ("model_type_int", {"model_type": 7}, "bad", ["model_type"]),
            ("torch_dtype_bad", {"torch_dtype": "float99"}, "bad", ["torch_dtype"]),
            ("torch_dtype_int", {"torch_dtype": 16}, "bad", ["torch_dtype"]),
            ("rope_type_unknown", {"rope_scaling": {"rope_type": "warp", "factor": 8.0}}, "bad", ["rope"]),
            ("pretraining_tp", {"pretraining_tp": 2}, "any", []),
            ("init_range_neg", {"initializer_range": -1}, "any", []),
            ("bos_str", {"bos_token_id": "x"}, "any", []),
            ("use_cache_false", {"use_cache": False}, "any", []),
            ("mlp_bias_str", {"mlp_bias": "false"}, "bad", ["mlp_bias"]),
            ("experts_dense", {"num_local_experts": 8}, "bad", ["num_local_experts"])):
        c(f"r6_model_{n}", em(f"mf6_{n}.json"), exp, want=[f"mf6_{n}.json"] + want if exp == "bad" else [],
          files={f"mf6_{n}.json": json.dumps(dict(M, **kv), indent=1)})


def add_deep(c):
    """Deeply nested JSON and YAML (100,000 levels): refused with a line, never a stack overflow."""
    deep_json = "[" * 100000 + "]" * 100000
    deep_obj = '{"a":' * 100000 + "1" + "}" * 100000
    # config.json keys loom does not know are ignored by design (Hugging Face configs carry dozens): the nesting must
    # only not crash.
    c("r6_deep_model_unknown_key", em("dp6_m.json"), "any", files={"dp6_m.json": json.dumps(M)[:-1] + ', "junk": ' + deep_json + "}"})
    for n, argv, name, text in (
            ("model_top", em("dp6_t.json"), "dp6_t.json", deep_obj),
            ("chrome", ["trace", "import", "--chrome", "{T}/dp6_c.json"], "dp6_c.json", '{"traceEvents": ' + deep_json + "}"),
            ("replay", ["e2e", "--gpu", "h200", "--replay", "{T}/dp6_r.json"], "dp6_r.json", deep_obj),
            ("calibrate", ["calibrate", "{T}/dp6_cal.json", "--gpu", "h100-sxm"], "dp6_cal.json", deep_obj),
            ("json_in", ["report", "--json-in", "{T}/dp6_j.json", "-o", "{T}/dp6.html"], "dp6_j.json", deep_obj),
            ("tables", ["tune", "--gpu", "h200", "--kernel", TK, "--tables", "{T}/dp6_tb.json"], "dp6_tb.json", deep_obj),
            ("report_sim", ["report", "--simulate", "{T}/dp6_s.json", "-o", "{T}/dp6s.html"], "dp6_s.json", deep_obj),
            ("jsonl", S + ["--requests", "{T}/dp6_q.jsonl"], "dp6_q.jsonl", deep_obj + "\n"),
            ("gpu_flow", ["predict", "--kernel", K, "--gpu", "{T}/dp6_g.yaml"], "dp6_g.yaml",
             "extends: h200\nsms: " + "[" * 100000 + "]" * 100000 + "\n"),
            ("gpu_block", ["predict", "--kernel", K, "--gpu", "{T}/dp6_gb.yaml"], "dp6_gb.yaml",
             "extends: h200\nx:\n" + "".join(" " * i + "- \n" for i in range(1, 3000))),
            ("profile_flow", E + ["--profile", "{T}/dp6_p.yaml"], "dp6_p.yaml", "{a: " * 50000 + "1" + "}" * 50000 + "\n")):
        c(f"r6_deep_{n}", argv, want=[name], files={name: text})


def add_long_lines(c):
    """A 10 MB line in every text reader: refused naming the file (or read, for a YAML comment), in bounded time."""
    big = "x" * 10_000_000
    for n, argv, name, text, exp in (
            ("gpu_comment", ["predict", "--kernel", K, "--gpu", "{T}/ll6_c.yaml"], "ll6_c.yaml",
             "extends: h200\n# " + big + "\nsms: 100\n", "any"),
            ("gpu_value", ["predict", "--kernel", K, "--gpu", "{T}/ll6_v.yaml"], "ll6_v.yaml",
             "extends: h200\nsms: 1" + "0" * 10_000_000 + "\n", "bad"),
            ("model_string", em("ll6_m.json"), "ll6_m.json", json.dumps(dict(M, model_type="llama" + big)), "bad"),
            ("requests_csv", S + ["--requests", "{T}/ll6_r.csv"], "ll6_r.csv",
             "arrival_s,prompt_tokens,output_tokens\n0,10," + "1" * 10_000_000 + "\n", "bad"),
            ("batch_csv", BATCH + ["{T}/ll6_b.csv"], "ll6_b.csv", "family,m,n,k,dtype\ngemm,64,64,64,bf" + big + "\n", "bad"),
            ("cases_csv", ["trace", "import", "--lct", LCT, "--cases", "{T}/ll6.cases.csv", "-o", "{T}/ll6o.csv"],
             "ll6.cases.csv", read(CASES).decode() + "# " + big + "\n", "bad"),
            ("neusight", ["trace", "import", "--from", "neusight", "{T}/ll6_ns.csv", "-o", "{T}/ll6nso"], "ll6_ns.csv",
             read(NS).decode() + big + "\n", "bad"),
            ("chrome_name", ["trace", "import", "--chrome", "{T}/ll6_ch.json"], "ll6_ch.json",
             '{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "' + big + '", "ts": 0, "dur": 3}]}', "any"),
            ("profile", E + ["--profile", "{T}/ll6_p.yaml"], "ll6_p.yaml",
             read("models/profiles/vllm.yaml").decode().replace("description: ", "description: " + big, 1), "any"),
            ("calibrate", ["calibrate", "{T}/ll6_cal.json", "--gpu", "h100-sxm"], "ll6_cal.json",
             read("tests/data/calibrate/good.json").decode().replace('"host": "vm"', '"host": "' + big + '"'), "any")):
        c(f"r6_long_{n}", argv, exp, want=[name] if exp == "bad" else [], files={name: text})


def add_csv(c):
    """CSV dialects in every CSV reader: quoted fields with commas and newlines, ragged rows, trailing commas, tabs,
    semicolons, a header and no rows."""
    H = "arrival_s,prompt_tokens,output_tokens\n"
    for n, text, exp in (("quoted_comma", H + '0,"10,5",10\n', "bad"), ("quoted_newline", H + '0,"10\n5",10\n', "bad"),
                         ("quoted_ok", H + '0,"10",10\n', "any"), ("more_cols", H + "0,10,10,7\n", "bad"),
                         ("fewer_cols", H + "0,10\n", "bad"), ("trailing_comma", H + "0,10,10,\n", "bad"),
                         ("header_trailing_comma", H[:-1] + ",\n0,10,10\n", "bad"),
                         ("tabs", H.replace(",", "\t") + "0\t10\t10\n", "bad"),
                         ("semicolons", H.replace(",", ";") + "0;10;10\n", "bad"), ("header_only", H, "bad"),
                         ("quoted_header", '"arrival_s","prompt_tokens","output_tokens"\n0,10,10\n', "any"),
                         ("unbalanced_quote", H + '0,"10,10\n', "bad"), ("blank_middle", H + "0,10,10\n\n1,10,10\n", "any"),
                         ("spaces_cells", H + "0, 10 ,10\n", "any")):
        c(f"r6_csv_req_{n}", S + ["--requests", "{T}/cv6_" + n + ".csv"], exp, want=["cv6_" + n + ".csv"] if exp == "bad" else [],
          files={f"cv6_{n}.csv": text})
    B = "family,m,n,k,dtype\n"
    for n, text, exp in (("quoted_comma", B + 'gemm,"64,5",64,64,bf16\n', "bad"), ("quoted_newline", B + 'gemm,"6\n4",64,64,bf16\n', "bad"),
                         ("more_cols", B + "gemm,64,64,64,bf16,9\n", "bad"), ("fewer_cols", B + "gemm,64,64\n", "bad"),
                         ("trailing_comma", B + "gemm,64,64,64,bf16,\n", "bad"), ("tabs", B.replace(",", "\t") + "gemm\t64\t64\t64\tbf16\n", "bad"),
                         ("header_only", B, "any"), ("quoted_family", B + '"gemm",64,64,64,bf16\n', "any"),
                         ("unbalanced_quote", B + 'gemm,"64,64,64,bf16\n', "bad"), ("empty_header_cell", "family,,n,k,dtype\ngemm,64,64,64,bf16\n", "bad")):
        c(f"r6_csv_batch_{n}", BATCH + ["{T}/cb6_" + n + ".csv", "--format", "csv"], exp,
          want=["cb6_" + n + ".csv"] if exp == "bad" else [], files={f"cb6_{n}.csv": text}, empty_ok=n == "header_only")
    ns = read(NS).decode().split("\n")
    for n, text in (("more_cols", ns[0] + "\n" + ns[1] + ",9\n"), ("fewer_cols", ns[0] + "\n" + ",".join(ns[1].split(",")[:3]) + "\n"),
                    ("header_only", ns[0] + "\n"), ("tabs", ns[0].replace(",", "\t") + "\n" + ns[1].replace(",", "\t") + "\n")):
        c(f"r6_csv_neusight_{n}", ["trace", "import", "--from", "neusight", "{T}/cn6_" + n + ".csv", "-o", "{T}/cn6o_" + n],
          want=["cn6_" + n + ".csv"], files={f"cn6_{n}.csv": text})
    cs = read(CASES).decode().split("\n")
    data = [x for x in cs if x and not x.startswith("#")]
    for n, text in (("more_cols", "\n".join(cs).replace(data[1], data[1] + ",9", 1)),
                    ("fewer_cols", "\n".join(cs).replace(data[1], ",".join(data[1].split(",")[:3]), 1)),
                    ("header_only", "\n".join(x for x in cs if not x or x.startswith("#") or x == data[0]) + "\n")):
        c(f"r6_csv_cases_{n}", ["trace", "import", "--lct", LCT, "--cases", "{T}/cc6_" + n + ".cases.csv", "-o", "{T}/cc6o.csv"],
          want=["cc6_" + n + ".cases.csv"], files={f"cc6_{n}.cases.csv": text})
    for n, text in (("comma_sep", "10,20,30\n"), ("quoted", '"10"\n20\n'), ("tabs", "10\t20\n"), ("blank_only", "\n \n")):
        c(f"r6_csv_lens_{n}", SR + ["--prompt-len", "file:{T}/cl6_" + n + ".txt"], want=["cl6_" + n + ".txt"],
          files={f"cl6_{n}.txt": text})


def add_gzip(c):
    """gzip truncated in the middle, concatenated members (the same data: the answer must not change), .gz on plain
    text and gzip under a plain name."""
    lct = read(LCT)
    plain = gzip.decompress(lct)
    half = len(plain) // 2
    members = gzip.compress(plain[:half]) + gzip.compress(plain[half:])
    for n, name, data in (("lct_half", "gz6_half.lct.gz", lct[:len(lct) // 2]), ("lct_tail_cut", "gz6_tail.lct.gz", lct[:-4]),
                          ("lct_garbage_after", "gz6_ga.lct.gz", lct + b"garbage!"),
                          ("lct_zero_len_member", "gz6_zm.lct.gz", lct + gzip.compress(b""))):
        exp = "any" if n == "lct_zero_len_member" else "bad"
        c(f"r6_gz_summary_{n}", ["trace", "summary", "{T}/" + name], exp, want=[name] if exp == "bad" else [],
          files={name: data})
        c(f"r6_gz_import_{n}", ["trace", "import", "--lct", "{T}/" + name, "--cases", CASES, "-o", "{T}/gz6o_" + n + ".csv"],
          exp, want=[name] if exp == "bad" else [], files={name: data}, empty_ok=True)
    for n, name, data in (("members", "gz6_m.lct.gz", members), ("plain_as_gz", "gz6_p.lct.gz", plain),
                          ("gz_as_plain", "gz6_g.lct", lct)):
        c(f"r6_gz_same_{n}", ["@python", SAME.format(orig=["trace", "summary", LCT], var=["trace", "summary", "{T}/" + name],
                                                     op=LCT, vp="{T}/" + name)], "any", files={name: data})
    ch = read("tests/data/trace/torch_profile_sample.json")
    for n, name, data in (("members", "gz6_c.json.gz", gzip.compress(ch[:len(ch) // 2]) + gzip.compress(ch[len(ch) // 2:])),
                          ("truncated", "gz6_ct.json.gz", gzip.compress(ch)[:-30]), ("plain_as_gz", "gz6_cp.json.gz", ch)):
        exp = "bad" if n == "truncated" else "any"
        c(f"r6_gz_chrome_{n}", ["trace", "import", "--chrome", "{T}/" + name], exp, want=[name] if exp == "bad" else [],
          files={name: data})
    for n, name, data in (("requests_gz", "gz6_r.csv", gzip.compress(read(REQ))),
                          ("model_gz", "gz6_model.json", gzip.compress(read("models/presets/llama-3-8b.json"))),
                          ("batch_gz", "gz6_b.csv", gzip.compress(b"family,m,n,k,dtype\ngemm,64,64,64,bf16\n"))):
        argv = {"requests_gz": S + ["--requests", "{T}/" + name], "model_gz": em(name), "batch_gz": BATCH + ["{T}/" + name]}[n]
        c(f"r6_gz_{n}", argv, want=[name], files={name: data})


def add_lookalikes(c):
    """Cyrillic look-alikes and zero-width spaces in GPU keys, model names, profile names, YAML keys and CSV headers."""
    cy = "h2\u043e\u043e"  # h2оо: Cyrillic o
    for n, argv, want in (("gpu_key", ["predict", "--gpu", cy, "--kernel", K], "--gpu"),
                          ("gpu_zwsp", ["predict", "--gpu", "h200\u200b", "--kernel", K], "--gpu"),
                          ("gpus_show", ["gpus", "show", cy], cy),
                          ("whatif_gpus", W[:-1] + ["h200,h100-\u0455xm"], "--gpus"),
                          ("model", ["e2e", "--gpu", "h200", "--model", "ll\u0430ma-3-8b", "--phase", "decode"], "--model"),
                          ("profile", E + ["--profile", "vll\u043c"], "--profile"),
                          ("phase", ["e2e", "--gpu", "h200", "--model", "llama-3-8b", "--phase", "dec\u043ede"], "--phase"),
                          ("format_zwsp", P + ["--format", "json\u200b"], "--format"),
                          ("flag_zwsp", ["predict", "--gpu", "h200", "--ker\u200bnel", K], "--ker"),
                          ("flag_en_dash", ["predict", "\u2013gpu", "h200", "--kernel", K], "gpu"),
                          ("set_key", P + ["--set", "\u0455ms=100"], "--set"),
                          ("dtype", ["predict", "--gpu", "h200", "--kernel", "gemm m=64 n=64 k=64 dtype=bf1\u0431"], "dtype")):
        c(f"r6_lookalike_{n}", argv, want=[want])
    for n, text, want in (("yaml_key", "extends: h200\n\u0455ms: 100\n", "\u0455ms"), ("yaml_key_zwsp", "extends: h200\nsms\u200b: 100\n", "sms"),
                          ("yaml_value_nbsp", "extends: h200\nsms: 100\u00a0\n", "sms"),
                          ("yaml_value_fullwidth", "extends: h200\nsms: \uff11\uff13\uff12\n", "sms"),
                          ("yaml_extends", "extends: h2\u043e\u043e\n", "extends")):
        c(f"r6_lookalike_{n}", ["predict", "--kernel", K, "--gpu", "{T}/la6_" + n + ".yaml"], want=["la6_" + n + ".yaml", want],
          files={f"la6_{n}.yaml": text})
    for n, text in (("req_header", "arrival_s,pr\u043empt_tokens,output_tokens\n0,10,10\n"),
                    ("req_zwsp_header", "arrival_s,prompt_tokens\u200b,output_tokens\n0,10,10\n"),
                    ("req_zwsp_cell", "arrival_s,prompt_tokens,output_tokens\n0,10\u200b,10\n")):
        c(f"r6_lookalike_{n}", S + ["--requests", "{T}/la6_" + n + ".csv"], want=["la6_" + n + ".csv"],
          files={f"la6_{n}.csv": text})
    c("r6_lookalike_batch_family", BATCH + ["{T}/la6_b.csv"], want=["la6_b.csv"],
      files={"la6_b.csv": "family,m,n,k,dtype\ng\u0435mm,64,64,64,bf16\n"})
    c("r6_lookalike_model_key", em("la6_m.json"), want=["la6_m.json", "hidden"],
      files={"la6_m.json": json.dumps(M).replace('"hidden_size"', '"hidden_s\u0456ze"')})


def add_env(c):
    """LOOM_HOME an empty folder / a file / missing / relative, HOME unset, TMPDIR missing, a German locale."""
    import os
    for n, env, unset, exp, want in (("home_empty_dir", {"LOOM_HOME": "{T}/eh6"}, [], "bad", ["eh6"]),
                                     ("home_gpus_file", {"LOOM_HOME": "{T}/eg6"}, [], "bad", ["gpus"]),
                                     ("home_unset_HOME", {}, ["HOME"], "good", []),
                                     ("home_unset_both", {}, ["HOME", "LOOM_HOME"], "any", []),
                                     ("tmpdir_missing", {"TMPDIR": "/nonexistent/tmp"}, [], "good", []),
                                     ("locale_de", {"LC_ALL": "de_DE.UTF-8", "LANG": "de_DE.UTF-8"}, [], "good", []),
                                     ("columns_0", {"COLUMNS": "0"}, [], "good", [])):
        files = {"eh6/.keep": "", "eg6/gpus": "not a folder"}
        for tag, argv in (("predict", P + ["--format", "json"]), ("e2e", E + ["--format", "json"])):
            c(f"r6_env_{n}_{tag}", ["@python", ENV6.format(argv=argv, env=env, unset=unset)], exp, want=want, files=files)
    c("r6_env_tmpdir_report", ["@python", ENV6.format(argv=["report", "--sample", "-o", "{T}/env6.html"],
                                                      env={"TMPDIR": "/nonexistent/tmp"}, unset=[])], "good", empty_ok=True)
    del os


def add_formats(c):
    """--format spellings: capitalised, with '=', with a trailing space, on the commands that write files."""
    for n, argv, exp in (("calibrate_json", ["calibrate", "tests/data/calibrate/good.json", "--gpu", "h100-sxm", "--format", "json"], "any"),
                         ("chrome_upper", ["trace", "import", "--chrome", "tests/data/trace/torch_profile_sample.json", "--format", "JSON"], "any"),
                         ("eq_upper", P + ["--format=Json"], "any"), ("trailing_space", P + ["--format", "json "], "bad"),
                         ("report_format", ["report", "--sample", "-o", "{T}/f6.html", "--format", "json"], "bad"),
                         ("summary_lct_csv", ["trace", "summary", LCT, "--format", "csv"], "good"),
                         ("validate_e2e_yaml", ["validate", "--e2e", "--format", "yaml"], "bad"),
                         ("plan_csv", ["tune", "--plan", "--gpu", "h200", "--family", "gemm", "--format", "csv"], "any")):
        c(f"r6_fmt_{n}", argv, exp, want=["--format"] if exp == "bad" else [])


def add_limits(c):
    """Numeric flags exactly at (accepted) and one past (refused naming the flag) their limits."""
    for flag, at, past, base in (("--tp", "8", "9", S + ["--rate", "1", "--num-requests", "5"]),
                                 ("--pp", "32", "65", S + ["--rate", "1", "--num-requests", "5"]),
                                 ("--replicas", "64", "4097", S + ["--rate", "1", "--num-requests", "5"]),
                                 ("--series-points", "1000000", "1000001", SR),
                                 ("--seed", str(1 << 62), str((1 << 62) + 1), SR),
                                 ("--num-requests", None, "10000001", S + ["--rate", "1"]),
                                 ("--pp", "32", "65", WC + ["--num-requests", "20"])):
        tag = flag[2:] + ("_whatif" if base[0] == "whatif" else "")
        if at:
            c(f"r6_lim_{tag}_at", base + [flag, at], "any")
        c(f"r6_lim_{tag}_past", base + [flag, past], want=[flag])
    for n, spec, exp in (("elems_at", "rms_norm rows=1048576 cols=1048576 dtype=bf16", "any"),
                         ("elems_past", "rms_norm rows=1048577 cols=1048576 dtype=bf16", "bad"),
                         ("gemm_dim_2e31", "gemm m=2147483648 n=1 k=1 dtype=bf16", "any")):
        c(f"r6_lim_spec_{n}", ["predict", "--gpu", "h200", "--kernel", spec], exp, want=["kernel"] if exp == "bad" else [])


def add_links_and_lists(c):
    """Symbolic links to folders given as files, odd output paths (trailing slash, a dangling link), and lists of
    20,000 items in flags that take lists (bounded work, one clear line)."""
    link = {"ld6/.keep": "", "ld6link": "@LINK@ld6"}
    for n, argv in (("gpu", ["predict", "--kernel", K, "--gpu", "{T}/ld6link"]), ("model", em("ld6link")),
                    ("profile", E + ["--profile", "{T}/ld6link"]), ("requests", S + ["--requests", "{T}/ld6link"]),
                    ("batch", BATCH + ["{T}/ld6link"]), ("calibrate", ["calibrate", "{T}/ld6link", "--gpu", "h100-sxm"]),
                    ("json_in", ["report", "--json-in", "{T}/ld6link", "-o", "{T}/ld6.html"]),
                    ("replay", ["e2e", "--gpu", "h200", "--replay", "{T}/ld6link"])):
        c(f"r6_link_dir_{n}", argv, want=["ld6link"], files=link)
    for n, out in (("trailing_slash", "{T}/o6.html/"), ("dangling_link", "{T}/o6dangle")):
        c(f"r6_out_{n}", ["report", "--sample", "-o", out], "any", files={"o6dangle": "@LINK@nowhere6/x.html"})
    many = ",".join(["h200"] * 10000)
    for n, argv, want in (("gpu_dup", ["predict", "--kernel", K, "--gpu", many], "--gpu"),
                          ("gpu_missing", ["predict", "--kernel", K, "--gpu", ",".join(f"x{i}/a" for i in range(10000))], "x0/a"),
                          ("gpus_dup", W[:-1] + [many], "--gpus"),
                          ("tp", W + ["--tp", ",".join(["1"] * 10000)], "--tp"),
                          ("slo", SR + ["--slo", ",".join(["ttft=2s"] * 10000)], "--slo"),
                          ("spec_params", ["predict", "--gpu", "h200", "--kernel", K + " m=64" * 10000], "kernel"),
                          ("set", P + sum([["--set", "sms=100"] for _ in range(5000)], []), "--set")):
        c(f"r6_many_{n}", argv, "any" if n == "set" else "bad", want=[want] if n != "set" else [])


def add_replay_skips(c):
    """A Chrome trace whose long kernel has "dur" as a string: skipped, so `e2e --replay` and `trace import --chrome`
    must say so in every format (replay printed a GPU time 40x too small without a word; import's JSON and CSV too)."""
    from probe_cases_round4 import ENVOUT
    tr = ('{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "ampere_gemm", "ts": 0, "dur": 3}, '
          '{"ph": "X", "cat": "kernel", "name": "k2", "ts": 5, "dur": "300"}, '
          '{"ph": "X", "cat": "kernel", "name": "k3", "ts": 400, "dur": 4}]}')
    for fmt in ("table", "json", "csv"):
        c(f"r6_replay_skipped_kernel_{fmt}", ["@python", ENVOUT.format(argv=["e2e", "--gpu", "h200", "--replay", "{T}/rs6.json",
                                                                          "--format", fmt], want="skipped")], "good",
          files={"rs6.json": tr})
        c(f"r6_chrome_skipped_kernel_{fmt}", ["@python", ENVOUT.format(argv=["trace", "import", "--chrome", "{T}/rs6.json",
                                                                          "--format", fmt], want="skipped")], "good",
          files={"rs6.json": tr})
