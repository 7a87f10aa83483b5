"""Probe cases (see probe_cases.py), eighth round continued: the Python module (every function with wrong types, NaN,
huge and negative numbers, bytes, NUL bytes, lone surrogates, unknown keywords, kernels that fit no GPU, and
e2e answers that must carry the CLI's warnings), the C API (NULL GPU in loom_tune, specs that fit no GPU, impl=
on the wrong family, a data folder with a broken GPU file), `--clock` on Pascal/Volta/Turing/Ada/Blackwell entries
and on edited GPUs, GPU files that `extends:` a catalogue entry with odd changes, and collectives on an edited GPU
(the ceiling check of round 7's checker)."""
from probe_cases import REPO
from probe_cases_r6 import PY6
from probe_cases_r7 import CHECK
from probe_cases_review import PY
from probe_cases_round3 import CAPI

K = "gemm m=64 n=64 k=64 dtype=bf16"
BIG = "gemm m=1000000 n=1000000 k=1000000 dtype=bf16"
ROW = "dict(family='gemm', m=64, n=64, k=64, dtype='bf16')"
# An e2e answer whose warnings must name `want` (exit 4 when they do not: the step was priced without a word).
WARN = ("import sys, loom\nr = {expr}\nw = ' | '.join(r.get('warnings', []))\nprint('warnings: ' + w)\n"
        "sys.exit(0 if {want!r} in w else 4)\n")


def add_round8b(c):
    add_python(c)
    add_capi(c)
    add_clock_extends(c)


def add_python(c):
    """Every function of the module: one-line ValueErrors naming the argument, never a traceback of another type,
    never an answer for a kernel no GPU can hold, never an e2e step priced without the CLI's warnings."""
    e2e = "loom.e2e('h200', 'llama-3-8b', 'decode', context=64"
    for n, expr, exp, want in (
            ("diagnose_big", f"loom.diagnose('h200', '{BIG}')", "bad", ["spec", "GB"]),
            ("diagnose_big_analytical", f"loom.diagnose('h200', '{BIG}', model='analytical')", "bad", ["spec"]),
            ("diagnose_softmax_cutlass", "loom.diagnose('h200', 'softmax rows=64 cols=64 dtype=bf16 impl=cutlass')",
             "bad", ["impl"]),
            ("predict_allreduce_torch", "loom.predict('h200', 'all_reduce bytes=1048576 gpus=8 impl=torch')", "bad",
             ["impl"]),
            ("batch_allreduce_loom", "loom.predict_batch('h200', [dict(family='all_reduce', bytes=1048576, gpus=8, "
                                     "impl='loom')])", "bad", ["rows[0]", "impl"]),
            ("batch_moe_cutlass", "loom.predict_batch('h200', [dict(family='moe', tokens=64, experts=8, topk=2, "
                                  "hidden=4096, inter=14336, dtype='bf16', impl='cutlass')])", "bad", ["rows[0]", "impl"]),
            ("batch_big", f"loom.predict_batch('h200', [{ROW}, dict(family='gemm', m=10**6, n=10**6, k=10**6, "
                          "dtype='bf16')])", "bad", ["rows[1]"]),
            ("batch_empty_list", "loom.predict_batch('h200', [])", "any", []),
            ("batch_generator", f"loom.predict_batch('h200', (r for r in [{ROW}]))", "good", []),
            ("batch_int_key", "loom.predict_batch('h200', [{1: 2, 'family': 'gemm'}])", "bad", ["rows[0]"]),
            ("batch_threads_huge", f"loom.predict_batch('h200', [{ROW}], threads=2**40)", "bad", ["threads"]),
            ("batch_threads_neg", f"loom.predict_batch('h200', [{ROW}], threads=-1)", "bad", ["threads"]),
            ("batch_model_bad", f"loom.predict_batch('h200', [{ROW}], model='xgb')", "bad", ["model"]),
            ("batch_gpu_cell_unknown", "loom.predict_batch('h200', [dict(family='gemm', m=64, n=64, k=64, "
                                       "dtype='bf16', gpu='h2000')])", "bad", ["rows[0]", "h2000"]),
            ("batch_gpu_cell_list", "loom.predict_batch('h200', [dict(family='gemm', m=64, n=64, k=64, "
                                    "dtype='bf16', gpu='h200,b200')])", "bad", ["rows[0]"]),
            ("batch_l2_bad", "loom.predict_batch('h200', [dict(family='gemm', m=64, n=64, k=64, dtype='bf16', "
                             "l2='hot')])", "bad", ["l2"]),
            ("predict_nul_gpu", f"loom.predict('h2\\x0000', '{K}')", "bad", ["gpu"]),
            ("predict_nul_spec", "loom.predict('h200', 'gemm m=64\\x00 n=64 k=64 dtype=bf16')", "bad", ["spec"]),
            ("predict_surrogate", f"loom.predict('h200\\udcff', '{K}')", "bad", ["gpu"]),
            ("predict_bytes_gpu", f"loom.predict(b'h200', '{K}')", "any", []),
            ("predict_none_spec", "loom.predict('h200', None)", "bad", ["spec"]),
            ("predict_int_spec", "loom.predict('h200', 5)", "bad", ["spec"]),
            ("predict_unknown_kw", f"loom.predict('h200', '{K}', modle='analytical')", "bad", ["modle"]),
            ("predict_extra_positional", f"loom.predict('h200', '{K}', 'analytical', 5)", "bad", ["predict"]),
            ("predict_gpu_dir", f"loom.predict('gpus', '{K}')", "bad", ["gpus"]),
            ("predict_gpu_devnull", f"loom.predict('/dev/null', '{K}')", "bad", ["/dev/null"]),
            ("predict_gpu_set_scope", f"loom.predict('h200:sms=64', '{K}')", "bad", ["gpu"]),
            ("predict_l2_warm_ok", f"loom.predict('h200', '{K} l2=warm')", "good", []),
            ("tune_big", f"loom.tune('h200', '{BIG}')", "bad", ["spec"]),
            ("tune_none", "loom.tune(None, 'gemm m=64 n=64 k=64 dtype=bf16')", "bad", ["tune"]),
            ("tune_bool", "loom.tune(True, 'gemm m=64 n=64 k=64 dtype=bf16')", "bad", ["bool"]),
            ("gpus_arg", "loom.gpus('h200')", "bad", ["gpus"]),
            ("e2e_tp_huge", e2e + ", tp=2**40)", "bad", ["e2e"]),
            ("e2e_tp_neg", e2e + ", tp=-2)", "bad", ["tp"]),
            ("e2e_batch_neg", e2e + ", batch=-1)", "bad", ["batch"]),
            ("e2e_batch_float_nan", e2e + ", batch=float('nan'))", "bad", ["batch"]),
            ("e2e_context_float", e2e[:-len(", context=64")] + ", context=64.5)", "bad", ["context"]),
            ("e2e_profile_dir", e2e + ", profile='models')", "bad", ["models"]),
            ("e2e_profile_devnull", e2e + ", profile='/dev/null')", "bad", ["/dev/null"]),
            ("e2e_model_dir", "loom.e2e('h200', 'models', 'decode', context=64)", "bad", ["models"]),
            ("e2e_kernel_model_empty", e2e + ", kernel_model='')", "bad", ["kernel_model"]),
            ("e2e_mode_empty_ok", e2e + ", mode='')", "good", []),
            ("e2e_prefill_context_ok", "loom.e2e('h200', 'llama-3-8b', 'prefill', seq=128, context=64)", "good", [])):
        c(f"r8_py_{n}", ["@python", PY6.format(expr=expr)], exp, want=want)
    for n, expr, want in (
            ("position", "loom.e2e('h200', 'llama-3-8b', 'decode', batch=1, context=100000)", "max_position_embeddings"),
            ("sliding_window", "loom.e2e('h200', 'mistral-7b', 'decode', batch=1, context=30000)", "sliding_window"),
            ("memory", "loom.e2e('h100-sxm', 'llama-3-70b', 'decode', batch=1, context=100)", "DOES NOT FIT"),
            ("memory_prefill", "loom.e2e('h200', 'llama-3-8b', 'prefill', batch=128, seq=8192)", "DOES NOT FIT")):
        c(f"r8_py_e2e_warns_{n}", ["@python", WARN.format(expr=expr, want=want)], "good", want=[want])
    # A family tune cannot take: the message quotes the CLI command (`loom tune --kernel`), so not PY6's flag check.
    c("r8_py_tune_collective", ["@python", PY.format(expr="loom.tune('h200', 'all_reduce bytes=1048576 gpus=8')")],
      want=["spec", "all_reduce"])
    c("r8_py_e2e_no_warning", ["@python", WARN.format(expr="loom.e2e('h200', 'llama-3-8b', 'decode', context=64)",
                                                      want="")], "any")


def add_capi(c):
    """The C API: a NULL GPU in loom_tune named as the GPU, kernels no GPU can hold, impl= on the wrong family, a
    data folder with a GPU file that does not parse."""
    for n, body, exp, want in (
            ("tune_null_gpu", "h = opened()\nr = lib.loom_tune(h, None, b'" + K + "', cfg, 64, None)\ndone(h, r, 'x')",
             "bad", ["gpu"]),
            ("tune_big", "h = opened()\nr = lib.loom_tune(h, b'h200', b'" + BIG + "', cfg, 64, None)\ndone(h, r, 'x')",
             "bad", ["kernel"]),
            ("predict_big", "h = opened()\nr = lib.loom_predict(h, b'h200', b'" + BIG + "', C.byref(p))\ndone(h, r, 'x')",
             "bad", ["kernel"]),
            ("predict_softmax_cutlass", "h = opened()\nr = lib.loom_predict(h, b'h200', b'softmax rows=64 cols=64 "
                                        "dtype=bf16 impl=cutlass', C.byref(p))\ndone(h, r, 'x')", "bad", ["impl"]),
            ("predict_allreduce_library", "h = opened()\nr = lib.loom_predict(h, b'h200', b'all_reduce bytes=1048576 "
                                          "gpus=8 impl=library', C.byref(p))\ndone(h, r, 'x')", "bad", ["impl"]),
            ("predict_learned_ceiling", "h = opened(None, b'learned')\nr = lib.loom_predict(h, b'b200', b'" + K +
             " l2=warm', C.byref(p))\nok = p.latency_us >= p.ceiling_us > 0\ndone(h, r, 'ok' if ok else 'below')",
             "good", ["ok"]),
            ("predict_gpu_file_ok", "h = opened()\nr = lib.loom_predict(h, b'examples/edited-h100.yaml', b'" + K +
             "', C.byref(p))\ndone(h, r, 'ok')", "good", ["ok"]),
            ("predict_gpu_scope", "h = opened()\nr = lib.loom_predict(h, b'h200:sms=64', b'" + K +
             "', C.byref(p))\ndone(h, r, 'x')", "bad", ["gpu"]),
            ("open_broken_gpu_dir", "h = lib.loom_open(b'{T}/capi8', None, err, 512)\n"
                                    "print('loom: ' + err.value.decode(), file=sys.stderr) if not h else print('opened')\n"
                                    "sys.exit(2 if not h else 0)", "bad", ["bad.yaml"])):
        files = {"capi8/bad.yaml": "name: x\nsms: [\n"} if "broken" in n else None
        c(f"r8_capi_{n}", ["@python", CAPI + body + "\n"], exp, want=want, files=files)


def add_clock_extends(c):
    """--clock on every architecture's entries and on edited GPUs; GPU files that extend a catalogue entry with odd
    changes; collectives on an edited GPU never below their ceiling (round 7's checker)."""
    fp32 = "gemm m=4096 n=4096 k=4096 dtype=fp32"
    for g in ("p100-pcie-16gb", "p4", "v100", "t4", "rtx-4090", "l40", "rtx-pro-6000-blackwell-server", "b200", "h20"):
        for clock in ("sustained", "auto"):
            c(f"r8_clock_{clock}_{g}", ["predict", "--gpu", g, "--kernel", fp32, "--clock", clock, "--format", "json"],
              "good")
    for n, argv in (("e2e_b200_auto", ["e2e", "--gpu", "b200", "--model", "llama-3-8b", "--phase", "decode", "--batch",
                                       "8", "--context", "1024", "--clock", "auto"]),
                    ("sim_l4_sustained", ["simulate", "--gpu", "l4", "--model", "llama-3.2-1b", "--rate", "1",
                                          "--num-requests", "5", "--clock", "sustained"]),
                    ("whatif_rate_auto", ["whatif", "--model", "llama-3-8b", "--gpus", "h200,b200", "--rate", "1",
                                          "--num-requests", "20", "--clock", "auto"])):
        c(f"r8_clock_{n}", argv + ["--format", "json"], "good")
    for n, clock in (("upper", "Sustained"), ("space", "auto "), ("both", "boost,auto"), ("num", "1500")):
        c(f"r8_clock_bad_{n}", ["predict", "--gpu", "h200", "--kernel", K, "--clock", clock], want=["--clock"])
    for n, text, exp, want in (
            ("sms_only", "extends: h200\nname: h200 half\nsms: 66\n", "good", []),
            ("clock_above_boost", "extends: h200\nname: x\nclock: {sustained: 2500 MHz}\n", "bad", ["ext8_clock_above"]),
            ("dram_zero", "extends: h200\nname: x\ndram: {bandwidth: 0 TB/s}\n", "bad", ["ext8_dram_zero", "bandwidth"]),
            ("arch_change", "extends: h200\nname: x\narchitecture: blackwell\n", "any", []),
            ("arch_typo", "extends: h200\nname: x\narchitecture: hoper\n", "bad", ["hoper"]),
            ("extends_list", "extends: [h200, b200]\nname: x\n", "bad", ["extends"]),
            ("extends_self_key", "extends: ext8_extends_self_key\nname: x\n", "bad", ["extends"]),
            ("extends_empty", "extends: ''\nname: x\n", "bad", ["extends"]),
            ("extends_all", "extends: all\nname: x\n", "bad", ["all"])):
        c(f"r8_extends_{n}", ["predict", "--gpu", "{T}/ext8_" + n + ".yaml", "--kernel", K], exp, want=want,
          files={f"ext8_{n}.yaml": text})
    coll = "{T}/r8coll.csv"
    files = {"r8coll.csv": "family,bytes,gpus,impl\nall_reduce,146519824,8,\nall_reduce,255655692,4,\n"
                           "reduce_scatter,172401763,2,\nall_gather,33554432,8,\nsend_recv,4194304,,\n"
                           "all_reduce,65536,8,custom\n"}
    S = lambda *kv: [x for s in kv for x in ("--set", s)]  # noqa: E731
    for g in ("b200", "h200", "h100-sxm", "a100-sxm4-80gb"):
        base = ["predict", "--gpu", g, "--batch", coll]
        c(f"r8_set_collectives_{g}", ["@python", CHECK.format(base=base, variants=[
            (S("clock.sustained=1200MHz"), "any"), (S("dram.bandwidth=1TB/s"), "any"), (S("sms=64"), "any"),
            (S("clock.sustained=1200MHz", "dram.bandwidth=1TB/s"), "any")])], "good", files=files)
    c("r8_set_collectives_ext", ["@python", CHECK.format(base=["predict", "--gpu", "{T}/ext8c.yaml", "--batch", coll],
                                                         variants=[(["--clock", "sustained"], "any")])], "good",
      files=dict(files, **{"ext8c.yaml": "extends: b200\nname: slow b200\nclock: {sustained: 1200 MHz}\n"}))
