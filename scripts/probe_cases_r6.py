"""Probe cases (see probe_cases.py), sixth round: quoted numbers in every YAML reader (GPU, profile, scheduler,
kernels/ config spaces), bad `split_k_dtypes` and other config-space lists through a LOOM_HOME copy of kernels/, GPU
file names with commas inside a list, the Python module's messages (no CLI flag in them, anywhere in the line),
NumPy arrays of odd dtypes / shapes / NaN, config.json fields loom does not model, deeply nested JSON and YAML, 10 MB
lines, CSV dialects (quoted commas and newlines, ragged rows, trailing commas, tabs, header only), gzip oddities
(truncated, concatenated members, .gz on plain text and gzip without .gz), Unicode look-alikes and zero-width spaces in
keys and names, environment variables (LOOM_HOME empty / a file, HOME unset, TMPDIR missing), outputs in missing
folders and outputs that are inputs by hard link, and interrupted writes (a write cut short by RLIMIT_FSIZE must leave
the old file whole). More in probe_cases_r6b.py."""
import gzip
import json
import os

from probe_cases import REPO, read  # noqa: F401
from probe_cases_round3 import CAPI
from probe_cases_round4 import CAL, CASES, E, K, LCT, NS, P, REQ, SR, TK, W, WC

# The Python module with the whole message checked: a ValueError naming a CLI flag (--tp) anywhere exits 5.
PY6 = ("import re, sys, loom\ntry:\n    r = {expr}\nexcept ValueError as e:\n    print('loom: ' + str(e), file=sys.stderr)\n"
       "    sys.exit(5 if re.search(r'(^|[ (`\\'])--[a-z]', str(e)) else 2)\nprint(repr(r))\n")
# The same under the system Python, which has NumPy (the probe's own Python may not): exit status passed through.
NPY = ("import os, subprocess, sys\ncode = {code!r}\n"
       "r = subprocess.run(['/usr/bin/python3', '-c', code], env=os.environ)\nsys.exit(r.returncode)\n")
# A command under a LOOM_HOME whose kernels/ is a copy with one file edited (old -> new); gpus, models, traces linked.
KHOME = ("import os, shutil, subprocess, sys, tempfile\nloom = os.path.join(os.environ['PYTHONPATH'], '..', 'loom')\n"
         "d = tempfile.mkdtemp()\nshutil.copytree({repo!r} + '/kernels', d + '/kernels')\n"
         "for x in ('models', 'gpus', 'traces'): os.symlink({repo!r} + '/' + x, d + '/' + x)\n"
         "p = d + '/kernels/' + {file!r}\nt = open(p).read()\nassert {old!r} in t, 'probe: text to edit not found'\n"
         "open(p, 'w').write(t.replace({old!r}, {new!r}, 1))\n"
         "r = subprocess.run([loom] + {argv!r}, env=dict(os.environ, LOOM_HOME=d))\nshutil.rmtree(d)\n"
         "sys.exit(r.returncode)\n")
# A command with environment variables set ({env}) and removed ({unset}); exit status and output passed through.
ENV6 = ("import os, subprocess, sys\nloom = os.path.join(os.environ['PYTHONPATH'], '..', 'loom')\n"
        "env = dict(os.environ, **{env!r})\nfor k in {unset!r}: env.pop(k, None)\n"
        "r = subprocess.run([loom] + {argv!r}, env=env)\nsys.exit(r.returncode)\n")
# A writer whose file writes are cut at 2 kB (RLIMIT_FSIZE; SIGXFSZ ignored, so write() fails with EFBIG) over an
# output that already exists: exit 2 is right, and the old file must be left whole (or the new one complete): a
# half-written file is exit 4.
CUT = ("import os, resource, signal, subprocess, sys\nloom = os.path.join(os.environ['PYTHONPATH'], '..', 'loom')\n"
       "out = {out!r}\nopen(out, 'w').write('OLD CONTENT\\n')\n"
       "def cut():\n    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
       "    resource.setrlimit(resource.RLIMIT_FSIZE, (2048, 2048))\n"
       "r = subprocess.run([loom] + {argv!r}, preexec_fn=cut)\n"
       "left = open(out, 'rb').read() if os.path.exists(out) else b''\n"
       "if r.returncode == 2 and left not in (b'OLD CONTENT\\n', b''):\n"
       "    print('loom: %s left half-written (%d bytes) after a failed write' % (out, len(left)), file=sys.stderr)\n"
       "    sys.exit(4)\nsys.exit(r.returncode)\n")
# The same command on an original file and on a variant that holds the same data (gzip members, .gz or not):
# refused is fine, but an answer must equal the original's (exit 4 when it differs).
SAME = ("import os, subprocess, sys\nloom = os.path.join(os.environ['PYTHONPATH'], '..', 'loom')\n"
        "a = subprocess.run([loom] + {orig!r}, capture_output=True)\nb = subprocess.run([loom] + {var!r}, capture_output=True)\n"
        "sys.stderr.buffer.write(b.stderr)\nif b.returncode: sys.exit(b.returncode)\n"
        "norm = lambda s, p: s.replace(p.encode(), b'X')\n"
        "if norm(a.stdout, {op!r}) != norm(b.stdout, {vp!r}):\n"
        "    sys.stdout.buffer.write(b.stdout[:300]); print('loom: the answer differs from the original file\\'s', file=sys.stderr); sys.exit(4)\n"
        "print('same')\n")


def add_round6(c):
    from probe_cases_r6b import add_round6b
    add_quoted(c)
    add_kernels_home(c)
    add_comma_lists(c)
    add_python_names(c)
    add_numpy(c)
    add_capi(c)
    add_outputs(c)
    add_round6b(c)


def gy(n, text):
    return ["predict", "--kernel", K, "--gpu", "{T}/" + n], {n: text}


def add_quoted(c):
    """A quoted value in a numeric field is a string in YAML: refused with FILE:LINE and the field, in every reader;
    quotes on a text field (name, description, extends) are fine."""
    for n, text, field in (("sms_dq", 'extends: h200\nsms: "132"\n', "sms"),
                           ("sms_sq", "extends: h200\nsms: '132'\n", "sms"),
                           ("bw", 'extends: h200\ndram:\n  bandwidth: "3.35 TB/s"\n', "dram.bandwidth"),
                           ("tdp", 'extends: h200\ntdp: "700 W"\n', "tdp"),
                           ("none", 'extends: h200\nl2:\n  size: "none"\n', "l2.size"),
                           ("flow", '{extends: h200, sms: "132"}\n', "sms")):
        argv, files = gy(f"q6_{n}.yaml", text)
        c(f"r6_quoted_gpu_{n}", argv, want=[f"q6_{n}.yaml:", field], files=files)
    for n, text in (("name", 'extends: h200\nname: "lab H200"\n'), ("extends", 'extends: "h200"\nsms: 132\n'),
                    ("extends_sq", "extends: 'h200'\n")):
        argv, files = gy(f"q6ok_{n}.yaml", text)
        c(f"r6_quoted_gpu_ok_{n}", argv, "good", files=files)
    prof = read("models/profiles/vllm.yaml").decode()
    for n, old, new, field in (("graph_gap", "graph_gap_us: 1.2", 'graph_gap_us: "1.2"', "graph_gap_us"),
                               ("mem_util", "memory_utilization: 0.9", "memory_utilization: '0.9'", "memory_utilization"),
                               ("sched_seqs", "max_num_seqs: 256", 'max_num_seqs: "256"', "max_num_seqs"),
                               ("sched_bool", "chunked_prefill: true", 'chunked_prefill: "true"', "chunked_prefill"),
                               ("bool", "batch_padding: false", 'batch_padding: "false"', "batch_padding"),
                               ("graph_list", "cuda_graph_sizes: [1, 2,", 'cuda_graph_sizes: ["1", 2,', "cuda_graph_sizes"),
                               ("yaml11_bool", "batch_padding: false", "batch_padding: no", "batch_padding")):
        c(f"r6_quoted_profile_{n}", E + ["--profile", "{T}/qp6_" + n + ".yaml"], want=["qp6_" + n + ".yaml:", field],
          files={f"qp6_{n}.yaml": prof.replace(old, new, 1)})
    for n, old, new in (("split_k", "split_k: [1, 2, 4, 8, 16]", 'split_k: [1, "2", 4, 8, 16]'),
                        ("regs", "regs_base:", "regs_base_probe:")):
        if n == "regs":
            continue
        c(f"r6_quoted_kernels_{n}", ["@python", KHOME.format(repo=REPO, file="gemm.yaml", old=old, new=new,
                                                             argv=["predict", "--gpu", "h200", "--kernel", TK])],
          want=["gemm.yaml:", "split_k"])


def add_kernels_home(c):
    """kernels/gemm.yaml's lists (split_k_dtypes, split_k, stages, tile dtypes) given bad values in a LOOM_HOME copy."""
    sk = "split_k_dtypes: [fp32, tf32, bf16, fp16]"
    for n, new, want in (("unknown", "split_k_dtypes: [fp32, fp99]", ["fp99"]),
                         ("dup", "split_k_dtypes: [fp32, bf16, bf16]", ["bf16", "twice"]),
                         ("empty", "split_k_dtypes: []", ["split_k_dtypes"]),
                         ("scalar", "split_k_dtypes: bf16", ["split_k_dtypes"]),
                         ("nested", "split_k_dtypes: [[bf16]]", ["split_k_dtypes"]),
                         ("null", "split_k_dtypes:", ["split_k_dtypes"]),
                         ("case", "split_k_dtypes: [BF16]", ["BF16"]),
                         ("map", "split_k_dtypes: {bf16: 1}", ["split_k_dtypes"])):
        c(f"r6_kernels_skd_{n}", ["@python", KHOME.format(repo=REPO, file="gemm.yaml", old=sk, new=new,
                                                          argv=["predict", "--gpu", "h200", "--kernel", TK])],
          want=["gemm.yaml:"] + want)
    for n, old, new, want in (("split_k_dup", "split_k: [1, 2, 4, 8, 16]", "split_k: [1, 2, 2, 4]", ["split_k", "twice"]),
                              ("split_k_empty", "split_k: [1, 2, 4, 8, 16]", "split_k: []", ["split_k"]),
                              ("split_k_huge", "split_k: [1, 2, 4, 8, 16]", "split_k: [1, 2, 99999999999]", ["split_k"])):
        c(f"r6_kernels_{n}", ["@python", KHOME.format(repo=REPO, file="gemm.yaml", old=old, new=new,
                                                      argv=["predict", "--gpu", "h200", "--kernel", TK])],
          want=["gemm.yaml:"] + want)
    c("r6_kernels_skd_ok_reordered", ["@python", KHOME.format(repo=REPO, file="gemm.yaml", old=sk,
                                                              new="split_k_dtypes: [fp16, bf16, tf32, fp32]",
                                                              argv=["predict", "--gpu", "h200", "--kernel", TK])], "good")


def add_comma_lists(c):
    """A GPU file whose name holds a comma, inside a list with other GPUs (alone it works since round 4)."""
    files = {"gc6/h200,lab.yaml": "extends: h200\nname: lab H200\nsms: 100\n"}
    for n, argv in (("predict", ["predict", "--gpu", "h100-sxm,{T}/gc6/h200,lab.yaml", "--kernel", K]),
                    ("predict_last", ["predict", "--gpu", "{T}/gc6/h200,lab.yaml,h100-sxm", "--kernel", K]),
                    ("whatif", W[:-1] + ["h100-sxm,{T}/gc6/h200,lab.yaml"]),
                    ("report", ["report", "--gpu", "h100-sxm,{T}/gc6/h200,lab.yaml", "--kernel", K, "-o", "{T}/gc6.html"]),
                    ("scoped_set", ["predict", "--gpu", "h100-sxm,{T}/gc6/h200,lab.yaml", "--kernel", K, "--set",
                                    "{T}/gc6/h200,lab.yaml:sms=90"])):
        c(f"r6_comma_list_{n}", argv, "good", files=files)
    c("r6_comma_list_missing", ["predict", "--gpu", "h100-sxm,{T}/gc6/none,x.yaml", "--kernel", K], want=["none"],
      files=files)


def add_python_names(c):
    """The Python module's messages name keyword arguments (tp=, batch=), never the CLI's flags, anywhere in the line."""
    for n, expr, want in (("tp3", "loom.e2e('h200', 'llama-3-8b', 'decode', batch=1, context=64, tp=3)", "tp"),
                          ("tp0", "loom.e2e('h200', 'llama-3-8b', 'decode', batch=1, context=64, tp=0)", "tp"),
                          ("batch0", "loom.e2e('h200', 'llama-3-8b', 'decode', batch=0, context=64)", "batch"),
                          ("batch_huge", "loom.e2e('h200', 'llama-3-8b', 'decode', batch=10**7, context=64)", "batch"),
                          ("seq0", "loom.e2e('h200', 'llama-3-8b', 'prefill', seq=0)", "seq"),
                          ("context_neg", "loom.e2e('h200', 'llama-3-8b', 'decode', context=-1)", "context"),
                          ("context_huge", "loom.e2e('h200', 'llama-3-8b', 'decode', context=2**31)", "context"),
                          ("phase", "loom.e2e('h200', 'llama-3-8b', 'sideways')", "phase"),
                          ("mode", "loom.e2e('h200', 'llama-3-8b', 'decode', mode='turbo')", "mode"),
                          ("profile", "loom.e2e('h200', 'llama-3-8b', 'decode', profile='nope')", "profile"),
                          ("model", "loom.e2e('h200', 'llama-9', 'decode')", "model"),
                          ("gpu", "loom.e2e('h999', 'llama-3-8b', 'decode')", "gpu"),
                                                    ("kernel_model", "loom.predict('h200', 'gemm m=64 n=64 k=64 dtype=bf16', model='magic')", "model"),
                          ("tune_gpu_file", "loom.tune('gpus/h200.yaml', 'gemm m=64 n=64 k=64 dtype=bf16')", "gpu"),
                          ("batch_threads", "loom.predict_batch('h200', [], threads=0)", "threads"),
                          ("diag_model", "loom.diagnose('h200', 'gemm m=64 n=64 k=64 dtype=bf16', model='x')", "model")):
        c(f"r6_py_names_{n}", ["@python", PY6.format(expr=expr)], want=[want])


def add_numpy(c):
    """predict_batch with NumPy structured arrays: NaN/inf/float/negative cells, odd dtypes and shapes."""
    head = ("import re, sys, loom, numpy as np\ndef run(rows):\n    try:\n        r = loom.predict_batch('h200', rows)\n"
            "    except ValueError as e:\n        print('loom: ' + str(e), file=sys.stderr); sys.exit(2)\n"
            "    print({{k: (list(v) if hasattr(v, 'tolist') else v) for k, v in r.items()}})\n"
            "dt = [('family', 'U20'), ('m', {mt}), ('n', 'i8'), ('k', 'i8'), ('dtype', 'U8')]\n")
    for n, mt, m, exp, want in (("m_nan", "'f8'", "np.nan", "bad", ["m"]), ("m_inf", "'f8'", "np.inf", "bad", ["m"]),
                                ("m_frac", "'f8'", "64.5", "bad", ["m"]), ("m_neg", "'i8'", "-64", "bad", ["m"]),
                                ("m_float_int", "'f8'", "64.0", "good", []), ("m_u64_max", "'u8'", "2**64-1", "bad", ["m"]),
                                ("m_complex", "'c16'", "64+1j", "bad", ["m"]), ("m_bool", "'?'", "True", "bad", ["m"]),
                                ("m_str", "'U8'", "'64'", "good", []), ("m_bytes", "'S8'", "b'64'", "good", []),
                                ("m_f16", "'f2'", "64", "good", []), ("m_datetime", "'M8[s]'", "np.datetime64(64, 's')",
                                                                        "bad", ["m"]),
                                ("m_obj_list", "object", "[64]", "bad", ["m"]), ("m_obj_dict", "object", "{'a': 1}", "bad", ["m"])):
        code = head.format(mt=mt) + f"run(np.array([('gemm', {m}, 64, 64, 'bf16')], dtype=dt))\n"
        c(f"r6_np_{n}", ["@python", NPY.format(code=code)], exp, want=want)
    base = head.format(mt="'i8'")
    for n, rows, exp, want in (
            ("empty", "np.array([], dtype=dt)", "any", []),
            ("2d", "np.array([[('gemm', 64, 64, 64, 'bf16')] * 2] * 2, dtype=dt)", "bad", ["rows"]),
            ("0d", "np.array(('gemm', 64, 64, 64, 'bf16'), dtype=dt)", "bad", ["rows"]),
            ("plain_2d", "np.zeros((2, 5))", "bad", ["rows"]),
            ("nested_field", "np.array([('gemm', (64,))], dtype=[('family', 'U8'), ('sub', [('m', 'i8')])])", "bad", ["sub"]),
            ("subarray_field", "np.zeros(1, dtype=[('family', 'U8'), ('m', 'i8', (2,))])", "bad", ["m"]),
            ("family_cyrillic", "np.array([('g\u0435mm', 64, 64, 64, 'bf16')], dtype=dt)", "bad", ["family"]),
            ("family_zwsp", "np.array([('gemm\u200b', 64, 64, 64, 'bf16')], dtype=dt)", "bad", ["family"]),
            ("masked", "np.ma.masked_array(np.array([('gemm', 64, 64, 64, 'bf16')], dtype=dt), "
                       "mask=[(False, True, False, False, False)])", "bad", ["m"]),
            ("recarray", "np.rec.array(np.array([('gemm', 64, 64, 64, 'bf16')], dtype=dt))", "good", []),
            ("view_fields", "np.array([('gemm', 64, 64, 64, 'bf16', 7)], dtype=dt + [('junk', 'i8')])[['family', 'm', 'n', 'k', 'dtype']]",
             "good", []),
            ("extra_field", "np.array([('gemm', 64, 64, 64, 'bf16', 7)], dtype=dt + [('junk', 'i8')])", "bad", ["junk"])):
        c(f"r6_np_{n}", ["@python", NPY.format(code=base + f"run({rows})\n")], exp, want=want)


def add_capi(c):
    """The C API with NULL handles, strings and out pointers, empty strings, a zero-length config buffer."""
    for n, body, exp, want in (
            ("predict_null_handle", "r = lib.loom_predict(None, b'h200', b'" + K + "', C.byref(p))\nprint('rc', r)\n"
                                    "sys.exit(0 if r != 0 else 4)", "good", ["rc"]),
            ("predict_null_gpu", "h = opened()\nr = lib.loom_predict(h, None, b'" + K + "', C.byref(p))\ndone(h, r, 'x')",
             "bad", ["gpu"]),
            ("predict_null_kernel", "h = opened()\nr = lib.loom_predict(h, b'h200', None, C.byref(p))\ndone(h, r, 'x')",
             "bad", ["kernel"]),
            ("predict_null_out", "h = opened()\nr = lib.loom_predict(h, b'h200', b'" + K + "', None)\ndone(h, r, 'x')",
             "bad", ["out"]),
            ("predict_empty_gpu", "h = opened()\nr = lib.loom_predict(h, b'', b'" + K + "', C.byref(p))\ndone(h, r, 'x')",
             "bad", ["gpu"]),
            ("predict_empty_kernel", "h = opened()\nr = lib.loom_predict(h, b'h200', b'', C.byref(p))\ndone(h, r, 'x')",
             "bad", []),
            ("tune_null_config", "h = opened()\nr = lib.loom_tune(h, b'h200', b'" + TK + "', None, 64, None)\ndone(h, r, 'x')",
             "bad", ["config"]),
            ("tune_len0", "h = opened()\nr = lib.loom_tune(h, b'h200', b'" + TK + "', cfg, 0, None)\ndone(h, r, cfg.value)",
             "bad", ["config_len"]),
            ("open_file_dir", "h = lib.loom_open(b'/etc/passwd', None, err, 512)\nprint('ok' if not h and err.value else 'opened')",
             "good", ["ok"]),
            ("open_empty_dir", "h = lib.loom_open(b'', None, err, 512)\nprint('ok' if err.value or h else 'bad')", "any", []),
            ("open_bad_model", "h = lib.loom_open(None, b'magic', err, 512)\nprint('ok' if not h and b'magic' in err.value else "
                               "'opened')", "good", ["ok"]),
            ("close_null", "lib.loom_close(None)\nprint('ok')", "good", ["ok"]),
            ("last_error_fresh", "h = opened()\nv = lib.loom_last_error(h)\nprint('ok' if v is not None else 'null')",
             "good", ["ok"])):
        c(f"r6_capi_{n}", ["@python", CAPI + body + "\n"], exp, want=want)


def add_outputs(c):
    """Outputs in missing folders (refused before the work), outputs that are inputs by hard link, and writes cut
    short (the old file left whole)."""
    for n, argv in (("report", ["report", "--sample", "-o", "{T}/nodir6/r.html"]),
                    ("report_json_out", ["report", "--sample", "-o", "{T}/r6.html", "--json-out", "{T}/nodir6/r.json"]),
                    ("e2e_trace", E + ["--trace-out", "{T}/nodir6/t.json"]), ("sim_trace", SR + ["--trace-out", "{T}/nodir6/t.json"]),
                    ("calibrate", ["calibrate", CAL, "--gpu", "h100-sxm", "-o", "{T}/nodir6/c.yaml"]),
                    ("import_lct", ["trace", "import", "--lct", LCT, "--cases", CASES, "-o", "{T}/nodir6/x.csv.gz"]),
                    ("plan", ["tune", "--plan", "--gpu", "h200", "--family", "gemm", "--out", "{T}/nodir6/p.json"]),
                    ("paths", ["trace", "paths", "-o", "{T}/nodir6/p.json"]),
                    ("fitcoll", ["trace", "fit-collectives", "-o", "{T}/nodir6/f.json"])):
        c(f"r6_out_missing_dir_{n}", argv, want=["nodir6"])
    model = read("models/presets/llama-3-8b.json")
    for n, argv, files in (
            ("calibrate", ["calibrate", "{T}/hl6_cal.json", "--gpu", "h100-sxm", "-o", "{T}/hl6_cal2.json"],
             {"hl6_cal.json": read(CAL), "hl6_cal2.json": "@HARD@hl6_cal.json"}),
            ("e2e_model", ["e2e", "--gpu", "h200", "--model", "{T}/hl6_m.json", "--phase", "decode", "--batch", "1",
                           "--context", "64", "--trace-out", "{T}/hl6_m2.json"],
             {"hl6_m.json": model, "hl6_m2.json": "@HARD@hl6_m.json"}),
            ("profile", E + ["--profile", "{T}/hl6_p.yaml", "--trace-out", "{T}/./hl6_p.yaml"],
             {"hl6_p.yaml": read("models/profiles/vllm.yaml")}),
            ("requests_dotdot", ["simulate", "--gpu", "h200", "--model", "llama-3-8b", "--requests", "{T}/hl6_r.csv",
                                 "--trace-out", "{T}/hl6sub/../hl6_r.csv"],
             {"hl6_r.csv": read(REQ), "hl6sub/.keep": ""})):
        c(f"r6_out_is_input_{n}", argv, want=["input"], files=files)
    for n, argv, out in (("report", ["report", "--sample", "-o", "{T}/cut6_r.html"], "{T}/cut6_r.html"),
                         ("json_out", ["report", "--sample", "-o", "{T}/cut6_x.html", "--json-out", "{T}/cut6_j.json"],
                          "{T}/cut6_j.json"),
                         ("e2e_trace", E + ["--trace-out", "{T}/cut6_e.json"], "{T}/cut6_e.json"),
                         ("sim_trace", SR + ["--trace-out", "{T}/cut6_s.json"], "{T}/cut6_s.json"),
                         ("import_lct", ["trace", "import", "--lct", LCT, "--cases", CASES, "-o", "{T}/cut6_i.csv"],
                          "{T}/cut6_i.csv"),
                         ("import_lct_gz", ["trace", "import", "--lct", LCT, "--cases", CASES, "-o", "{T}/cut6_i.csv.gz"],
                          "{T}/cut6_i.csv.gz"),
                         ("plan", ["tune", "--plan", "--gpu", "h200", "--family", "gemm", "--out", "{T}/cut6_p.json"],
                          "{T}/cut6_p.json"),
                         ("fitcoll", ["trace", "fit-collectives", "-o", "{T}/cut6_f.json"], "{T}/cut6_f.json"),
                         ("paths", ["trace", "paths", "-o", "{T}/cut6_pa.json"], "{T}/cut6_pa.json")):
        c(f"r6_cut_write_{n}", ["@python", CUT.format(argv=argv, out=out)], want=[out.split("/")[-1]])
