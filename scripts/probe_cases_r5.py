"""Probe cases (see probe_cases.py), fifth round: number spellings in every numeric flag (leading '+', leading zeros,
'1e309', '-0', hex, '1_000', Unicode digits, units, whitespace, a 100 kB value), '=' and space forms of one flag given
twice, YAML tags / anchors / merge keys / top-level lists, CR-only line ends in every CSV reader, named pipes (FIFOs
without a writer) given to every reader, one GPU named twice by catalogue key and by file, NaN in the unused columns of
NeuSight rows, synthetic arrivals beyond the request files' 1e9 s, model-config fields loom does not model
(sliding_window), Python bools for integer cells, and the C API's error buffer of length 0 / 1 / NULL."""
import csv
import io
import json

from probe_cases import read  # noqa: F401
from probe_cases_round3 import CAPI
from probe_cases_round4 import E, K, NS, P, PY, S, SR, W, WC

FIFO = "@FIFO@"  # the probe makes a named pipe (mkfifo) with no writer here
D = ["diagnose", "--gpu", "h200", "--kernel", K]
BATCH = ["predict", "--gpu", "h200", "--batch", "examples/kernels.csv"]


def add_round5(c):
    add_numbers(c)
    add_twice(c)
    add_yaml(c)
    add_cr_only(c)
    add_fifo(c)
    add_fifo_outputs(c)
    add_dup_gpus(c)
    add_scoped_sets(c)
    add_leftovers(c)
    add_python_capi(c)
    add_schemas(c)
    add_ceiling(c)
    add_report_schemas(c)


def add_numbers(c):
    """Every numeric flag with spellings a strict reader refuses (or takes, where the value is the same number)."""
    flags = (("e2e_batch", E, "--batch"), ("e2e_context", E, "--context"), ("sim_num", SR, "--num-requests"),
             ("sim_rate", SR, "--rate"), ("sim_seed", SR + ["--seed", "1"], "--seed"), ("sim_pp", SR, "--pp"),
             ("sim_replicas", SR, "--replicas"), ("sim_tp", SR, "--tp"), ("whatif_in", W, "--input-len"),
             ("whatif_out", W, "--output-len"), ("whatif_batch", W, "--batch"), ("cap_rate", WC, "--rate"),
             ("threads", BATCH, "--threads"), ("measured", D, "--measured-us"), ("top", E, "--top"))
    bad = {"plus": "+8", "e309": "1e309", "hex": "0x8", "under": "1_000", "arabic": "\u0668", "fullwidth": "\uff18",
           "unit_mb": "8MB", "space_after": "8 ", "space_before": " 8", "blank": "   ", "tab": "\t", "neg0": "-0",
           "nbsp": "8\u00a0", "long": "8" * 100000, "comma_dec": "8,5", "frac_exp": "8e-400", "inf": "inf"}
    for tag, base, flag in flags:
        argv = [x for x in base]
        if flag in argv:  # replace the value the base command gives
            i = argv.index(flag)
            del argv[i:i + 2]
        for n, v in bad.items():
            if flag in ("--rate", "--measured-us") and n == "neg0":
                continue  # -0 of a real-valued flag is zero: refused as zero (checked by the zero cases of round 2)
            c(f"r5_num_{tag}_{n}", argv + [flag, v], want=[flag])
        c(f"r5_num_{tag}_lead0", argv + [flag, "08"], "any")


def add_twice(c):
    """One flag given twice in the '=' and the space form, with different and with equal values."""
    for tag, base, flag, a, b in (("e2e_batch", E, "--batch", "2", "3"), ("sim_rate", SR, "--rate", "1", "3"),
                                  ("pred_gpu", P, "--gpu", "h200", "h100-sxm"), ("e2e_mode", E, "--mode", "graph", "eager"),
                                  ("sim_slo", SR, "--slo", "ttft=2s", "ttft=3s"), ("whatif_tp", W, "--tp", "1", "2"),
                                  ("fmt", P, "--format", "json", "csv"), ("e2e_profile", E, "--profile", "vllm", "sglang")):
        c(f"r5_twice_eq_{tag}", base + [f"{flag}={a}", flag, b], want=[flag])
        c(f"r5_twice_eqeq_{tag}", base + [f"{flag}={a}", f"{flag}={b}"], want=[flag])
        c(f"r5_twice_same_{tag}", base + [f"{flag}={a}", flag, a], "any")
        c(f"r5_eq_empty_{tag}", base + [f"{flag}="], want=[flag])
        c(f"r5_eq_space_{tag}", base + [f"{flag}= "], want=[flag])


def add_yaml(c):
    """YAML features a GPU description has no use for: tags, merge keys, a list or scalar at the top."""
    gy = ["predict", "--kernel", K, "--gpu"]
    for n, text, exp in (("tag_python", "extends: h200\nsms: !!python/int 132\n", "bad"),
                         ("tag_str", "extends: h200\nsms: !!str 132\n", "bad"),
                         ("tag_float", "extends: h200\ntdp: !!float 700\n", "bad"),
                         ("tag_local", "extends: h200\nsms: !mine 132\n", "bad"),
                         ("tag_map", "extends: h200\ndram: !!map\n  bandwidth: 4.8 TB/s\n", "bad"),
                         ("tag_binary", "extends: h200\nname: !!binary aDIwMA==\n", "bad"),
                         ("merge_key", "extends: h200\ndram:\n  <<: {bandwidth: 4.8 TB/s}\n", "bad"),
                         ("top_list", "- extends: h200\n", "bad"), ("top_list2", "- h200\n- h100-sxm\n", "bad"),
                         ("top_scalar", "h200\n", "bad"), ("top_int", "132\n", "bad"),
                         ("key_case", "extends: h200\nSms: 100\n", "bad"),
                         ("anchor_alias", "extends: h200\ndram: &d\n  bandwidth: 4.8 TB/s\nl2: *d\n", "any"),
                         ("flow_map", "{extends: h200, sms: 100}\n", "any"), ("doc_end", "extends: h200\n...\n", "any"),
                         ("tab_value", "extends: h200\nsms:\t100\n", "any")):
        c(f"r5_yaml_{n}", gy + ["{T}/y5_" + n + ".yaml"], exp, want=["y5_" + n + ".yaml"] if exp == "bad" else [],
          files={f"y5_{n}.yaml": text})
    c("r5_yaml_list_msg", gy + ["{T}/y5_lm.yaml"], want=["a map"], files={"y5_lm.yaml": "- extends: h200\n"})
    c("r5_yaml_tag_msg", gy + ["{T}/y5_tm.yaml"], want=["tag"], files={"y5_tm.yaml": "extends: h200\nsms: !!str 1\n"})
    prof = read("models/profiles/vllm.yaml").decode()
    c("r5_profile_tag", E + ["--profile", "{T}/p5_tag.yaml"], want=["p5_tag.yaml"],
      files={"p5_tag.yaml": prof.replace("\n", "\nunused_tag_probe: !!python/none x\n", 1)})


def add_cr_only(c):
    """CR-only line ends (classic Mac) in every CSV/JSONL reader: refused naming the line ends, not a made-up column."""
    for n, argv, text in (
            ("requests", S + ["--requests", "{T}/cr5_requests.csv"],
             "arrival_s,prompt_tokens,output_tokens\r0,10,10\r1,10,10\r"),
            ("batch", ["predict", "--gpu", "h200", "--batch", "{T}/cr5_batch.csv"],
             "family,m,n,k,dtype\rgemm,64,64,64,bf16\r"),
            ("neusight", ["trace", "import", "--from", "neusight", "{T}/cr5_neusight.csv", "-o", "{T}/cr5o"],
             read(NS).decode().replace("\n", "\r")),
            ("jsonl", S + ["--requests", "{T}/cr5_requests.jsonl"],
             '{"arrival_s":0,"prompt_tokens":10,"output_tokens":10}\r{"arrival_s":1,"prompt_tokens":10,"output_tokens":10}\r'),
            ("prompt_file", SR + ["--prompt-len", "file:{T}/cr5_lens.txt"], "10\r20\r30\r")):
        fname = next(x for x in argv if "cr5_" in x and "cr5o" not in x).split("/")[-1]
        c(f"r5_cr_only_{n}", argv, want=[fname, "CR"], files={fname: text})


def add_fifo(c):
    """A named pipe nobody writes to, given to every reader: refused within seconds, never a hang."""
    for n, argv in (("requests", S + ["--requests", "{T}/fifo5"]), ("model", [x if x != "llama-3-8b" else "{T}/fifo5"
                                                                               for x in E]),
                    ("batch", ["predict", "--gpu", "h200", "--batch", "{T}/fifo5"]),
                    ("profile", E + ["--profile", "{T}/fifo5"]), ("gpu", ["predict", "--gpu", "{T}/fifo5", "--kernel", K]),
                    ("calibrate", ["calibrate", "{T}/fifo5", "--gpu", "h200"]),
                    ("json_in", ["report", "--json-in", "{T}/fifo5", "-o", "{T}/fifo5.html"]),
                    ("import", ["trace", "import", "--from", "neusight", "{T}/fifo5", "-o", "{T}/fifo5o"]),
                    ("chrome", ["trace", "import", "--chrome", "{T}/fifo5"]),
                    ("prompt_len", SR + ["--prompt-len", "file:{T}/fifo5"]),
                    ("summary", ["trace", "summary", "{T}/fifo5"]),
                    ("tables", ["tune", "--gpu", "h200", "--family", "gemm", "--plan", "--tables", "{T}/fifo5"])):
        c(f"r5_fifo_{n}", argv, want=["fifo5"], files={"fifo5": FIFO})


def add_fifo_outputs(c):
    """A named pipe nobody reads, given as every writer's output: refused at once, never a hang on open()."""
    for n, argv in (("report", ["report", "--sample", "-o", "{T}/ofifo5"]),
                    ("report_json_out", ["report", "--sample", "-o", "{T}/o5.html", "--json-out", "{T}/ofifo5"]),
                    ("e2e_trace", E + ["--trace-out", "{T}/ofifo5"]), ("sim_trace", SR + ["--trace-out", "{T}/ofifo5"]),
                    ("calibrate", ["calibrate", "tests/data/calibrate/good.json", "--gpu", "h100-sxm", "-o", "{T}/ofifo5"]),
                    ("collectives", ["trace", "fit-collectives", "-o", "{T}/ofifo5"]),
                    ("paths", ["trace", "paths", "-o", "{T}/ofifo5"]),
                    ("cases", ["trace", "import", "--lct", "traces/e2e/h200/graph_decode.lct.gz", "--cases",
                               "traces/e2e/h200/graph_decode.cases.csv", "-o", "{T}/ofifo5"]),
                    ("plan", ["tune", "--plan", "--gpu", "h200", "--family", "gemm", "--out", "{T}/ofifo5"])):
        c(f"r5_fifo_out_{n}", argv, want=["ofifo5"], files={"ofifo5": FIFO})


def add_dup_gpus(c):
    """One GPU named twice, by key and by file (or by two spellings of one file): refused naming both."""
    for n, gl in (("key_file", "h200,gpus/h200.yaml"), ("file_dotslash", "gpus/h200.yaml,./gpus/h200.yaml"),
                  ("file_slashes", "gpus/h200.yaml,gpus//h200.yaml"), ("file_key", "gpus/h100-sxm.yaml,h100-sxm")):
        a, b = gl.split(",")
        c(f"r5_dup_gpus_whatif_{n}", W[:-1] + [gl], want=["--gpus", a, b])
        c(f"r5_dup_gpu_predict_{n}", ["predict", "--gpu", gl, "--kernel", K], want=["--gpu", a, b])
        c(f"r5_dup_gpus_cap_{n}", WC[:-3] + [gl, "--rate", "2"], want=["--gpus", a, b])
    c("r5_dup_gpus_edited_ok", W[:-1] + ["h200,{T}/h200e.yaml"], "any",
      files={"h200e.yaml": "extends: h200\nname: edited\ndram:\n  bandwidth: 5 TB/s\n"})


def add_scoped_sets(c):
    """`--set GPU:key=value` on every command that takes GPUs: applied to that GPU, refused when it names another."""
    for tag, base in (("predict", P), ("diagnose", D), ("e2e", E), ("sim", SR), ("whatif", W)):
        flag = "--gpus" if tag == "whatif" else "--gpu"
        c(f"r5_scoped_set_other_{tag}", base + ["--set", "h100-sxm:sms=100"], want=["--set", "h100-sxm", flag])
        c(f"r5_scoped_set_own_{tag}", base + ["--set", "h200:sms=100"], "any")
        c(f"r5_scoped_set_case_{tag}", base + ["--set", "H200:sms=100"], want=["--set", "H200"])
    c("r5_scoped_set_two_gpus", ["predict", "--gpu", "h200,h100-sxm", "--kernel", K, "--set", "h100-sxm:sms=100"], "any")
    c("r5_scoped_set_gpus_show", ["gpus", "show", "h200", "--set", "h200:sms=100"], "any")
    c("r5_scoped_set_gpus_show_other", ["gpus", "show", "h200", "--set", "h100-sxm:sms=100"], want=["--set", "h100-sxm"])
    c("r5_scoped_set_file", ["predict", "--gpu", "gpus/h200.yaml", "--kernel", K, "--set", "gpus/h200.yaml:sms=100"],
      "any")


def ns_with(col, value):
    rows = list(csv.reader(io.StringIO(read(NS).decode())))
    i = rows[0].index(col)
    rows[1][i] = value
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    return out.getvalue()


def add_leftovers(c):
    """Round 4's leftovers (NeuSight unused columns, graph_gap's message, sliding_window) and far-future arrivals."""
    for col in ("Warps per SM", "Blocks per SM", "CUDNN Version"):
        for v in ("nan", "inf", "-inf", "NaN"):
            tag = col.replace(" ", "_") + "_" + v.replace("-", "m")
            c(f"r5_neusight_{tag}", ["trace", "import", "--from", "neusight", "{T}/ns5_" + tag + ".csv", "-o", "{T}/ns5o"],
              want=["ns5_" + tag + ".csv:2", col], files={f"ns5_{tag}.csv": ns_with(col, v)})
    c("r5_set_graph_gap_neg", P + ["--set", "graph_gap=-1us"], want=["--set graph_gap", ">= 0"])
    c("r5_set_graph_gap_zero", P + ["--set", "graph_gap=0us"], "any")
    c("r5_set_launch_overhead_neg", P + ["--set", "launch_overhead=-1us"], want=["--set launch_overhead", "greater than zero"])
    c("r5_yaml_graph_gap_neg", ["predict", "--kernel", K, "--gpu", "{T}/gg5.yaml"], want=["gg5.yaml", ">= 0"],
      files={"gg5.yaml": "extends: h200\ngraph_gap: -1 us\n"})
    m = read("models/presets/llama-3-8b.json").decode()
    sw = m.replace('"use_cache"', '"sliding_window": 8,\n  "use_cache"')
    for tag, argv in (("e2e", E), ("sim", SR), ("whatif", W)):
        argv = [x if x != "llama-3-8b" else "{T}/sw5.json" for x in argv]
        c(f"r5_sliding_window_{tag}_json", argv + ["--format", "json"], "good", want=["sliding_window"],
          files={"sw5.json": sw})
    c("r5_sliding_window_cap_json", ["whatif", "--model", "{T}/sw5.json", "--gpus", "h200", "--rate", "2", "--tp", "1",
                                      "--num-requests", "50", "--format", "json"], "good", want=["sliding_window"],
      files={"sw5.json": sw})
    c("r5_positions_cap_json", WC + ["--tp", "1", "--num-requests", "50", "--prompt-len", "9000", "--output-len", "8",
                                     "--format", "json"], "good", want=["max_position_embeddings"])
    c("r5_sliding_window_e2e_table", [x if x != "llama-3-8b" else "{T}/sw5.json" for x in E], "good",
      want=["sliding_window"], files={"sw5.json": sw})
    rs = m.replace('"rope_scaling": null', '"rope_scaling": {"rope_type": "llama3", "factor": null}')
    for n, extra, exp in (("dtype_conflict", '"dtype": "float16",', "bad"), ("dtype_same", '"dtype": "bfloat16",', "any"),
                          ("dtype_bad_new", '"dtype": "bf16",', "bad")):
        c(f"r5_model_{n}", [x if x != "llama-3-8b" else "{T}/d5_" + n + ".json" for x in E], exp,
          want=["d5_" + n + ".json", "dtype"] if exp == "bad" else [],
          files={f"d5_{n}.json": m.replace('"use_cache"', extra + '\n  "use_cache"')})
    c("r5_rope_scaling_null_factor", [x if x != "llama-3-8b" else "{T}/rs5.json" for x in E], want=["rs5.json", "factor"],
      files={"rs5.json": rs})
    for n, rate, num in (("tiny", "1e-300", "5"), ("slow", "1e-9", "5"), ("edge", "1e-8", "20")):
        c(f"r5_rate_far_future_{n}", S + ["--rate", rate, "--num-requests", num], want=["--rate"])
    c("r5_rate_slow_ok", S + ["--rate", "0.01", "--num-requests", "5"], "any")


def add_python_capi(c):
    """Python: a bool for an integer cell of predict_batch; C API: the error buffer of length 0, 1 and NULL."""
    for n, expr, exp, want in (
            ("batch_m_true", "loom.predict_batch('h200', [dict(family='gemm', m=True, n=64, k=64, dtype='bf16')])",
             "bad", ["m"]),
            ("batch_k_false", "loom.predict_batch('h200', [dict(family='gemm', m=64, n=64, k=False, dtype='bf16')])",
             "bad", ["k"]),
            ("batch_causal_true", "loom.predict_batch('h200', [dict(family='attention_prefill', batch=1, heads=32, "
                                  "kv_heads=8, seq=128, head_dim=128, causal=True, dtype='bf16')])", "good", []),
            ("batch_dtype_bytes", "loom.predict_batch('h200', [dict(family='gemm', m=64, n=64, k=64, dtype=b'bf16')])",
             "any", []),
            ("predict_dict", "loom.predict('h200', {'family': 'gemm'})", "bad", ["spec"]),
            ("e2e_float_batch", "loom.e2e('h200', 'llama-3-8b', 'decode', batch=4.0, context=64)", "bad", ["batch"]),
            ("e2e_big_context", "loom.e2e('h200', 'llama-3-8b', 'decode', context=2**64)", "bad", ["context"])):
        c(f"r5_py_{n}", ["@python", PY.format(expr=expr)], exp, want=want)
    for n, body, exp, want in (
            ("open_err_len0", "h = lib.loom_open(b'/nonexistent', None, err, 0)\nprint('ok' if not h else 'opened')",
             "good", ["ok"]),
            ("open_err_len1", "h = lib.loom_open(b'/nonexistent', None, err, 1)\n"
                              "print('ok' if not h and err.value == b'' else repr(err.raw[:4]))", "good", ["ok"]),
            ("open_err_null", "h = lib.loom_open(b'/nonexistent', None, None, 512)\nprint('ok' if not h else 'opened')",
             "good", ["ok"]),
            ("last_error_null", "print('ok' if lib.loom_last_error(None) else 'null')", "good", ["ok"]),
            ("tune_len1", "h = opened()\nr = lib.loom_tune(h, b'h200', b'gemm m=3000 n=6144 k=4096 dtype=bf16', cfg, 1, "
                          "None)\ndone(h, r, cfg.value)", "bad", ["config_len"])):
        c(f"r5_capi_{n}", ["@python", CAPI + body + "\n"], exp, want=want)


def add_schemas(c):
    """Every --format json answer carries its schema version (one shape per command)."""
    for n, argv in (("predict", P), ("diagnose", D), ("e2e", E), ("sim", SR), ("whatif", W), ("cap", WC),
                    ("gpus", ["gpus"]), ("gpus_show", ["gpus", "show", "h200"]), ("batch", BATCH),
                    ("tune", ["tune", "--gpu", "h200", "--kernel", "gemm m=3000 n=6144 k=4096 dtype=bf16"]),
                    ("summary_dir", ["trace", "summary", "traces/h200"]),
                    ("summary_lct", ["trace", "summary", "traces/e2e/h200/graph_decode.lct.gz"]),
                    ("chrome", ["trace", "import", "--chrome", "tests/data/trace/torch_profile_sample.json"])):
        c(f"r5_schema_{n}", argv + ["--format", "json"], "good", want=['"schema": "loom.'])


# Random kernels on every GPU, cold and warm, learned and analytical: no prediction below its own ceiling, none
# non-finite (exit 4 names the first that is).
CEILING = """import math, random, sys, loom
random.seed({seed})
r = random.randint
fams = [lambda: 'gemm m=%d n=%d k=%d dtype=%s' % (r(1, 9000), r(1, 9000), r(1, 9000), random.choice(['bf16', 'fp16', 'fp32', 'fp8'])),
        lambda: 'rms_norm rows=%d cols=%d dtype=bf16' % (r(1, 70000), r(1, 20000)),
        lambda: 'softmax rows=%d cols=%d dtype=fp32' % (r(1, 70000), r(1, 70000)),
        lambda: 'attention_decode batch=%d heads=32 kv_heads=8 seq_kv=%d head_dim=128 dtype=bf16' % (r(1, 256), r(1, 70000)),
        lambda: 'attention_prefill batch=%d heads=32 kv_heads=8 seq=%d head_dim=128 causal=%d dtype=bf16' % (r(1, 16), r(1, 8000), r(0, 1)),
        lambda: 'moe tokens=%d experts=8 topk=2 hidden=4096 inter=14336 dtype=bf16' % r(1, 8192)]
n = 0
for i in range({n}):
    spec, g = random.choice(fams)() + random.choice(['', ' l2=warm']), random.choice(loom.gpus())
    for model in ('learned', 'analytical'):
        try:
            p = loom.predict(g, spec, model=model)
        except ValueError:
            continue
        n += 1
        lat, ceil = p['latency_us'], p['ceiling_us']
        if not (math.isfinite(lat) and math.isfinite(ceil) and 0 < ceil <= lat * (1 + 1e-9)):
            print('loom: %s %s (%s): latency %r below its ceiling %r' % (g, spec, model, lat, ceil), file=sys.stderr)
            sys.exit(4)
print('ok', n)
"""


def add_ceiling(c):
    """Predictions never below their own ceiling (round 5 found l2=warm GEMMs on b200 below a shared-memory ceiling)."""
    for seed in (5, 11):
        c(f"r5_ceiling_random_{seed}", ["@python", CEILING.format(seed=seed, n=600)], "good", want=["ok"])


def add_report_schemas(c):
    """`loom report` given another command's JSON, or a newer schema: refused by the schema, not a key it lacks."""
    for n, flag, schema in (("validation_e2e", "--validation", "loom.e2e/1"), ("simulate_e2e", "--simulate", "loom.e2e/1"),
                            ("e2e_sim", "--e2e", "loom.simulate/1"), ("whatif_cap", "--whatif", "loom.whatif_capacity/1"),
                            ("e2e_whatif", "--e2e", "loom.whatif/1"), ("sim_future", "--simulate", "loom.simulate/9"),
                            ("e2e_noversion", "--e2e", "loom.e2e"), ("val_num", "--validation", 7)):
        c(f"r5_report_schema_{n}", ["report", flag, "{T}/rs5_" + n + ".json", "-o", "{T}/rs5.html"],
          want=["rs5_" + n + ".json", "schema"], files={f"rs5_{n}.json": '{"schema": %s}' % json.dumps(schema)})
