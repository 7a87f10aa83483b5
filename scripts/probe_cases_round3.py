"""Probe cases (see probe_cases.py), third round: the C API (through ctypes: NULL pointers, empty and unknown
names, short buffers, a folder without GPUs), `tune --kernel` keys the tune tables do not model (CLI, C API and
Python), Python arguments given as bools or beyond the CLI's limits, usage and version text on a full disk, end-to-end
case lists that disagree with themselves (validate --e2e), and scripts/trim-lct.py."""
import os

from probe_cases import REPO, read  # noqa: F401

K = "gemm m=64 n=64 k=64 dtype=bf16"
TK = "gemm m=3000 n=6144 k=4096 dtype=bf16"
MOE = "moe tokens=64 experts=8 topk=2 hidden=4096 inter=1024 dtype=bf16"
HUGE = "gemm m=1000000000 n=1000000000 k=1000000000 dtype=bf16"

# The C API through ctypes: status 2 -> 'loom: ' + loom_last_error (exit 2); a NULL handle -> 'loom: ' + err.
CAPI = """import ctypes as C, os, sys
lib = C.CDLL(os.path.join(os.environ['PYTHONPATH'], '..', 'libloom_c.so'))
class P(C.Structure):
    _fields_ = [('latency_us', C.c_double), ('ceiling_us', C.c_double), ('analytical_us', C.c_double),
                ('learned', C.c_int), ('bottleneck', C.c_char * 32), ('config', C.c_char * 64)]
lib.loom_open.restype = C.c_void_p
lib.loom_open.argtypes = [C.c_char_p, C.c_char_p, C.c_char_p, C.c_size_t]
lib.loom_last_error.restype = C.c_char_p
lib.loom_last_error.argtypes = [C.c_void_p]
lib.loom_predict.argtypes = [C.c_void_p, C.c_char_p, C.c_char_p, C.c_void_p]
lib.loom_tune.argtypes = [C.c_void_p, C.c_char_p, C.c_char_p, C.c_char_p, C.c_size_t, C.c_void_p]
lib.loom_close.argtypes = [C.c_void_p]
err = C.create_string_buffer(512)
def opened(d=None, m=b'analytical'):
    h = lib.loom_open(d, m, err, 512)
    if not h:
        print('loom: ' + err.value.decode('utf-8', 'replace'), file=sys.stderr)
        sys.exit(2)
    return h
def done(h, rc, *shown):
    if rc == 2:
        print('loom: ' + lib.loom_last_error(h).decode('utf-8', 'replace'), file=sys.stderr)
        sys.exit(2)
    if rc != 0:
        print('status %d: %s' % (rc, lib.loom_last_error(h)), file=sys.stderr)
        sys.exit(1)
    print(*shown)
p = P()
cfg = C.create_string_buffer(64)
us = C.c_double(-1)
"""

PY = ("import sys, loom\ntry:\n    r = {expr}\nexcept ValueError as e:\n    print('loom: ' + str(e), file=sys.stderr)\n"
      "    sys.exit(2)\nprint(repr(r))\n")

# A command with stdout on /dev/full (the probe's own stdout is a pipe): its exit status and stderr, as it gave them.
FULL = ("import os, subprocess, sys\nloom = os.path.join(os.environ['PYTHONPATH'], '..', 'loom')\n"
        "r = subprocess.run([loom] + {argv!r}, stdout=open('/dev/full', 'w'))\nsys.exit(r.returncode)\n")
# scripts/trim-lct.py, stderr and exit status passed through.
TRIM = ("import subprocess, sys\nr = subprocess.run([sys.executable, 'scripts/trim-lct.py'] + {argv!r}{out})\n"
        "sys.exit(r.returncode)\n")


def add_round3(c):
    add_capi(c)
    add_tune_keys(c)
    add_python3(c)
    add_full(c)
    add_e2e_lists(c)
    add_trim(c)
    add_limits(c)
    add_serving_runs(c)
    add_env(c)


def add_capi(c):
    """Every C API function with NULL pointers, empty and unknown names, short buffers and impossible shapes."""
    for n, body, exp, want in (
            ("open_model_bogus", "h = opened(None, b'bogus')", "bad", ["model"]),
            ("open_model_empty", "h = opened(None, b'')", "bad", ["model"]),
            ("open_dir_missing", "h = opened(b'/nonexistent/gpus')", "bad", ["/nonexistent/gpus"]),
            ("open_dir_no_gpus", "h = opened(b'/etc')", "bad", ["data_dir"]),
            ("open_dir_file", "h = opened(b'/etc/passwd')", "bad", ["/etc/passwd"]),
            ("open_null_err_ok", "h = lib.loom_open(None, b'analytical', None, 512)\nr = h\ndone(h, 0 if h else 2, 'ok')",
             "good", []),
            ("predict_ok", f"h = opened()\nr = lib.loom_predict(h, b'h200', b'{K}', C.byref(p))\ndone(h, r, p.latency_us)",
             "good", []),
            ("predict_learned_ok", f"h = opened(None, None)\nr = lib.loom_predict(h, b'h200', b'{K}', C.byref(p))\n"
                                   "done(h, r, p.latency_us, p.learned)", "good", []),
            ("predict_gpu_null", f"h = opened()\nr = lib.loom_predict(h, None, b'{K}', C.byref(p))\ndone(h, r)", "bad",
             ["gpu"]),
            ("predict_gpu_empty", f"h = opened()\nr = lib.loom_predict(h, b'', b'{K}', C.byref(p))\ndone(h, r)", "bad",
             ["loom: gpu: unknown GPU"]),
            ("predict_gpu_upper", f"h = opened()\nr = lib.loom_predict(h, b'H200', b'{K}', C.byref(p))\ndone(h, r)",
             "bad", ["loom: gpu: unknown GPU"]),
            ("predict_gpu_bytes", f"h = opened()\nr = lib.loom_predict(h, b'h2\\xff\\x01', b'{K}', C.byref(p))\n"
                                  "done(h, r)", "bad", ["gpu"]),
            ("predict_gpu_yaml_missing", f"h = opened()\nr = lib.loom_predict(h, b'/nonexistent.yaml', b'{K}', "
                                         "C.byref(p))\ndone(h, r)", "bad", ["/nonexistent.yaml"]),
            ("predict_gpu_yaml_ok", f"h = opened()\nr = lib.loom_predict(h, b'gpus/h200.yaml', b'{K}', C.byref(p))\n"
                                    "done(h, r, p.latency_us)", "good", []),
            ("predict_kernel_null", "h = opened()\nr = lib.loom_predict(h, b'h200', None, C.byref(p))\ndone(h, r)", "bad",
             ["kernel"]),
            ("predict_kernel_empty", "h = opened()\nr = lib.loom_predict(h, b'h200', b'', C.byref(p))\ndone(h, r)", "bad",
             ["kernel"]),
            ("predict_out_null", f"h = opened()\nr = lib.loom_predict(h, b'h200', b'{K}', None)\ndone(h, r)", "bad", []),
            ("predict_huge", f"h = opened()\nr = lib.loom_predict(h, b'h200', b'{HUGE}', C.byref(p))\ndone(h, r)", "bad",
             ["kernel"]),
            ("predict_handle_null", f"r = lib.loom_predict(None, b'h200', b'{K}', C.byref(p))\ndone(None, r)", "bad", []),
            ("tune_ok", f"h = opened()\nr = lib.loom_tune(h, b'h200', b'{TK}', cfg, 64, C.byref(us))\n"
                        "done(h, r, cfg.value, us.value)", "good", []),
            ("tune_latency_only", f"h = opened()\nr = lib.loom_tune(h, b'h200', b'{TK}', None, 0, C.byref(us))\n"
                                  "done(h, r, us.value)", "good", []),
            ("tune_short_buffer", f"h = opened()\nr = lib.loom_tune(h, b'h200', b'{TK}', cfg, 4, C.byref(us))\n"
                                  "done(h, r, cfg.value)", "bad", ["config_len"]),
            ("tune_null_buffer_len", f"h = opened()\nr = lib.loom_tune(h, b'h200', b'{TK}', None, 64, C.byref(us))\n"
                                     "done(h, r, us.value)", "bad", ["config"]),
            ("tune_bogus_key", f"h = opened()\nr = lib.loom_tune(h, b'h200', b'{TK} bogus=1', cfg, 64, None)\n"
                               "done(h, r, cfg.value)", "bad", ["bogus=1"]),
            ("tune_l2_warm", f"h = opened()\nr = lib.loom_tune(h, b'h200', b'{TK} l2=warm', cfg, 64, None)\n"
                             "done(h, r, cfg.value)", "bad", ["l2=warm"]),
            ("tune_huge", f"h = opened()\nr = lib.loom_tune(h, b'h200', b'{HUGE}', cfg, 64, C.byref(us))\n"
                          "done(h, r, cfg.value, us.value)", "bad", ["DRAM"]),
            ("tune_gpu_null", f"h = opened()\nr = lib.loom_tune(h, None, b'{TK}', cfg, 64, None)\ndone(h, r)", "bad", []),
            ("tune_gpu_yaml", f"h = opened()\nr = lib.loom_tune(h, b'gpus/h200.yaml', b'{TK}', cfg, 64, None)\n"
                              "done(h, r)", "bad", ["catalogue key"]),
            ("tune_handle_null", f"r = lib.loom_tune(None, b'h200', b'{TK}', cfg, 64, None)\ndone(None, r)", "bad", []),
            ("close_null", "r = lib.loom_close(None)\nprint('closed')", "good", []),
            ("error_after_success", f"h = opened()\nlib.loom_predict(h, b'h999', b'{K}', C.byref(p))\n"
                                    f"r = lib.loom_predict(h, b'h200', b'{K}', C.byref(p))\n"
                                    "print(repr(lib.loom_last_error(h)) if lib.loom_last_error(h) else 'cleared')",
             "good", ["cleared"])):
        c(f"r3_capi_{n}", ["@python", CAPI + body + "\n"], exp, want=want)


def add_tune_keys(c):
    """`loom tune --kernel` takes the tune tables' vocabulary; any other key was silently ignored."""
    T = ["tune", "--gpu", "h200", "--kernel"]
    for n, spec, want in (("bogus", TK + " bogus=1", "bogus=1"), ("l2", TK + " l2=warm", "l2=warm"),
                          ("batch", TK + " batch=4", "batch=4"), ("scales", TK + " scales=rowwise", "scales=rowwise"),
                          ("config", TK + " config=64x64x64_s3_w4", "config="), ("moe_bogus", MOE + " bogus=3", "bogus=3"),
                          ("moe_seq", MOE + " seq=5", "seq=5")):
        c(f"r3_tune_key_{n}", T + [spec], want=[want])
    c("r3_tune_key_impl_ok", T + [TK + " impl=loom"], "good")
    c("r3_tune_moe_stage_ok", T + [MOE + " stage=w2"], "good")
    c("r3_tune_json_ok", T + [TK, "--format", "json"], "good")


def add_python3(c):
    """Python arguments: bools for ints, lengths beyond the CLI's limits, a decode seq that was ignored."""
    for n, expr, exp, want in (
            ("e2e_batch_true", "loom.e2e('h200', 'llama-3-8b', 'decode', batch=True, context=64)", "bad", ["batch"]),
            ("e2e_tp_true", "loom.e2e('h200', 'llama-3-8b', 'decode', tp=True, context=64)", "bad", ["tp"]),
            ("e2e_context_false", "loom.e2e('h200', 'llama-3-8b', 'decode', context=False)", "bad", ["context"]),
            ("e2e_batch_true_positional", "loom.e2e('h200', 'llama-3-8b', 'decode', True)", "bad", ["batch"]),
            ("batch_threads_true", "loom.predict_batch('h200', [dict(family='gemm', m=64, n=64, k=64, dtype='bf16')], "
                                   "threads=True)", "bad", ["threads"]),
            ("predict_model_true", f"loom.predict('h200', '{K}', model=True)", "bad", ["model"]),
            ("e2e_decode_seq_ignored", "loom.e2e('h200', 'llama-3-8b', 'decode', seq=5, context=64)", "bad", ["seq"]),
            ("e2e_context_huge", "loom.e2e('h200', 'llama-3-8b', 'decode', context=2**40)", "bad", ["context"]),
            ("e2e_seq_huge", "loom.e2e('h200', 'llama-3-8b', 'prefill', seq=2**40)", "bad", ["seq"]),
            ("e2e_step_huge", "loom.e2e('h200', 'llama-3-8b', 'prefill', batch=100000, seq=100000)", "bad",
             ["batch x seq"]),
            ("e2e_kv_huge", "loom.e2e('h200', 'llama-3-8b', 'decode', batch=100000, context=100000)", "bad",
             ["batch x context"]),
            ("e2e_decode_ok", "loom.e2e('h200', 'llama-3-8b', 'decode', batch=2, seq=1, context=64)", "good", []),
            ("e2e_prefill_ctx_ok", "loom.e2e('h200', 'llama-3-8b', 'prefill', seq=16, context=64)", "good", []),
            ("e2e_model_path_ok", "loom.e2e('h200', 'models/presets/llama-3-8b.json', 'decode', context=64)", "good", []),
            ("tune_bogus_key", f"loom.tune('h200', '{TK} bogus=1')", "bad", ["bogus=1"]),
            ("tune_batch_key", f"loom.tune('h200', '{TK} batch=8')", "bad", ["batch=8"]),
            ("tune_huge", f"loom.tune('h200', '{HUGE}')", "bad", ["DRAM"]),
            ("tune_ok", f"loom.tune('h200', '{TK}')", "good", [])):
        c(f"r3_py_{n}", ["@python", PY.format(expr=expr)], exp, want=want)


def add_full(c):
    """Usage and version text are output too: on a full disk they fail with one line and exit 2."""
    for n, argv in (("help", ["--help"]), ("version", ["--version"]), ("cmd_help", ["predict", "--help"]),
                    ("tune_help", ["tune", "--help"]), ("h", ["-h"]), ("predict", ["predict", "--gpu", "h200", "--kernel", K])):
        c(f"r3_full_{n}", ["@python", FULL.format(argv=argv)], want=["stdout"])
    c("r3_version_bytes_arg", ["--version", b"x\xff\x01"], want=["--version"])


def add_e2e_lists(c):
    """validate --e2e over a case list that disagrees with itself or with what loom models."""
    cases = read("traces/e2e/h200/graph_decode.cases.csv").decode()
    lct = "@LINK@" + os.path.join(REPO, "traces/e2e/h200/graph_decode.lct.gz")
    header = cases[:cases.index("case_id,")]
    row1 = "e2e_decode model=llama-3.2-1b batch=1 context=512 dtype=bf16 mode=cuda_graph"
    for n, text, want in (
            ("impl_unknown", cases.replace("#decode_impl=hf_static_cache", "#decode_impl=bogus"), ["decode_impl"]),
            ("no_cases", header + cases[cases.index("case_id,"):].split("\n")[0] + "\n", ["no cases"]),
            ("family_row", cases.replace("\n1,e2e_decode,", "\n1,e2e_prefill,"), ["case 1"]),
            ("family_unknown", cases.replace("\n1,e2e_decode,", "\n1,e2e_bogus,"), ["case 1"]),
            ("spec_key_unknown", cases.replace(row1, row1 + " bogus=1"), ["bogus=1"]),
            ("spec_seq_in_decode", cases.replace(row1, row1 + " seq=7"), ["seq=7"]),
            ("model_unknown", cases.replace("model=llama-3.2-1b batch=1 context=512", "model=nosuch batch=1 context=512"),
             ["g.cases.csv", "nosuch"]),
            ("tp_above_node", cases.replace(row1, row1 + " tp=16"), ["tp"]),
            ("batch0", cases.replace("batch=1 context=512", "batch=0 context=512"), ["batch"])):
        c(f"r3_e2e_{n}", ["validate", "--e2e", "--traces", "{T}/e3_" + n], want=want,
          files={f"e3_{n}/g.cases.csv": text, f"e3_{n}/g.lct.gz": lct})
    c("r3_e2e_ok", ["validate", "--e2e", "--traces", "{T}/e3_ok", "--format", "json"], "good",
      files={"e3_ok/g.cases.csv": cases, "e3_ok/g.lct.gz": lct})


def add_trim(c):
    """scripts/trim-lct.py: one 'loom: ' line and exit 2 for bad arguments, inputs and outputs."""
    src = "traces/e2e/h200/graph_decode.lct.gz"
    for n, argv, want, out in (
            ("no_args", [], ["usage"], ""), ("one_arg", [src], ["dst"], ""),
            ("reps_word", [src, "{T}/t1.lct.gz", "--reps", "x"], ["--reps"], ""),
            ("reps_neg", [src, "{T}/t2.lct.gz", "--reps", "-1"], ["--reps"], ""),
            ("src_missing", ["{T}/none.lct.gz", "{T}/t3.lct.gz"], ["none.lct.gz"], ""),
            ("src_dir", ["{T}", "{T}/t4.lct.gz"], [], ""),
            ("src_not_lct", ["README.md", "{T}/t5.lct.gz"], ["README.md"], ""),
            ("dst_missing_dir", [src, "{T}/no/such/t.lct.gz"], ["t.lct.gz"], ""),
            ("dst_dir", [src, "{T}"], [], ""),
            ("dst_full", [src, "/dev/full"], ["/dev/full"], ""),
            ("stdout_full", [src, "{T}/t6.lct.gz"], ["stdout"], ", stdout=open('/dev/full', 'w')")):
        c(f"r3_trim_{n}", ["@python", TRIM.format(argv=argv, out=out)], want=want)
    c("r3_trim_ok", ["@python", TRIM.format(argv=[src, "{T}/t7.lct.gz", "--reps", "2"], out="")], "good")


def add_limits(c):
    """Counts in serving profiles, quantized configs, and cross-field GPU limits broken by --set or a file."""
    import json
    E = ["e2e", "--gpu", "h200", "--model", "llama-3-8b", "--phase", "decode", "--batch", "8", "--context", "1024"]
    prof = read("models/profiles/torch-static.yaml").decode()
    for n, key, val in (("layer_ops_frac", "static_cache_layer_ops", "2.5"), ("step_ops_frac", "static_cache_step_ops", "0.5"),
                        ("small_ops_frac", "step_small_ops", "3.25"), ("layer_ops_big", "static_cache_layer_ops", "65"),
                        ("coll_host_neg", "collective_host_us", "-1"), ("coll_host_nan", "collective_host_us", ".nan"),
                        ("gqa_case", "static_cache_gqa", "Native")):
        lines = [ln for ln in prof.split("\n") if not ln.startswith(key + ":")] + [f"{key}: {val}"]
        c(f"r3_profile_{n}", E + ["--profile", "{T}/p3_" + n + ".yaml"], want=[key],
          files={f"p3_{n}.yaml": "\n".join(lines) + "\n"})
    c("r3_profile_layer_ops_whole_ok", E + ["--profile", "{T}/p3_ok.yaml"], "good",
      files={"p3_ok.yaml": prof.replace("static_cache_layer_ops: 3 ", "static_cache_layer_ops: 4.0 ")})
    base = json.loads(read("models/presets/llama-3-8b.json"))
    for n, q in (("awq", {"quant_method": "awq", "bits": 4}), ("fp8", {"quant_method": "fp8"}), ("empty", {}),
                 ("str", "gptq")):
        c(f"r3_model_quant_{n}", [x if x != "llama-3-8b" else "{T}/q_" + n + ".json" for x in E],
          want=["quantization_config"], files={f"q_{n}.json": json.dumps(dict(base, quantization_config=q))})
    c("r3_model_quant_null_ok", [x if x != "llama-3-8b" else "{T}/q_null.json" for x in E], "good",
      files={"q_null.json": json.dumps(dict(base, quantization_config=None))})
    P = ["predict", "--gpu", "h200", "--kernel", K]
    for n, kv, want in (("max_threads", "sm_limits.max_threads=64", "--set sm_limits.max_threads"),
                        ("smem_sm", "sm_limits.shared_memory=1KiB", "--set sm_limits.shared_memory"),
                        ("l1", "l1=1KiB", "--set l1"),
                        ("threads_block", "sm_limits.max_threads_per_block=4096", "--set sm_limits.max_threads_per_block"),
                        ("smem_block", "sm_limits.shared_memory_per_block=229KiB", "--set sm_limits.shared_memory_per_block")):
        c(f"r3_set_limit_{n}", P + ["--set", kv], want=[want])
    small = "extends: h200\nname: probe\n"
    for n, body, want in (("smem_block", "sm_limits:\n  shared_memory_per_block: 300 KiB\n", "lim_smem_block.yaml:4"),
                          ("max_threads", "sm_limits:\n  max_threads: 512\n", "lim_max_threads.yaml:4"),
                          ("l1", "l1: 64 KiB\n", "lim_l1.yaml:3")):
        c(f"r3_yaml_limit_{n}", ["predict", "--gpu", "{T}/lim_" + n + ".yaml", "--kernel", K], want=[want],
          files={f"lim_{n}.yaml": small + body})


def add_serving_runs(c):
    """validate --serving over a measured run whose per_request.csv disagrees with its requests.csv."""
    d = "traces/serving/engine/h100-sxm/static16/"
    req, per, its = (read(d + f).decode() for f in ("requests.csv", "per_request.csv", "iterations.csv"))
    p = per.split("\n")
    for n, text, want in (("dup_id", "\n".join(p[:2] + ["0" + p[2][p[2].index(","):]] + p[3:]), "twice"),
                          ("missing_row", "\n".join(p[:2] + p[3:]), "requests.csv holds"),
                          ("tokens", per.replace("0,0.000000,512,89,", "0,0.000000,512,9999,", 1), "requests.csv says"),
                          ("id_beyond", "\n".join(p[:2] + ["99" + p[2][p[2].index(","):]] + p[3:]), "id 99"),
                          ("id_frac", "\n".join(p[:2] + ["1.5" + p[2][p[2].index(","):]] + p[3:]), "id 1.5")):
        c(f"r3_serving_{n}", ["validate", "--serving", "--traces", "{T}/sv_" + n], want=["per_request.csv", want],
          files={f"sv_{n}/h100-sxm/r/requests.csv": req, f"sv_{n}/h100-sxm/r/per_request.csv": text,
                 f"sv_{n}/h100-sxm/r/iterations.csv": its})
    c("r3_serving_ok", ["validate", "--serving", "--traces", "{T}/sv_ok", "--format", "json"], "good",
      files={"sv_ok/h100-sxm/r/requests.csv": req, "sv_ok/h100-sxm/r/per_request.csv": per,
             "sv_ok/h100-sxm/r/iterations.csv": its})


# A command under another LOOM_HOME (the probe sets the repository's for every other case).
ENV = ("import os, subprocess, sys\nloom = os.path.join(os.environ['PYTHONPATH'], '..', 'loom')\n"
       "r = subprocess.run([loom] + {argv!r}, env=dict(os.environ, LOOM_HOME={home!r}, LOOM_PACKED_DIR='/nonexistent'))\n"
       "sys.exit(r.returncode)\n")


def add_env(c):
    """LOOM_HOME that is missing, a file, or a copy of gpus/ only: the message names the folder that lacks data."""
    E = ["e2e", "--gpu", "h200", "--model", "llama-3-8b", "--phase", "decode", "--batch", "1", "--context", "64"]
    P = ["predict", "--gpu", "h200", "--kernel", K]
    only_gpus = {"lh/gpus": "@LINK@" + os.path.join(REPO, "gpus")}
    for n, argv, home, want, files in (("missing_predict", P, "/nonexistent", "/nonexistent/gpus", {}),
                                       ("file_e2e", E, "/etc/passwd", "/etc/passwd/gpus", {}),
                                       ("gpus_only_e2e", E, "{T}/lh", "models/presets", only_gpus),
                                       ("gpus_only_simulate", ["simulate", "--gpu", "h200", "--model", "llama-3-8b",
                                                               "--rate", "1", "--num-requests", "3"], "{T}/lh",
                                        "models/presets", only_gpus),
                                       ("gpus_only_predict", P, "{T}/lh", "kernels/gemm.yaml", only_gpus),
                                       ("gpus_only_tune", ["tune", "--gpu", "h200", "--kernel", TK], "{T}/lh",
                                        "models/tune/h200-gemm.json", only_gpus)):
        c(f"r3_env_{n}", ["@python", ENV.format(argv=argv, home=home)], want=[want], files=files)
