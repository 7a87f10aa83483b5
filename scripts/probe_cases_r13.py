"""Probe cases (see probe_cases.py), thirteenth round: what round 12 left (`loom report` over JSON without `schema`, a
GPU file with an entry's values under another `name:`), then the paths earlier rounds touched least: `tune`'s
--fit/--validate/--export flags, `--set` scopes beside general keys, `trace import --from pipeweave|neusight|vidur`
rows whose shapes no reader takes, `e2e --replay --from` against the trace's own device, `whatif --pp`, `trace
diff|paths|fit-collectives` flags, request files through simulate and whatif, calibrate results, and the Python
module."""
import json
import os

from probe_cases import REPO
from probe_cases_r12 import loom_json

K = "rms_norm rows=4096 cols=8192 dtype=bf16"
G = "gemm m=4096 n=4096 k=4096 dtype=bf16"
P = ["predict", "--gpu", "h200", "--kernel", K]
S = ["simulate", "--gpu", "h200", "--model", "llama-3-8b"]
CHROME = "tests/data/trace/torch_profile_sample.json"  # recorded on an NVIDIA H200 (deviceProperties)
TUNE = ["tune", "--gpu", "h200", "--family", "gemm"]
CORPUS = "traces/h200/sms132-linear.corpus.csv.gz"
# Runs loom twice (argv A, argv B) and exits 0 when the two outputs agree, else prints one 'loom: ' line and exits 1:
# a value that one spelling applies and another silently drops.
SAME = ("import os, subprocess, sys\n"
        "def run(argv):\n"
        "    r = subprocess.run([os.environ['LOOM_PROBE_BINARY']] + argv, capture_output=True)\n"
        "    if r.returncode: sys.stderr.buffer.write(r.stderr); sys.exit(r.returncode)\n"
        "    return r.stdout\n"
        "a, b = run({a!r}), run({b!r})\n"
        "if a != b: print('loom: the two spellings differ: %r vs %r' % (a[:300], b[:300]), file=sys.stderr); sys.exit(1)\n"
        "sys.stdout.buffer.write(a)\n")


def add_round13(c):
    add_left_by_r12(c)
    add_tune_modes(c)
    add_set_scopes(c)
    add_import_shapes(c)
    add_replay_from(c)
    add_whatif_pp(c)
    add_trace_tools(c)
    add_requests(c)
    add_calibrate(c)
    add_python(c)


def add_left_by_r12(c):
    """A report input without `schema`, and a GPU file named otherwise than the entry whose values it has."""
    for kind in ("e2e", "whatif", "simulate"):
        j = loom_json(kind)
        body = json.dumps({k: v for k, v in j.items() if k != "schema"})
        c(f"r13_report_{kind}_no_schema", ["report", f"--{kind}", f"{{T}}/r13ns/{kind}.json", "-o", "{T}/r13ns/o.html"],
          want=[f"{kind}.json", "schema"], files={f"r13ns/{kind}.json": body})
        c(f"r13_report_{kind}_schema_null", ["report", f"--{kind}", f"{{T}}/r13sn/{kind}.json", "-o", "{T}/r13sn/o.html"],
          want=[f"{kind}.json", "schema"], files={f"r13sn/{kind}.json": json.dumps(dict(j, schema=None))})
    val = json.load(open(os.path.join(REPO, "tests/data/report/validation_small.json")))
    c("r13_report_validation_no_schema", ["report", "--validation", "{T}/r13nv.json", "-o", "{T}/r13nv.html"],
      want=["r13nv.json", "schema"], files={"r13nv.json": json.dumps({k: v for k, v in val.items() if k != "schema"})})
    c("r13_report_validation_schema", ["report", "--validation", "{T}/r13v.json", "-o", "{T}/r13v.html"], "good",
      files={"r13v.json": json.dumps(dict(val, schema="loom.validate/1"))}, empty_ok=True)
    c("r13_report_e2e_schema_ok", ["report", "--e2e", "{T}/r13ok.json", "-o", "{T}/r13ok.html"], "good",
      files={"r13ok.json": json.dumps(loom_json("e2e"))}, empty_ok=True)
    h200 = open(os.path.join(REPO, "gpus/h200.yaml")).read()
    lab = "\n".join("name: My Lab H200" if l.startswith("name:") else l for l in h200.split("\n"))
    c("r13_gpu_name_kept_show", ["gpus", "show", "{T}/r13lab/lab.yaml"], "good", want=["My Lab H200"],
      files={"r13lab/lab.yaml": lab})
    c("r13_gpu_name_kept_json", ["gpus", "show", "{T}/r13lab/lab.yaml", "--format", "json"], "good",
      want=["My Lab H200"])
    c("r13_gpu_name_extends", ["gpus", "show", "{T}/r13lab/ext.yaml"], "good", want=["Renamed"],
      files={"r13lab/ext.yaml": "extends: h200\nname: Renamed\n"})
    c("r13_gpu_name_predict_same", ["@python", SAME.format(a=["predict", "--gpu", "h200", "--kernel", K, "--format", "csv"],
                                                             b=["predict", "--gpu", "{T}/r13lab/ext.yaml", "--kernel", K,
                                                                "--format", "csv"])], "good")
    c("r13_gpu_name_whatif_one", ["whatif", "--model", "llama-3-8b", "--batch", "8", "--input-len", "512",
                                  "--output-len", "64", "--gpus", "h200,{T}/r13lab/ext.yaml"], want=["--gpus", "one GPU"])


def add_tune_modes(c):
    """--fit/--validate/--export flags: counts, fractions, mixes of modes; all refused before the corpus is read."""
    tr = ["--traces", "traces/tune"]
    for n, v in (("huge", "1e30"), ("fraction", "2.5"), ("zero", "0"), ("neg", "-3"), ("text", "four"), ("hex", "0x4"),
                 ("big_int", "4294967297")):
        c(f"r13_tune_anchors_{n}", TUNE + ["--validate", "--no-timing"] + tr + ["--anchors-per-bucket", v],
          want=["--anchors-per-bucket"])
        if n in ("huge", "fraction"):
            c(f"r13_tune_fit_anchors_{n}", TUNE + ["--fit", "--out", "{T}/r13fit.json"] + tr + ["--anchors-per-bucket", v],
              want=["--anchors-per-bucket"])
    for n, extra, want in (
            ("sample_one", ["--validate", "--sample-fraction", "1"] + tr, "--sample-fraction"),
            ("sample_nan", ["--fit", "--sample-fraction", "nan", "--out", "{T}/r13f.json"] + tr, "--sample-fraction"),
            ("lambda_neg", ["--validate", "--lambda", "-0.1"] + tr, "--lambda"),
            ("lambda_big", ["--fit", "--lambda", "1e9", "--out", "{T}/r13f.json"] + tr, "--lambda"),
            ("traces_missing", ["--fit", "--traces", "/nonexistent", "--out", "{T}/r13f.json"], "/nonexistent"),
            ("traces_file", ["--validate", "--traces", "README.md"], "README.md"),
            ("traces_none", ["--validate"], "--traces"),
            ("heldout_with_fit", ["--fit", "--heldout-traces", "traces/tune", "--out", "{T}/r13f.json"] + tr,
             "--heldout-traces"),
            ("no_timing_with_fit", ["--fit", "--no-timing", "--out", "{T}/r13f.json"] + tr, "--no-timing"),
            ("tables_with_fit", ["--fit", "--tables", "models/tune/h200-gemm.json", "--out", "{T}/r13f.json"] + tr,
             "--tables"),
            ("lambda_with_export", ["--export", "--lambda", "0.1", "--out", "{T}/r13e"], "--lambda"),
            ("traces_with_export", ["--export", "--out", "{T}/r13e"] + tr, "--traces"),
            ("fit_format_json", ["--fit", "--format", "json", "--out", "{T}/r13f.json"] + tr, "--format"),
            ("validate_format_csv", ["--validate", "--format", "csv"] + tr, "--format"),
            ("export_out_file", ["--export", "--out", "README.md"], "README.md"),
            ("export_out_missing", ["--export"], "--out"),
            ("two_modes", ["--fit", "--export", "--out", "{T}/r13e"], "--fit"),
            ("reps_with_plan", ["--plan", "--reps", "3"], "--reps"),
            ("extrapolate_with_export", ["--export", "--extrapolate", "ratio", "--out", "{T}/r13e"], "--extrapolate"),
            ("partial_with_gemm", ["--validate", "--partial-shapes", "10"] + tr, "--partial-shapes"),
            ("family_bad", ["--validate", "--family", "gemmm"] + tr, "gemmm")):
        argv = TUNE + extra if "--family" not in extra else ["tune", "--gpu", "h200"] + extra
        c(f"r13_tune_{n}", argv, want=[want])
    c("r13_tune_export_ok", TUNE + ["--export", "--out", "{T}/r13exp"], "good", want=["loom_tune_h200_gemm.h"])
    c("r13_tune_kernel_reps_neg", ["tune", "--gpu", "h200", "--kernel", G, "--reps", "-1"], want=["--reps"])
    c("r13_tune_kernel_reps_zero", ["tune", "--gpu", "h200", "--kernel", G, "--reps", "0"], "good")
    c("r13_tune_kernel_no_timing", ["tune", "--gpu", "h200", "--kernel", G, "--no-timing"], want=["--no-timing"])


def add_set_scopes(c):
    """A `GPU:key` --set beside a general --set of the same key, in either order: the scoped value is the GPU's."""
    k2 = ["predict", "--gpu", "h200,h100-sxm", "--kernel", G, "--format", "csv"]
    for n, sets in (("scoped_then_general", ["--set", "h200:sms=66", "--set", "sms=120"]),
                    ("general_then_scoped", ["--set", "sms=120", "--set", "h200:sms=66"])):
        c(f"r13_set_{n}", ["@python", SAME.format(a=k2 + ["--set", "h200:sms=66", "--set", "h100-sxm:sms=120"],
                                                  b=k2 + sets)], "good")
    c("r13_set_scoped_then_general_clock", ["@python", SAME.format(
        a=k2 + ["--set", "h200:clock.sustained=1500MHz", "--set", "h100-sxm:clock.sustained=1600MHz"],
        b=k2 + ["--set", "h200:clock.sustained=1500MHz", "--set", "clock.sustained=1600MHz"])], "good")
    w = ["whatif", "--model", "llama-3-8b", "--batch", "8", "--input-len", "512", "--output-len", "64", "--gpus",
         "h200,h100-sxm", "--format", "csv"]
    c("r13_set_whatif_scoped_general", ["@python", SAME.format(a=w + ["--set", "h200:sms=66", "--set", "h100-sxm:sms=120"],
                                                               b=w + ["--set", "h200:sms=66", "--set", "sms=120"])],
      "good")
    for n, s in (("scope_twice", ["--set", "h200:sms=66", "--set", "h200:sms=66"]), ("scope_empty_key", ["--set", "h200:=5"]),
                 ("scope_only", ["--set", "h200:"]), ("scope_list", ["--set", "h200,h100-sxm:sms=66"])):
        c(f"r13_set_{n}", k2 + s, want=["--set"])


def add_import_shapes(c):
    """Public rows whose shapes predict refuses (beyond 2^40 elements) must not enter a corpus with exit 0."""
    pw = "M,N,K,avg_duration,hardware\n"
    for n, body, exp in (("huge", pw + "1000000000,1000000000,1000000000,12.5,NVIDIA H100\n", "bad"),
                         ("big_ok", pw + "65536,65536,65536,300000,NVIDIA H100\n", "good"),
                         ("two_hw", pw + "64,4096,4096,12,NVIDIA H100\n64,4096,4096,12,NVIDIA H200\n", "good"),
                         ("zero_m", pw + "0,4096,4096,12,NVIDIA H100\n", "bad"),
                         ("frac_m", pw + "64.5,4096,4096,12,NVIDIA H100\n", "bad"),
                         ("neg_dur", pw + "64,4096,4096,-1,NVIDIA H100\n", "bad"),
                         ("hw_unknown", pw + "64,4096,4096,12,NVIDIA H999\n", "bad"),
                         ("header_only", pw, "bad"),
                         ("crlf", pw.replace("\n", "\r\n") + "64,4096,4096,12,NVIDIA H100\r\n", "good")):
        name = f"r13pw_{n}/gemm_fp8_test.csv"
        c(f"r13_import_pipeweave_{n}", ["trace", "import", "--from", "pipeweave", "{T}/" + name, "--out",
                                        f"{{T}}/r13pwo_{n}"], exp, want=["gemm_fp8_test.csv"] if exp == "bad" else [],
          files={name: body})
    ns = open(os.path.join(REPO, "tests/data/public/neusight_ok.csv")).read()
    for n, tail, exp in (("huge", ",1099511627776,1099511627776,True", "bad"), ("one", ",32768,1,True", "good"),
                         ("zero", ",0,1600,True", "bad")):
        c(f"r13_import_neusight_{n}", ["trace", "import", "--from", "neusight", f"{{T}}/r13ns_{n}.csv", "--out",
                                       f"{{T}}/r13nso_{n}"], exp, want=[f"r13ns_{n}.csv"] if exp == "bad" else [],
          files={f"r13ns_{n}.csv": ns.replace(",32768,1600,True", tail)})
    vd = open(os.path.join(REPO, "tests/data/public/vidur_no_gpu_path.csv")).read().split("\n")
    huge = vd[1].rsplit(",", 2)
    c("r13_import_vidur_huge_tokens", ["trace", "import", "--from", "vidur", "{T}/r13vd.csv", "--gpu", "a100-sxm4-80gb",
                                       "--out", "{T}/r13vdo"], want=["r13vd.csv"],
      files={"r13vd.csv": "\n".join([vd[0], huge[0] + ",1099511627776," + huge[2]]) + "\n"})


def add_replay_from(c):
    """`e2e --replay --from G0` where the trace's deviceProperties name another GPU."""
    r = ["e2e", "--gpu", "h100-sxm", "--replay", CHROME]
    c("r13_replay_from_other", r + ["--from", "a100-sxm4-80gb"], want=["--from", "H200"])
    c("r13_replay_from_other_json", r + ["--from", "l4", "--format", "json"], want=["--from"])
    c("r13_replay_from_same", r + ["--from", "h200"], "good")
    c("r13_replay_from_file", r + ["--from", "gpus/h200.yaml"], "good")
    c("r13_replay_from_overlay", r + ["--from", "{T}/r13cal.yaml"], "good",
      files={"r13cal.yaml": "extends: h200\nname: NVIDIA H200 (calibrated)\nclock:\n  tensor_load: 1500 MHz\n"})
    c("r13_replay_from_nodevice", ["e2e", "--gpu", "h100-sxm", "--replay", "{T}/r13nd.json", "--from", "a100-sxm4-80gb"],
      "good", files={"r13nd.json": json.dumps({k: v for k, v in json.load(open(os.path.join(REPO, CHROME))).items()
                                               if k != "deviceProperties"})})


def add_whatif_pp(c):
    wc = ["whatif", "--model", "llama-3-8b", "--gpus", "h200,h100-sxm", "--rate", "2", "--num-requests", "50"]
    c("r13_whatif_pp_layers", wc + ["--pp", "33"], want=["--pp", "33"])
    c("r13_whatif_pp_one_gpu", ["whatif", "--model", "llama-3-8b", "--gpus", "h200", "--rate", "2", "--pp", "40"],
      want=["--pp"])
    c("r13_whatif_pp_65", wc + ["--pp", "65"], want=["--pp"])
    c("r13_whatif_pp_ok", wc + ["--pp", "2", "--tp", "1"], "good")
    c("r13_sim_pp_layers", S + ["--rate", "2", "--num-requests", "20", "--pp", "33"], want=["--pp", "33"])


def add_trace_tools(c):
    """trace diff / paths / fit-collectives / compact / summary: flags and arguments."""
    for n, argv, want in (("diff_format", ["trace", "diff", CORPUS, CORPUS, "--format", "json"], ["--format", "no flags"]),
                          ("diff_gpu", ["trace", "diff", CORPUS, CORPUS, "--gpu", "h200"], ["--gpu", "no flags"]),
                          ("diff_one", ["trace", "diff", CORPUS], ["trace diff"]),
                          ("diff_dir", ["trace", "diff", CORPUS, "traces/h200"], ["traces/h200"]),
                          ("diff_lct", ["trace", "diff", CORPUS, "traces/e2e/h200/graph_decode.lct.gz"], ["graph_decode"]),
                          ("paths_format", ["trace", "paths", "-o", "{T}/r13p.json", "--format", "json"], ["--format"]),
                          ("paths_two_dirs", ["trace", "paths", "traces", "traces", "-o", "{T}/r13p.json"], ["trace paths"]),
                          ("fitc_format", ["trace", "fit-collectives", "-o", "{T}/r13c.json", "--format", "csv"],
                           ["--format"]),
                          ("fitc_lenient", ["trace", "fit-collectives", "--lenient"], ["--lenient"]),
                          ("compact_out_alias", ["trace", "compact", CORPUS, "--out", "{T}/r13x.csv"], ["--out"]),
                          ("summary_gpu", ["trace", "summary", "traces/h200", "--gpu", "h200"], ["--gpu"]),
                          ("summary_dataset", ["trace", "summary", "traces/h200", "--dataset", "x"], ["--dataset"])):
        c(f"r13_trace_{n}", argv, want=want)
    c("r13_trace_diff_same", ["trace", "diff", CORPUS, CORPUS], "good", want=["same"])


def add_requests(c):
    """Request files through simulate and whatif's capacity mode."""
    h = "arrival_s,prompt_tokens,output_tokens\n"
    for n, body, exp in (("bom", "\ufeff" + h + "0,100,10\n0.5,100,10\n", "good"),
                         ("unsorted", h + "1,100,10\n0.5,100,10\n", "any"),
                         ("crlf", (h + "0,100,10\n0.5,120,12\n").replace("\n", "\r\n"), "good"),
                         ("no_newline", h + "0,100,10\n0.5,100,10", "good"),
                         ("sci_tokens", h + "0,1e2,10\n", "any"),
                         ("frac_tokens", h + "0,100.5,10\n", "bad"),
                         ("semicolon", h.replace(",", ";") + "0;100;10\n", "bad"),
                         ("quoted", h + '"0","100","10"\n', "any"),
                         ("tab", h + "0,\t100,10\n", "any"),
                         ("blank_middle", h + "0,100,10\n\n0.5,100,10\n", "any"),
                         ("header_twice", h + h + "0,100,10\n", "bad"),
                         ("cols_reordered", "prompt_tokens,arrival_s,output_tokens\n100,0,10\n", "any")):
        c(f"r13_req_{n}", S + ["--requests", f"{{T}}/r13req_{n}.csv"], exp,
          want=[f"r13req_{n}.csv"] if exp == "bad" else [], files={f"r13req_{n}.csv": body})
    for n, body, exp in (("jsonl_float_tokens", '{"arrival_s":0,"prompt_tokens":100.5,"output_tokens":10}\n', "bad"),
                         ("jsonl_int_as_float", '{"arrival_s":0,"prompt_tokens":100.0,"output_tokens":10}\n', "any"),
                         ("jsonl_nested", '{"arrival_s":0,"prompt_tokens":{"n":100},"output_tokens":10}\n', "bad"),
                         ("jsonl_bom", '\ufeff{"arrival_s":0,"prompt_tokens":100,"output_tokens":10}\n', "any"),
                         ("jsonl_big_int", '{"arrival_s":0,"prompt_tokens":18446744073709551617,"output_tokens":10}\n',
                          "bad")):
        c(f"r13_req_{n}", S + ["--requests", f"{{T}}/r13req_{n}.jsonl"], exp,
          want=[f"r13req_{n}.jsonl"] if exp == "bad" else [], files={f"r13req_{n}.jsonl": body})
    wc = ["whatif", "--model", "llama-3-8b", "--gpus", "h200", "--requests"]
    c("r13_req_whatif_ok", wc + ["tests/data/serving/requests.csv", "--format", "json"], "any")
    c("r13_req_whatif_one", wc + ["{T}/r13w1.csv"], want=["--requests"], files={"r13w1.csv": h + "0,100,10\n"})
    c("r13_req_whatif_same_time", wc + ["{T}/r13w2.csv"], "any", files={"r13w2.csv": h + "0,100,10\n0,100,10\n"})


def add_calibrate(c):
    cal = json.load(open(os.path.join(REPO, "tests/data/calibrate/good.json")))

    def edit(f):
        j = json.loads(json.dumps(cal))
        f(j)
        return json.dumps(j)

    for n, f, exp in (("sms_partition", lambda j: j.update(sms=66, sms_source="driver"), "good"),
                      ("sms_float", lambda j: j.update(sms=66.5), "bad"),
                      ("slowdown_str", lambda j: j["tensor"]["bf16"].update(slowdown="1.1"), "bad"),
                      ("tensor_list", lambda j: j.update(tensor=[1]), "bad"),
                      ("device_str", lambda j: j.update(device="H100"), "bad"),
                      ("launch_null", lambda j: j.update(launch=None), "bad"),
                      ("graph_zero", lambda j: j["launch"].update(graph_us_per_kernel=0), "any"),
                      ("nvml_str", lambda j: j.update(nvml="yes"), "bad"),
                      ("date_empty", lambda j: j.update(date=""), "bad")):
        c(f"r13_cal_{n}", ["calibrate", f"{{T}}/r13cal_{n}.json", "--gpu", "h100-sxm"], exp,
          want=[f"r13cal_{n}.json"] if exp == "bad" else [], files={f"r13cal_{n}.json": edit(f)})


from probe_lib import PY  # noqa: E402  (the Python-module program, round 17's shared helpers)


def add_python(c):
    row = "{'family': 'gemm', 'm': 64, 'n': 64, 'k': 64, 'dtype': 'bf16'}"
    for n, expr, exp, want in (
            ("batch_empty", "loom.predict_batch('h200', [])", "any", []),
            ("batch_str_int", f"loom.predict_batch('h200', [dict({row}, m='64')])", "any", []),
            ("batch_str_bad", f"loom.predict_batch('h200', [dict({row}, m='6x4')])", "bad", ["m"]),
            ("batch_gpu_path", f"loom.predict_batch('gpus/h200.yaml', [{row}])['latency_us'] == "
                               f"loom.predict_batch('h200', [{row}])['latency_us'] or 1/0", "good", []),
            ("batch_gpu_col_bad", f"loom.predict_batch('h200', [dict({row}, gpu='h2000')])", "bad", ["h2000"]),
            ("name_kept", "loom.predict('{T}/r13lab/ext.yaml', 'gemm m=64 n=64 k=64 dtype=bf16')", "any", []),
            ("e2e_float_batch", "loom.e2e('h200', 'llama-3-8b', 'decode', batch=4.5, context=64)", "any", []),
            ("tune_impl_triton_fp8", "loom.tune('h200', 'gemm m=64 n=4096 k=4096 dtype=fp8 impl=triton')", "any", []),
            ("diagnose_collective_one", "loom.diagnose('h200', 'all_gather bytes=64 gpus=1')", "bad", ["gpus=1"])):
        c(f"r13_py_{n}", ["@python", PY.format(expr=expr)], exp, want=want)
