"""Probe cases (see probe_cases.py), ninth round continued: `--set` on every numeric GPU field (zero, negative,
huge, the wrong unit), GPU files that `extends:` with odd changes, request files for `simulate`, `tune
--export-moe-configs` and `--family`, `whatif --gpus` lists, `e2e --replay` traces, odd paths (spaces, newlines,
non-UTF-8 bytes, folders and links where files are expected), and the Python module / C API equivalents."""
from probe_cases import read
from probe_cases_r6 import PY6
from probe_cases_round3 import CAPI

K = "gemm m=4096 n=4096 k=4096 dtype=bf16"
E = ["e2e", "--gpu", "h200", "--model", "llama-3-8b", "--phase", "decode", "--batch", "8", "--context", "1024"]
SR = ["simulate", "--gpu", "h200", "--model", "llama-3-8b", "--rate", "2", "--num-requests", "20"]

# Every numeric field of a GPU file: its unit, a value in a wrong unit, and the command that reads it.
FIELDS = {
    "sms": ("", "4 TB/s", "p"), "clock.boost": (" MHz", "3 GB", "p"), "clock.sustained": (" MHz", "2 W", "p"),
    "clock.tensor_load": (" MHz", "1 us", "p"), "tensor.bf16": (" FLOP/clk", "4 MHz", "p"),
    "tensor.fp8": (" FLOP/clk", "8 GB/s", "p"), "tensor.int8": (" ops/clk", "8 W", "p"),
    "tensor.fp64": (" FLOP/clk", "1 s", "p"), "fp32": (" FLOP/clk", "3 TB", "p"), "sfu": (" ops/clk", "1 W", "p"),
    "int": (" ops/clk", "2 MHz", "p"), "smem_bandwidth": (" B/clk", "1 TB/s", "p"),
    "sm_limits.registers": ("", "64 KiB/s", "p"), "sm_limits.max_regs_per_thread": ("", "1 MHz", "p"),
    "sm_limits.shared_memory": (" KiB", "1 MHz", "p"), "sm_limits.shared_memory_per_block": (" KiB", "2 W", "p"),
    "sm_limits.max_threads": ("", "1 GB", "p"), "sm_limits.max_ctas": ("", "3 us", "p"),
    "sm_limits.max_threads_per_block": ("", "1 W", "p"), "l1": (" KiB", "1 MHz", "p"), "l2.size": (" MiB", "1 TB/s", "p"),
    "l2.bandwidth": (" TB/s", "1 MiB", "p"), "l2.per_sm": (" B/clk", "1 GB", "p"), "dram.size": (" GiB", "3 TB/s", "e"),
    "dram.bandwidth": (" TB/s", "80 GiB", "p"), "launch_overhead": (" us", "4 MHz", "e"), "graph_gap": (" us", "1 GB", "e"),
    "host.cpu_speed": ("", "1 us", "e"), "interconnect.nvlink": (" GB/s", "1 us", "t"), "interconnect.pcie": (" GB/s", "2 MHz", "t"),
    "interconnect.gpus_per_node": ("", "8 GB", "t"), "tdp": (" W", "1 MHz", "w"), "price": (" USD/h", "3 W", "w"),
    "sustained_load.tensor_slowdown": ("", "2 s", "s"), "sustained_load.onset": (" s", "3 MHz", "s"),
    "compute_capability": ("", "9 W", "p")}
CMDS = {"p": ["predict", "--gpu", "h200", "--kernel", K, "--format", "json"], "e": E + ["--format", "json"],
        "t": ["e2e", "--gpu", "h200", "--model", "llama-3-70b", "--phase", "decode", "--batch", "8", "--context", "512",
              "--tp", "8", "--format", "json"],
        "w": ["whatif", "--model", "llama-3-8b", "--batch", "1", "--input-len", "64", "--output-len", "8", "--gpus", "h200",
              "--format", "json"],
        "s": ["predict", "--gpu", "h200", "--kernel", K, "--clock", "auto", "--format", "json"]}


def add_round9b(c):
    add_set_fields(c)
    add_extends(c)
    add_requests(c)
    from probe_cases_r9c import add_round9c
    add_round9c(c)


def add_set_fields(c):
    """--set FIELD=0 / -1 / 1e30 / a value in another unit on every numeric field: refused naming the field, or an
    answer without nan/inf (the JSON check of the probe)."""
    for field, (unit, wrong, cmd) in FIELDS.items():
        tag = field.replace(".", "_")
        for n, v, exp in (("zero", "0" + unit, "any"), ("neg", "-1" + unit, "bad"), ("huge", "1e30" + unit, "any"),
                          ("unit", wrong, "bad")):
            c(f"r9_set_{tag}_{n}", CMDS[cmd] + ["--set", f"{field}={v}"], exp, want=[field.split(".")[-1]] if exp == "bad" else [])


def add_extends(c):
    """GPU files that extend another with odd chains and values."""
    P = lambda f: ["predict", "--gpu", "{T}/" + f, "--kernel", K, "--format", "json"]  # noqa: E731
    for n, files, exp, want in (
            ("chain3", {"x9a.yaml": "extends: @T@/x9b.yaml\nname: a\n", "x9b.yaml": "extends: @T@/x9c.yaml\nname: b\n",
                        "x9c.yaml": "extends: h200\nname: c\nsms: 100\n"}, "good", []),
            ("cycle3", {"x9d.yaml": "extends: @T@/x9e.yaml\nname: d\n", "x9e.yaml": "extends: @T@/x9f.yaml\nname: e\n",
                        "x9f.yaml": "extends: @T@/x9d.yaml\nname: f\n"}, "bad", ["extends"]),
            ("relative", {"x9g/a.yaml": "extends: b.yaml\nname: g\n", "x9g/b.yaml": "extends: h200\nname: gb\n"}, "any", []),
            ("dir", {"x9h.yaml": "extends: @T@\nname: h\n"}, "bad", ["x9h.yaml"]),
            ("fifo", {"x9i.yaml": "extends: @T@/x9ififo\nname: i\n", "x9ififo": "@FIFO@"}, "bad", ["x9ififo"]),
            ("missing_parent", {"x9j.yaml": "extends: @T@/nope.yaml\nname: j\n"}, "bad", ["nope.yaml"]),
            ("parent_broken", {"x9k.yaml": "extends: @T@/x9kb.yaml\nname: k\n", "x9kb.yaml": "extends: h200\nsms: [\n"}, "bad",
             ["x9kb.yaml"]),
            ("parent_bad_value", {"x9l.yaml": "extends: @T@/x9lb.yaml\nname: l\n", "x9lb.yaml": "extends: h200\nname: lb\nsms: -4\n"},
             "bad", ["sms"]),
            ("override_fixes_parent", {"x9m.yaml": "extends: @T@/x9mb.yaml\nname: m\nsms: 100\n",
                                       "x9mb.yaml": "extends: h200\nname: mb\nsms: 0\n"}, "any", []),
            ("extends_null", {"x9n.yaml": "extends: ~\nname: n\n"}, "bad", ["extends"]),
            ("extends_number", {"x9o.yaml": "extends: 200\nname: o\n"}, "bad", ["200"]),
            ("extends_twice", {"x9p.yaml": "extends: h200\nextends: b200\nname: p\n"}, "bad", ["extends"]),
            ("extends_last", {"x9q.yaml": "name: q\nsms: 100\nextends: h200\n"}, "any", []),
            ("extends_bytes", {"x9r.yaml": b"extends: h2\xff00\nname: r\n"}, "bad", ["x9r.yaml:1"]),
            ("extends_newline_name", {"x9s.yaml": "extends: \"h200\\nb200\"\nname: s\n"}, "bad", ["x9s.yaml:1"]),
            ("nested_half_override", {"x9t.yaml": "extends: h200\nname: t\nclock: {boost: 1500 MHz}\n"}, "any", []),
            ("sm_limits_partial", {"x9u.yaml": "extends: h200\nname: u\nsm_limits: {registers: 32768}\n"}, "good", []),
            ("tensor_drop_bf16", {"x9v.yaml": "extends: h200\nname: v\ntensor: {bf16: ~}\n"}, "bad", ["bf16"]),
            ("same_as_catalogue", {"x9w.yaml": read("gpus/h200.yaml")}, "good", []),
            ("anchor_alias", {"x9x.yaml": "extends: h200\nname: x\nl2: &a {size: 60 MiB}\nl1: *a\n"}, "bad", ["l1"])):
        first = next(iter(files))
        c(f"r9_extends_{n}", P(first), exp, want=want, files=files)


def add_requests(c):
    """Request files for simulate: CSV and JSONL with odd rows."""
    S = ["simulate", "--gpu", "h200", "--model", "llama-3-8b", "--format", "json", "--requests"]
    hdr = "arrival_s,prompt_tokens,output_tokens\n"
    for n, name, data, exp in (
            ("csv_decreasing", "rq9a.csv", hdr + "1.0,100,10\n0.5,100,10\n", "any"),
            ("csv_neg_arrival", "rq9b.csv", hdr + "-1,100,10\n", "bad"),
            ("csv_nan_arrival", "rq9c.csv", hdr + "nan,100,10\n", "bad"),
            ("csv_inf_arrival", "rq9d.csv", hdr + "inf,100,10\n", "bad"),
            ("csv_huge_arrival", "rq9e.csv", hdr + "1e300,100,10\n", "bad"),
            ("csv_zero_output", "rq9f.csv", hdr + "0,100,0\n", "bad"),
            ("csv_zero_prompt", "rq9g.csv", hdr + "0,0,10\n", "bad"),
            ("csv_float_tokens", "rq9h.csv", hdr + "0,100.5,10\n", "bad"),
            ("csv_huge_tokens", "rq9i.csv", hdr + "0,99999999999,10\n", "bad"),
            ("csv_dup_col", "rq9j.csv", "arrival_s,prompt_tokens,output_tokens,prompt_tokens\n0,1,1,1\n", "bad"),
            ("csv_unit", "rq9k.csv", hdr + "0.5s,100,10\n", "bad"),
            ("csv_bom_crlf", "rq9l.csv", "\ufeff" + (hdr + "0,100,10\n0.1,50,5\n").replace("\n", "\r\n"), "good"),
            ("csv_header_only", "rq9m.csv", hdr, "bad"),
            ("csv_cached_above_prompt", "rq9n.csv", "arrival_s,prompt_tokens,output_tokens,cached_prefix_tokens\n0,100,10,200\n", "bad"),
            ("csv_extra_col", "rq9o.csv", "arrival_s,prompt_tokens,output_tokens,user\n0,100,10,a\n", "any"),
            ("csv_prompt_beyond_context", "rq9p.csv", hdr + "0,9000000,10\n", "bad_flag"),
            ("csv_same_arrival_many", "rq9q.csv", hdr + "0,100,10\n" * 200, "good"),
            ("jsonl_blank_lines", "rq9r.jsonl", '\n{"arrival_s": 0, "prompt_tokens": 10, "output_tokens": 2}\n\n', "any"),
            ("jsonl_array", "rq9s.jsonl", '[{"arrival_s": 0, "prompt_tokens": 10, "output_tokens": 2}]\n', "bad"),
            ("jsonl_dup_key", "rq9t.jsonl", '{"arrival_s": 0, "prompt_tokens": 10, "prompt_tokens": 20, "output_tokens": 2}\n', "bad"),
            ("jsonl_bool", "rq9u.jsonl", '{"arrival_s": 0, "prompt_tokens": true, "output_tokens": 2}\n', "bad"),
            ("jsonl_str_num", "rq9v.jsonl", '{"arrival_s": "0", "prompt_tokens": 10, "output_tokens": 2}\n', "bad"),
            ("jsonl_nan", "rq9w.jsonl", '{"arrival_s": NaN, "prompt_tokens": 10, "output_tokens": 2}\n', "bad"),
            ("jsonl_big_exp", "rq9x.jsonl", '{"arrival_s": 0, "prompt_tokens": 1e400, "output_tokens": 2}\n', "bad"),
            ("jsonl_neg_zero", "rq9y.jsonl", '{"arrival_s": -0.0, "prompt_tokens": 10, "output_tokens": 2}\n', "any"),
            ("jsonl_trailing", "rq9z.jsonl", '{"arrival_s": 0, "prompt_tokens": 10, "output_tokens": 2} x\n', "bad"),
            ("jsonl_crlf", "rq9aa.jsonl", '{"arrival_s": 0, "prompt_tokens": 10, "output_tokens": 2}\r\n', "good"),
            ("txt_ext", "rq9ab.txt", hdr + "0,100,10\n", "any"),
            ("no_ext_jsonl", "rq9ac", '{"arrival_s": 0, "prompt_tokens": 10, "output_tokens": 2}\n', "any")):
        want = ["--requests"] if exp == "bad_flag" else [name] if exp == "bad" else []
        c(f"r9_req_{n}", S + ["{T}/" + name], "bad" if exp == "bad_flag" else exp, want=want, files={name: data})
    c("r9_req_twice_same", S + ["tests/data/serving/requests.csv", "--requests", "tests/data/serving/requests.csv"], "any")
    c("r9_req_twice_other", S + ["tests/data/serving/requests.csv", "--requests", "tests/data/serving/requests.jsonl"],
      want=["--requests"])
    c("r9_req_and_rate", S + ["tests/data/serving/requests.csv", "--rate", "2"], want=["--rate"])
    c("r9_req_stdin", S + ["-"], want=["-"])
    c("r9_req_dir", S + ["tests/data/serving"], want=["tests/data/serving"])
    c("r9_req_prompt_file_dir", SR + ["--prompt-len", "file:tests/data"], want=["tests/data"])
    c("r9_req_prompt_file_empty", SR + ["--prompt-len", "file:{T}/pl9.txt"], want=["pl9.txt"], files={"pl9.txt": ""})
    c("r9_req_prompt_file_neg", SR + ["--prompt-len", "file:{T}/pl9n.txt"], want=["pl9n.txt"], files={"pl9n.txt": "10\n-5\n"})
    c("r9_req_trace_out_dir", SR + ["--trace-out", "{T}/rq9dir"], want=["rq9dir"], files={"rq9dir/.keep": ""})
    c("r9_req_series_points_zero", SR + ["--series-points", "0"], want=["--series-points"])
    c("r9_req_replicas_huge", SR + ["--replicas", "100000000"], want=["--replicas"])
