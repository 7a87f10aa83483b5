"""Probe cases (see probe_cases.py), fourth round continued: units of the wrong kind, NaN and overflowing literals in
every numeric field of the GPU YAML, serving profile, model config, calibration, request and NeuSight readers, the
Python module's argument names, and the collection scripts that read their own outputs (scripts/torch/lct_check.py,
corpus_summary.py, scripts/clock_summary.py)."""
import csv
import io
import json
import re

from probe_cases import read  # noqa: F401
from probe_cases_round4 import CAL, CASES, E, K, LCT, NS, P, PY, S, SR, TK, nested, yaml_fields


def add_round4b(c):
    add_overwrite(c)
    add_units(c)
    add_nan(c)
    add_python(c)
    add_scripts(c)


def add_units(c):
    """A unit of the wrong kind is refused naming the field, never read as another quantity."""
    for n, kv in (("bw_no_per_s", "dram.bandwidth=4.8TB"), ("clock_per_s", "clock.boost=1.98GHz/s"),
                  ("l2_hz", "l2.size=50MHz"), ("size_per_s", "dram.size=80GB/s"), ("sms_unit", "sms=132SMs"),
                  ("bw_bits", "dram.bandwidth=4.8Tb/s"), ("price_per_day", "price=4USD/day"),
                  ("tdp_kwh", "tdp=700Wh"), ("onset_hz", "sustained_load.onset=0.15Hz"),
                  ("launch_mb", "launch_overhead=2MB")):
        c(f"r4_unit_{n}", P + ["--set", kv], want=["--set"])
    c("r4_unit_bw_tib_ok", P + ["--set", "dram.bandwidth=4.4TiB/s"], "any")
    c("r4_unit_yaml_bw_no_per_s", ["predict", "--gpu", "{T}/ub.yaml", "--kernel", K], want=["ub.yaml"],
      files={"ub.yaml": "extends: h200\ndram:\n  bandwidth: 4.8 TB\n"})
    for n, v in (("no_unit", "ttft=2"), ("hz", "ttft=2Hz"), ("bytes", "tpot=50MB"), ("per_s", "ttft=2s/s")):
        c(f"r4_slo_{n}", SR + ["--slo", v], "any" if n == "no_unit" else "bad", want=[] if n == "no_unit" else ["--slo"])
    c("r4_measured_unit", ["diagnose", "--gpu", "h200", "--kernel", K, "--measured-us", "5ms"], want=["--measured-us"])
    c("r4_rate_unit", S + ["--rate", "2/s", "--num-requests", "5"], want=["--rate"])


def add_nan(c):
    """NaN (and an overflowing literal) in every numeric field of the GPU YAML, profile, model config, calibration."""
    for keys in yaml_fields("gpus/h100-sxm.yaml"):
        dotted = ".".join(keys)
        c(f"r4_nan_set_{dotted}", P + ["--set", dotted + "=nan"], want=["--set"])
        c(f"r4_nan_yaml_{dotted}", ["predict", "--gpu", "{T}/gn_" + dotted + ".yaml", "--kernel", K],
          want=["gn_" + dotted + ".yaml"], files={f"gn_{dotted}.yaml": "extends: h200\n" + nested(keys, ".nan")})
    prof = read("models/profiles/vllm.yaml").decode()
    for keys in yaml_fields("models/profiles/vllm.yaml"):
        text = re.sub(r"(?m)^(\s*" + re.escape(keys[-1]) + r":)\s*[^#\n]*", r"\1 .nan ", prof, count=1)
        c(f"r4_nan_profile_{keys[-1]}", E + ["--profile", "{T}/pn_" + keys[-1] + ".yaml"], want=[keys[-1]],
          files={f"pn_{keys[-1]}.yaml": text})
    m = read("models/presets/qwen3-30b-a3b.json").decode()
    for key in [k for k, v in json.loads(m).items() if isinstance(v, (int, float)) and not isinstance(v, bool)]:
        for tag, lit in (("nan", "NaN"), ("big", "1e999")):
            text = re.sub(r'("' + re.escape(key) + r'":\s*)[-0-9.eE+]+', r"\g<1>" + lit, m, count=1)
            c(f"r4_{tag}_model_{key}", [x if x != "llama-3-8b" else "{T}/mn_" + tag + key + ".json" for x in E],
              want=["mn_" + tag + key + ".json"], files={f"mn_{tag}{key}.json": text})
    cal = read(CAL).decode()
    for i, mt in enumerate(re.finditer(r'("[a-z0-9_]+"):\s*(-?[0-9][0-9.eE+-]*)', cal)):
        text = cal[:mt.start(2)] + "NaN" + cal[mt.end(2):]
        c(f"r4_nan_calib_{mt.group(1).strip(chr(34))}_{i}", ["calibrate", "{T}/cn_" + str(i) + ".json", "--gpu", "h100-sxm"],
          want=["cn_" + str(i) + ".json"], files={f"cn_{i}.json": text})
    h = "arrival_s,prompt_tokens,output_tokens,cached_prefix_tokens\n"
    for col, row in (("prompt", "0,nan,10,0"), ("output", "0,10,nan,0"), ("cached", "0,10,10,nan"), ("inf_out", "0,10,inf,0")):
        c(f"r4_nan_req_{col}", S + ["--requests", "{T}/rq_" + col + ".csv"], want=["rq_" + col + ".csv"],
          files={f"rq_{col}.csv": h + row + "\n"})
    rows = list(csv.reader(io.StringIO(read(NS).decode())))
    for i, name in enumerate(rows[0]):
        if not re.match(r"^-?[0-9.]+$", rows[1][i]):
            continue
        f = list(rows[1])
        f[i] = "nan"
        out = io.StringIO()
        csv.writer(out, lineterminator="\n").writerows([rows[0], f])
        c(f"r4_nan_neusight_{name.replace(' ', '_')}", ["trace", "import", "--from", "neusight", "{T}/nsn" + str(i) + ".csv",
                                                       "-o", "{T}/onsn" + str(i)],
          "bad" if name in ("Latency", "B", "H", "Grid x", "Grid y", "Grid z", "Block x", "Block y", "Block z") else "any",
          want=["nsn" + str(i) + ".csv"], files={f"nsn{i}.csv": out.getvalue()})
    for src, extra, tag in (("tests/data/public/vidur_no_gpu_path.csv", ["--gpu", "a100-sxm4-80gb"], "vidur"),
                            ("tests/data/public/moe_dse_H800_bad_stage.csv", [], "pipeweave")):
        rows = list(csv.reader(io.StringIO(read(src).decode())))
        if tag == "pipeweave":
            rows[1][0] = "w13"  # the committed file's stage is the bad one; a good row
        for i, name in enumerate(rows[0]):
            if not re.match(r"^-?[0-9.]+$", rows[1][i]) or (tag == "vidur" and name.endswith((".min", ".max", ".std"))):
                continue
            f = list(rows[1])
            f[i] = "nan"
            out = io.StringIO()
            csv.writer(out, lineterminator="\n").writerows([rows[0], f])
            fname = ("moe_dse_H800_n" if tag == "pipeweave" else "vd_n") + str(i) + ".csv"
            c(f"r4_nan_{tag}_{name}", ["trace", "import", "--from", tag, "{T}/" + fname] + extra + ["-o", "{T}/o" + fname],
              # Vidur writes nan for an op a model lacks: that op is skipped with a note (stderr), by design; means
              # and vocab_size are not read.
              "any" if name in ("sample_count", "use_gated_mlp", "vocab_size") or name.endswith((".mean", ".median"))
              else "bad", want=[fname], files={fname: out.getvalue()})
    c("r4_nan_lens", SR + ["--prompt-len", "file:{T}/nl.txt"], want=["nl.txt"], files={"nl.txt": "10\nnan\n"})
    c("r4_nan_report_json", ["report", "--json-in", "{T}/rn.json", "-o", "{T}/rn.html"], want=["rn.json"],
      files={"rn.json": '{"scatters": [{"title": "s", "points": [{"label": "k", "measured_us": NaN, "predicted_us": 3}]}]}'})


def add_python(c):
    """The Python module names its keyword arguments, not the CLI's flags."""
    for n, expr, want in (
            ("tp_nodiv", "loom.e2e('h200', 'llama-3-8b', 'decode', tp=3, context=64)", "tp"),
            ("tp_big", "loom.e2e('h200', 'llama-3-8b', 'decode', tp=16, context=64)", "tp"),
            ("batch0", "loom.e2e('h200', 'llama-3-8b', 'decode', batch=0, context=64)", "batch"),
            ("batch_big", "loom.e2e('h200', 'llama-3-8b', 'decode', batch=10**7, context=64)", "batch"),
            ("model_unknown", "loom.e2e('h200', 'nosuch', 'decode', context=64)", "model"),
            ("profile_unknown", "loom.e2e('h200', 'llama-3-8b', 'decode', profile='nosuch', context=64)", "profile"),
            ("gpu_unknown", "loom.e2e('h999', 'llama-3-8b', 'decode', context=64)", "gpu"),
            ("gpu_list", "loom.e2e('h200,h100-sxm', 'llama-3-8b', 'decode', context=64)", "gpu"),
            ("predict_model_empty", f"loom.predict('h200', '{K}', model='')", "model"),
            ("predict_gpu_all", f"loom.predict('all', '{K}')", "gpu"),
            ("tune_gpu_unknown", f"loom.tune('h999', '{TK}')", "gpu"),
            ("batch_gpu_unknown", "loom.predict_batch('h999', [dict(family='gemm', m=64, n=64, k=64, dtype='bf16')])",
             "gpu"),
            ("diagnose_spec_bad", "loom.diagnose('h200', 'gemm m=0 n=1 k=1 dtype=bf16')", "spec")):
        c(f"r4_py_{n}", ["@python", PY.format(expr=expr)], want=[want])
    c("r4_py_gpu_comma_file", ["@python", PY.format(expr=f"loom.predict('{{T}}/gcp/h200,lab.yaml', '{K}')")], "good",
      files={"gcp/h200,lab.yaml": "extends: h200\nname: lab\n"})


def add_overwrite(c):
    """An output path that is one of the command's inputs (by any spelling): refused, the input left as it was."""
    cal, cases, req = read(CAL), read(CASES), read("tests/data/serving/requests.csv")
    model = read("models/presets/llama-3-8b.json")
    for n, argv, files in (
            ("calibrate", ["calibrate", "{T}/ow_cal.json", "--gpu", "h100-sxm", "-o", "{T}/ow_cal.json"], {"ow_cal.json": cal}),
            ("import_cases", ["trace", "import", "--lct", LCT, "--cases", "{T}/ow.cases.csv", "-o", "{T}/ow.cases.csv"],
             {"ow.cases.csv": cases}),
            ("import_cases_link", ["trace", "import", "--lct", LCT, "--cases", "{T}/ow2.cases.csv", "-o", "{T}/ow2link"],
             {"ow2.cases.csv": cases, "ow2link": "@LINK@ow2.cases.csv"}),
            ("report_json_in", ["report", "--json-in", "{T}/ow_rep.json", "-o", "{T}/ow_rep.json"],
             {"ow_rep.json": '{"title": "t", "rooflines": [{"gpu": "h200", "dram_bytes_per_s": 4.8e12, "ceilings": '
                             '[{"name": "bf16", "flops_per_s": 9.9e14}], "points": []}]}'}),
            ("plan_tables", ["tune", "--plan", "--gpu", "h200", "--family", "gemm", "--tables", "{T}/ow_t.json", "--out",
                             "{T}/ow_t.json"], {"ow_t.json": read("models/tune/h200-gemm.json")}),
            ("e2e_trace_out_model", ["e2e", "--gpu", "h200", "--model", "{T}/ow_m.json", "--phase", "decode", "--batch",
                                     "1", "--context", "64", "--trace-out", "{T}/./ow_m.json"], {"ow_m.json": model}),
            ("sim_trace_out_requests", S + ["--requests", "{T}/ow_r.csv", "--trace-out", "{T}/ow_r.csv"], {"ow_r.csv": req}),
            ("calibrate_gpu_yaml", ["calibrate", CAL, "--gpu", "h100-sxm", "-o", "{T}/ow_g.yaml", "--set", "sms=1"], {})):
        c(f"r4_overwrite_{n}", argv, "any" if n == "calibrate_gpu_yaml" else "bad",
          want=[] if n == "calibrate_gpu_yaml" else ["input"], files=files)
    c("r4_prompt_lognormal_huge", SR + ["--prompt-len", "lognormal:1e300:1"], want=["--prompt-len", "MEDIAN <="])


# A collection script, stderr and exit status passed through (stdout to /dev/full with full=True).
SCRIPT = ("import subprocess, sys\nr = subprocess.run([sys.executable] + {argv!r}{out})\nsys.exit(r.returncode)\n")
# lct_check.py's report of a malformed trace: ERRORS= on stdout and exit 1 (its contract), not a traceback.
REPORT = ("import subprocess, sys\nr = subprocess.run([sys.executable] + {argv!r}, capture_output=True)\n"
          "sys.stderr.buffer.write(r.stderr)\nif r.returncode == 1 and b'ERRORS=' in r.stdout and not r.stderr:\n"
          "    print('reported'); sys.exit(0)\nsys.exit(r.returncode or 4)\n")


def add_scripts(c):
    """The scripts that read a collection run's outputs: one 'loom: ' line and exit 2, never a traceback."""
    L, CS, CL = "scripts/torch/lct_check.py", "scripts/torch/corpus_summary.py", "scripts/clock_summary.py"
    lct_text = "#loom-cupti 1\n#gpu=X\nK\t1\t2" + "\tx" * 15 + "\n#end records=1 dropped=0\n"
    for n, argv, exp, want, files, out in (
            ("lct_missing", [L, "/nonexistent.lct"], "bad", ["/nonexistent.lct"], {}, ""),
            ("lct_dir", [L, "{T}"], "bad", [], {}, ""),
            ("lct_not_gzip", [L, "{T}/ng.lct.gz"], "bad", ["ng.lct.gz"], {"ng.lct.gz": "plain text"}, ""),
            ("lct_latin1", [L, "{T}/l1.lct"], "any", [], {"l1.lct": b"#loom-cupti 1\n#gpu=\xe9\n"}, ""),
            ("lct_bad_numbers", [L, "{T}/bn.lct"], "report", [], {"bn.lct": lct_text.replace("\t1\t2", "\tx\ty")}, ""),
            ("lct_end_junk", [L, "{T}/ej.lct"], "report", [], {"ej.lct": lct_text.replace("records=1", "records")}, ""),
            ("lct_cases_missing", [L, LCT, "--cases", "/nonexistent.csv"], "bad", ["/nonexistent.csv"], {}, ""),
            ("lct_cases_no_columns", [L, LCT, "--cases", "{T}/nc.csv"], "bad", ["nc.csv"], {"nc.csv": "a,b\n1,2\n"}, ""),
            ("lct_cases_nan", [L, LCT, "--cases", "{T}/cnan.cases.csv", "--json", "{T}/cnan.json"], "good", [],
             {"cnan.cases.csv": read(CASES).decode().replace("10,3246.288,", "10,nan,")}, ""),
            ("lct_json_full", [L, LCT, "--json", "/dev/full"], "bad", ["/dev/full"], {}, ""),
            ("lct_stdout_full", [L, LCT], "bad", ["stdout"], {}, ", stdout=open('/dev/full', 'w')"),
            ("summary_missing", [CS, "/nonexistent"], "bad", ["/nonexistent"], {}, ""),
            ("summary_file", [CS, "README.md"], "bad", ["README.md"], {}, ""),
            ("summary_cases_no_family", [CS, "{T}/run"], "bad", ["x.cases.csv"],
             {"run/sms132/x.log": "", "run/sms132/x.cases.csv": "a,b\n1,2\n"}, ""),
            ("clock_missing", [CL, "/nonexistent"], "bad", ["/nonexistent"], {}, ""),
            ("clock_no_args", [CL], "bad", ["usage"], {}, ""),
            ("clock_empty", [CL, "{T}/ck"], "bad", ["ck"], {"ck/clock_samples.csv.gz": b"", "ck/clock_iters.csv.gz": b""}, "")):
        if exp == "report":
            c(f"r4_script_{n}", ["@python", REPORT.format(argv=argv)], "good", want=["reported"], files=files)
        else:
            c(f"r4_script_{n}", ["@python", SCRIPT.format(argv=argv, out=out)], exp, want=want, files=files)
