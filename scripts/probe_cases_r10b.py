"""Probe cases (see probe_cases.py), tenth round, second part: the `#resolution_us=` corpus metadata (only where the
loom under test reads it), numbers written oddly (`1_000`, `0x10`, `1e400`, `-0`, ` 5`, `5 `) in every numeric flag of
predict, e2e, whatif, simulate, train and validate, `train --max-depth` forms, `predict --interval` over odd model
folders, flags given twice with one value, calibration results from unknown devices, e2e/whatif/simulate flag
combinations, the tools users run (scripts/fresh-heldout-check.py, scripts/compact-corpus.sh), and the Python module
and C API with the same odd numbers."""
import json
import os
import sys

from probe_cases import REPO
from probe_cases_r6 import PY6
from probe_cases_round3 import CAPI
from probe_cases_r10 import DIFF, pick, v1, v2

K = "gemm m=64 n=64 k=64 dtype=bf16"
P = ["predict", "--gpu", "h200", "--kernel", K]
E = ["e2e", "--gpu", "h200", "--model", "llama-3-8b", "--phase", "decode", "--batch", "8", "--context", "1024"]
W = ["whatif", "--model", "llama-3-8b", "--batch", "8", "--input-len", "512", "--output-len", "64", "--gpus", "h200"]
S = ["simulate", "--gpu", "h200", "--model", "llama-3-8b", "--rate", "2", "--num-requests", "20"]
ODD = (("underscore", "1_000"), ("hex", "0x10"), ("overflow", "1e400"), ("neg_zero", "-0"), ("lead_space", " 5"),
       ("trail_space", "5 "), ("plus", "+5"), ("fullwidth", "５"), ("inf", "inf"), ("dot", "."), ("exp_int", "1e1"))
# A tool run with its stderr and exit status judged as loom's own: a refusal must be one line, no traceback, non-zero;
# it is reported as exit 2 with a 'loom: ' line (the probe's standard), anything else passed through as it came.
TOOL = ("import subprocess, sys\nr = subprocess.run({argv!r}, capture_output=True)\n"
        "lines = [l for l in r.stderr.decode('utf-8', 'replace').split('\\n') if l.strip()]\n"
        "sys.stdout.write(r.stdout.decode('utf-8', 'replace'))\n"
        "if r.returncode == 0:\n    sys.exit(0)\n"
        "if len(lines) == 1 and 'Traceback' not in lines[0]:\n"
        "    print(lines[0] if lines[0].startswith('loom: ') else 'loom: ' + lines[0], file=sys.stderr)\n    sys.exit(2)\n"
        "sys.stderr.write(r.stderr.decode('utf-8', 'replace'))\nsys.exit(r.returncode if r.returncode != 2 else 4)\n")
# A command under a LOOM_HOME whose models/efficiency/ has one file replaced ({file}: {text}, None = removed);
# everything else linked to the repository's.
MHOME = ("import os, subprocess, sys, tempfile, shutil\nloom = os.path.join(os.environ['PYTHONPATH'], '..', 'loom')\n"
         "repo = {repo!r}\nd = tempfile.mkdtemp()\n"
         "for x in os.listdir(repo):\n    x != 'models' and os.symlink(os.path.join(repo, x), os.path.join(d, x))\n"
         "os.makedirs(d + '/models/efficiency')\n"
         "for x in os.listdir(repo + '/models'):\n    x != 'efficiency' and os.symlink(repo + '/models/' + x, d + '/models/' + x)\n"
         "for x in os.listdir(repo + '/models/efficiency'):\n"
         "    x != {file!r} and os.symlink(repo + '/models/efficiency/' + x, d + '/models/efficiency/' + x)\n"
         "t = {text!r}\nif t is not None:\n    open(d + '/models/efficiency/' + {file!r}, 'wb').write(t.encode())\n"
         "r = subprocess.run([loom] + {argv!r}, env=dict(os.environ, LOOM_HOME=d))\nshutil.rmtree(d)\nsys.exit(r.returncode)\n")


def loom_knows(word):
    """Whether the loom binary under test (build/loom beside the python module) holds `word` (a feature gate for
    cases written before their feature reached this branch)."""
    path = os.environ.get("LOOM_PROBE_BINARY") or os.path.join(REPO, "build", "loom")
    try:
        with open(path, "rb") as f:
            return word.encode() in f.read()
    except OSError:
        return False


def add_round10b(c):
    add_resolution(c)
    add_numbers(c)
    add_depth_interval(c)
    add_twice_calibrate(c)
    add_combos(c)
    add_tools(c)
    add_python_capi(c)


def add_resolution(c):
    """`#resolution_us=R`: a positive number <= 1e6; rows with median < 20 R are skipped in training and validation."""
    if not loom_knows("resolution_us"):
        return
    rows = pick(8)
    for tag, v, exp in (("zero", "0", "bad"), ("neg", "-1", "bad"), ("nan", "nan", "bad"), ("inf", "inf", "bad"),
                        ("too_big", "1e7", "bad"), ("empty", "", "bad"), ("text", "one", "bad"), ("unit", "1us", "bad"),
                        ("hex", "0x1", "bad"), ("space", " 1", "bad"), ("one", "1", "good"), ("half", "0.5", "good"),
                        ("max", "1e6", "any"), ("tiny", "1e-300", "any")):
        files = {f"c10r_{tag}/a.corpus.csv": v2(rows, extra_meta=[f"#resolution_us={v}"])}
        want = ["resolution_us"] if exp == "bad" else []
        c(f"r10_res_{tag}_compact", ["trace", "compact", f"{{T}}/c10r_{tag}/a.corpus.csv", "-o", f"{{T}}/c10r_{tag}.out"],
          exp, want=want, files=files, empty_ok=True)
        c(f"r10_res_{tag}_summary", ["trace", "summary", f"{{T}}/c10r_{tag}", "--format", "json"], "any", files=files)
        c(f"r10_res_{tag}_validate", ["validate", "--traces", f"{{T}}/c10r_{tag}", "--format", "json"],
          exp if exp == "bad" else "any", want=want, files=files)
    files = {"c10r_twice/a.corpus.csv": v2(rows, extra_meta=["#resolution_us=1", "#resolution_us=2"])}
    c("r10_res_twice_compact", ["trace", "compact", "{T}/c10r_twice/a.corpus.csv", "-o", "{T}/c10r_twice.out"],
      want=["resolution_us"], files=files)
    c("r10_res_twice_train", ["train", "--traces", "{T}/c10r_twice", "--out", "{T}/c10r_twm"], want=["resolution_us"],
      files=files)
    files = {"c10r_v1/a.corpus.csv": v1(rows, extra_meta=["#resolution_us=-5"])}
    c("r10_res_v1_neg", ["trace", "compact", "{T}/c10r_v1/a.corpus.csv", "-o", "{T}/c10r_v1.out"], want=["resolution_us"],
      files=files)
    # every row below 20 R: nothing left to validate on
    files = {"c10r_all/a.corpus.csv": v2(rows, extra_meta=["#resolution_us=1e6"])}
    c("r10_res_all_skipped_validate", ["validate", "--traces", "{T}/c10r_all", "--format", "json"], "any", files=files)


def add_numbers(c):
    """Each odd number in each numeric flag of six commands."""
    flags = ((P, "--threads"), (E, "--batch"), (E, "--context"), (E, "--tp"), (E, "--top"), (E, "--cache-len"),
             (W, "--input-len"), (W, "--output-len"), (W, "--tp"), (W, "--threads"), (S, "--rate"), (S, "--num-requests"),
             (S, "--tp"), (S, "--pp"), (S, "--replicas"), (S, "--seed"), (S, "--series-points"),
             (["validate", "--traces", "tests/data/r9_train_one"], "--max-mape"))
    for base, flag in flags:
        tag = base[0] + flag.replace("-", "_")
        for n, v in ODD:
            argv = [x for x in base]
            if flag in argv:  # replace the base's value
                i = argv.index(flag)
                argv[i + 1] = v
            else:
                argv += [flag, v]
            exp = "any" if n == "exp_int" else "bad"
            c(f"r10_num_{tag}_{n}", argv, exp, want=[flag] if exp == "bad" else [])
    for n, v in ODD:
        exp = "any" if n == "exp_int" else "bad"
        c(f"r10_num_train_seed_{n}", ["train", "--traces", "{T}/nope", "--out", "{T}/n10", "--seed", v], exp,
          want=["--seed"] if exp == "bad" else [])
        c(f"r10_num_train_rounds_{n}", ["train", "--traces", "{T}/nope", "--out", "{T}/n10", "--rounds", v], exp,
          want=["--rounds"] if exp == "bad" else [])
    for n, v in ODD:  # inside a kernel spec ("m=5 " is "m=5" and a second space between tokens)
        exp = "any" if n in ("exp_int", "trail_space") else "bad"
        c(f"r10_num_spec_m_{n}", ["predict", "--gpu", "h200", "--kernel", f"gemm m={v} n=64 k=64 dtype=bf16"],
          exp, want=["m"] if exp == "bad" else [])


def add_depth_interval(c):
    """`train --max-depth` forms not tried in round 9; `predict --interval` with odd model folders."""
    T = ["train", "--traces", "{T}/c10d", "--out", "{T}/c10dm", "--max-depth"]
    files = {"c10d/a.corpus.csv": v1(pick(40))}
    for n, v in (("underscore", "gemm=1_0"), ("neg_zero", "gemm=-0"), ("exp", "gemm=1e1"), ("inf", "gemm=inf"),
                 ("bare_number", "8"), ("seventeen", "gemm=17"), ("trailing_space", "gemm=8 "), ("tab", "gemm=\t8"),
                 ("unknown_family", "gemv=8"), ("eq_only", "="), ("many", ",".join(f"gemm={i}" for i in range(1, 9)))):
        c(f"r10_train_depth_{n}", T + [v], want=["--max-depth"] if n != "many" else ["gemm"], files=files)
    cov = json.load(open(os.path.join(REPO, "models/efficiency/coverage.json")))
    g = cov["families"]["gemm"]

    def edited(f):
        j = json.loads(json.dumps(cov))
        f(j["families"]["gemm"])
        return json.dumps(j)

    PI = P + ["--interval", "--format", "json"]
    for n, text, exp, want in (
            ("missing", None, "bad", ["coverage.json"]), ("empty", "", "bad", ["coverage.json"]),
            ("object", "{}", "bad", ["coverage.json"]), ("array", "[]", "bad", ["coverage.json"]),
            ("lo_above_hi", edited(lambda f: f["shapes"].update(log_lo=1.0, log_hi=-1.0)), "bad", ["coverage.json"]),
            ("hi_huge", edited(lambda f: f["shapes"].update(log_hi=1e300)), "bad", ["coverage.json"]),
            ("n_zero", edited(lambda f: f["shapes"].update(n=0)), "any", []),
            ("n_neg", edited(lambda f: f["shapes"].update(n=-3)), "bad", ["coverage.json"]),
            ("kernels_float", edited(lambda f: f.update(kernels=1.5)), "bad", ["coverage.json"]),
            ("gpus_string", edited(lambda f: f.update(gpus="h200")), "bad", ["coverage.json"]),
            ("gpu_unknown", edited(lambda f: f.update(gpus=["h999"])), "any", []),
            ("arch_empty", edited(lambda f: f.update(architectures=[])), "any", []),
            ("no_gemm", json.dumps(dict(cov, families={k: v for k, v in cov["families"].items() if k != "gemm"})), "any", []),
            ("trailing", json.dumps(cov) + "x", "bad", ["coverage.json"]), ("nan", json.dumps(cov).replace(
                str(g["shapes"]["log_hi"]), "NaN", 1), "bad", ["coverage.json"])):
        c(f"r10_interval_cov_{n}", ["@python", MHOME.format(repo=REPO, file="coverage.json", text=text, argv=PI)], exp,
          want=want)
    c("r10_interval_no_model_json", ["@python", MHOME.format(repo=REPO, file="model.json", text=None, argv=PI)], "any")
    c("r10_interval_analytical", P + ["--interval", "--model", "analytical", "--format", "json"], "any")
    c("r10_interval_roofline", P + ["--interval", "--model", "roofline"], want=["--model"])


def add_twice_calibrate(c):
    """Single-valued flags given twice with one value; calibration results naming unknown devices."""
    R = "tests/data/serving/requests.csv"
    for n, argv in (("requests", ["simulate", "--gpu", "h200", "--model", "llama-3-8b", "--requests", R, "--requests", R]),
                    ("gpu", P + ["--gpu", "h200"]), ("kernel", P + ["--kernel", K]), ("format", P + ["--format", "json"] * 2),
                    ("model_e2e", E + ["--model", "llama-3-8b"]), ("batch_e2e", E + ["--batch", "8"]),
                    ("gpus_whatif", W + ["--gpus", "h200"]), ("out_train", ["train", "--traces", "{T}/x", "--out", "{T}/y",
                                                                           "--out", "{T}/y"]),
                    ("traces_validate", ["validate", "--traces", "tests/data/r9_train_one", "--traces", "tests/data/r9_train_one"]),
                    ("o_compact", ["trace", "compact", "a", "-o", "{T}/q", "-o", "{T}/q"]),
                    ("gpu_calibrate", ["calibrate", "tests/data/calibrate/good.json", "--gpu", "h100-sxm", "--gpu", "h100-sxm"])):
        c(f"r10_twice_{n}", argv, want=[argv[-2]])
    c("r10_twice_set_ok", P + ["--set", "sms=100", "--set", "sms=100"], want=["--set"])
    c("r10_twice_switch", P + ["--interval", "--interval"], "any")
    good = json.load(open(os.path.join(REPO, "tests/data/calibrate/good.json")))
    for n, dev, exp, want in (("typo", "NVIDIA H100 80GB HBM", "bad", ["H100 80GB HBM3"]),
                              ("case", "nvidia h100 80gb hbm3", "good", []), ("other_known", "NVIDIA H200", "bad", ["h200"]),
                              ("new_sku", "NVIDIA GB300 Superchip", "good", []), ("near_h20", "NVIDIA H2O", "bad", ["NVIDIA H20"]),
                              ("tab", "NVIDIA\tH100 80GB HBM3", "any", []), ("empty", "", "bad", ["device.gpu"]),
                              ("number", 5, "bad", ["device.gpu"]), ("long", "x" * 300, "bad", ["device.gpu"])):
        j = json.loads(json.dumps(good))
        j["device"]["gpu"] = dev
        c(f"r10_calib_device_{n}", ["calibrate", "{T}/cal10.json", "--gpu", "h100-sxm"], exp, want=want,
          files={"cal10.json": json.dumps(j)})


def add_combos(c):
    """e2e / whatif / simulate flag combinations."""
    for n, argv, exp, want in (
            ("e2e_replay_batch", ["e2e", "--gpu", "h200", "--replay", "tests/data/trace/torch_profile_sample.json", "--batch", "8"],
             "bad", ["--batch"]),
            ("e2e_prefill_context", ["e2e", "--gpu", "h200", "--model", "llama-3-8b", "--phase", "prefill", "--seq", "64",
                                     "--context", "0"], "any", []),
            ("e2e_tp_not_divisor", E + ["--tp", "3"], "bad", ["--tp"]),
            ("e2e_cache_len_decode", E + ["--cache-len", "10"], "any", []),
            ("e2e_interval_csv", E + ["--interval", "--format", "csv"], "any", []),
            ("e2e_top_zero", E + ["--top", "0"], "bad", ["--top"]),
            ("e2e_gpu_all", ["e2e", "--gpu", "all", "--model", "llama-3-8b", "--phase", "decode"], "bad", ["--gpu"]),
            ("whatif_rate_batch", W + ["--rate", "2"], "any", []),
            ("whatif_requests_rate", ["whatif", "--model", "llama-3-8b", "--gpus", "h200", "--requests",
                                      "tests/data/serving/requests.csv", "--rate", "2"], "bad", ["--rate"]),
            ("whatif_pp_tp", W + ["--pp", "2", "--tp", "8"], "any", []),
            ("whatif_interval_rate", ["whatif", "--model", "llama-3-8b", "--gpus", "h200", "--rate", "2", "--interval"], "any", []),
            ("simulate_quiet_per_request", S + ["--quiet", "--per-request"], "any", []),
            ("simulate_requests_num", ["simulate", "--gpu", "h200", "--model", "llama-3-8b", "--requests",
                                       "tests/data/serving/requests.csv", "--num-requests", "5"], "bad", ["--num-requests"]),
            ("simulate_replicas_router", S + ["--replicas", "1", "--router", "least_outstanding"], "any", []),
            ("simulate_trace_out_dir", S + ["--trace-out", "tests"], "bad", ["tests"]),
            ("simulate_slo_empty_item", S + ["--slo", "ttft=1,"], "bad", ["--slo"]),
            ("simulate_gpu_set_twice", S + ["--set", "sms=100", "--set", "sms=90"], "bad", ["--set"])):
        c(f"r10_combo_{n}", argv, exp, want=want, empty_ok=True)


def add_tools(c):
    """Tools users run: one line, non-zero exit, no traceback."""
    F = "scripts/fresh-heldout-check.py"
    for n, args, exp in (("loom_missing", ["--loom", "/nonexistent/loom"], "bad"), ("loom_dir", ["--loom", "scripts"], "bad"),
                         ("checks_empty", ["--checks", "{T}/t10e"], "bad"), ("checks_missing", ["--checks", "{T}/nope10"], "bad"),
                         ("model_dir_missing", ["--model-dir", "{T}/nope10m"], "bad"),
                         ("model_dir_file", ["--model-dir", "README.md"], "bad"), ("unknown_flag", ["--bogus"], "bad"),
                         ("garbage_check", ["--checks", "{T}/t10g"], "bad")):
        argv = [sys.executable, F] + [a.replace("{T}", "@T@") for a in args]
        c(f"r10_tool_fresh_{n}", ["@python", TOOL.format(argv=argv).replace("@T@", "{T}")], exp,
          files={"t10e/.keep": "", "t10g/x.heldout.csv.gz": "garbage"})
    C = "scripts/compact-corpus.sh"
    for n, args in (("none", []), ("missing", ["{T}/nope10.csv.gz"]), ("dir", ["{T}/t10e"]), ("garbage", ["{T}/t10g/x.heldout.csv.gz"]),
                    ("loom_missing", ["--loom", "/nonexistent/loom", "{T}/t10g/x.heldout.csv.gz"]),
                    ("loom_only", ["--loom"]), ("dash", ["-"])):
        argv = ["bash", C] + args
        c(f"r10_tool_compact_{n}", ["@python", TOOL.format(argv=argv)], "bad",
          files={"t10e/.keep": "", "t10g/x.heldout.csv.gz": "garbage"})
    d = {"t10d/a.corpus.csv": v2(pick(6)), "t10d/b.corpus.csv": v2(pick(7))}
    c("r10_diff_differ", ["@python", DIFF.format(argv=["{T}/t10d/a.corpus.csv", "{T}/t10d/b.corpus.csv"])], "good",
      want=["differ"], files=d)


def add_python_capi(c):
    """The module and the C API with the odd numbers of the CLI cases."""
    for n, v in (("underscore", "1_000"), ("hex", "0x10"), ("overflow", "1e400"), ("neg_zero", "-0"), ("lead_space", " 5"),
                 ("trail_space", "5 "), ("plus", "+5")):
        exp = "any" if n == "trail_space" else "bad"
        c(f"r10_py_spec_{n}", ["@python", PY6.format(expr=f"loom.predict('h200', 'gemm m={v} n=64 k=64 dtype=bf16')")],
          exp, want=["m"] if exp == "bad" else [])
        c(f"r10_capi_spec_{n}", ["@python", CAPI + "h = opened()\nr = lib.loom_predict(h, b'h200', b'gemm m=" + v +
                                 " n=64 k=64 dtype=bf16', C.byref(p))\ndone(h, r, 'x')\n"], exp, want=["m"] if exp == "bad" else [])
    for n, expr, exp, want in (
            ("e2e_batch_inf", "loom.e2e('h200', 'llama-3-8b', 'decode', batch=float('inf'), context=64)", "bad", ["batch"]),
            ("e2e_batch_str", "loom.e2e('h200', 'llama-3-8b', 'decode', batch='8', context=64)", "bad", ["batch"]),
            ("e2e_batch_bool", "loom.e2e('h200', 'llama-3-8b', 'decode', batch=True, context=64)", "any", []),
            ("e2e_context_neg0", "loom.e2e('h200', 'llama-3-8b', 'decode', batch=1, context=-0)", "any", []),
            ("e2e_context_big", "loom.e2e('h200', 'llama-3-8b', 'decode', batch=1, context=10**30)", "bad", ["context"]),
            ("e2e_tp_zero", "loom.e2e('h200', 'llama-3-8b', 'decode', batch=1, context=64, tp=0)", "bad", ["tp"]),
            ("batch_m_str_hex", "loom.predict_batch('h200', [dict(family='gemm', m='0x10', n=64, k=64, dtype='bf16')])",
             "bad", ["m"]),
            ("batch_m_float_inf", "loom.predict_batch('h200', [dict(family='gemm', m=float('inf'), n=64, k=64, dtype='bf16')])",
             "bad", ["m"]),
            ("batch_m_neg0", "loom.predict_batch('h200', [dict(family='gemm', m=-0.0, n=64, k=64, dtype='bf16')])", "bad", ["m"]),
            ("batch_threads_huge", "loom.predict_batch('h200', [dict(family='gemm', m=64, n=64, k=64, dtype='bf16')], "
                                   "threads=10**6)", "bad", ["threads"]),
            ("batch_threads_neg", "loom.predict_batch('h200', [dict(family='gemm', m=64, n=64, k=64, dtype='bf16')], "
                                  "threads=-1)", "bad", ["threads"])):
        c(f"r10_py_{n}", ["@python", PY6.format(expr=expr)], exp, want=want)
