"""Probe cases (see probe_cases.py), fourteenth round: what round 13 left (`tune --fit` without --out, public rows
faster than the GPU's peak, `simulate --router` with one replica, calibrate's `sms_source`, corpus rows whose specs
no command takes), then the paths earlier rounds touched least (counted per command and flag over build_cases):
`tune --validate --heldout-traces DIR [--heldout-only]` and its JSON `by_batch`, `trace import --from` edge rows,
`e2e --replay`, `loom report` of each JSON kind, `--set` of every GPU key with a bad unit, diagnose/validate flags,
and the Python module's entry points."""
import json
import os

from probe_cases import REPO
from probe_cases_r12 import loom_json

G = "gemm m=4096 n=4096 k=4096 dtype=bf16"
P = ["predict", "--gpu", "h200", "--kernel", G]
S = ["simulate", "--gpu", "h200", "--model", "llama-3-8b", "--rate", "2", "--num-requests", "20"]
TUNE = ["tune", "--gpu", "h200"]
CHROME = "tests/data/trace/torch_profile_sample.json"
CORPUS = "traces/h200/sms132-linear.corpus.csv.gz"
PW = "M,N,K,avg_duration,hardware\n"  # PipeWeave's fp8 GEMM set (gemm_fp8_test.csv), durations in us
# Runs loom with argv and restores `table` (a committed file the run may write over) whatever it did.
KEEP = ("import os, subprocess, sys\n"
        "keep = open({table!r}, 'rb').read()\n"
        "r = subprocess.run([os.environ['LOOM_PROBE_BINARY']] + {argv!r}, capture_output=True)\n"
        "if open({table!r}, 'rb').read() != keep: open({table!r}, 'wb').write(keep)\n"
        "sys.stdout.buffer.write(r.stdout); sys.stderr.buffer.write(r.stderr); sys.exit(r.returncode)\n")


def add_round14(c):
    add_left_by_r13(c)
    add_corpus_specs(c)
    add_heldout(c)
    add_import_rows(c)
    add_replay(c)
    add_report_kinds(c)
    add_set_units(c)
    add_few_flags(c)
    add_python(c)


def add_left_by_r13(c):
    """tune --fit needs --out; faster-than-peak rows; --router with one replica; calibrate's sms_source."""
    for fam in ("gemm", "gemm-cublaslt", "moe-triton"):  # (a binary that writes the table gets it restored)
        c(f"r14_tune_fit_no_out_{fam}", ["@python", KEEP.format(table=f"models/tune/h200-{fam}.json", argv=TUNE + [
            "--family", fam, "--fit", "--traces", "traces/tune"])], want=["--out"])
    c("r14_tune_fit_no_out_no_traces", TUNE + ["--family", "gemm", "--fit"], want=["--out"])
    for n, body, exp, extra in (
            ("peak_fp8", PW + "64,4096,4096,0.5,NVIDIA H100\n", "bad", []),
            ("peak_fp8_lenient", PW + "64,4096,4096,0.5,NVIDIA H100\n128,4096,4096,12,NVIDIA H100\n", "good",
             ["--lenient"]),
            ("peak_all_lenient", PW + "64,4096,4096,0.5,NVIDIA H100\n", "bad", ["--lenient"]),
            ("peak_huge_fast", PW + "65536,65536,65536,1,NVIDIA H100\n", "bad", []),
            ("peak_just_above", PW + "8192,8192,8192,600,NVIDIA H100\n", "good", []),
            ("peak_second_gpu", PW + "64,4096,4096,12,NVIDIA H100\n64,4096,4096,0.01,NVIDIA H200\n", "bad", [])):
        name = f"r14pw_{n}/gemm_fp8_test.csv"
        c(f"r14_import_{n}", ["trace", "import", "--from", "pipeweave", "{T}/" + name, "--out", f"{{T}}/r14pwo_{n}"] +
          extra, exp, want=["gemm_fp8_test.csv", "peak"] if exp == "bad" else [], files={name: body})
    ns = ("OPName,Latency,Device,Torch Version,CUDNN Version,Kernel Name,Warps per SM,Blocks per SM,Grid x,Grid y,"
          "Grid z,Block x,Block y,Block z,CUDA Version,B,M,N,K\n")
    row = "bmm,{ms},Tesla V100-PCIE-32GB,p2.1.0,8902,volta_sgemm_128x64_nn,8,1,64,64,8,256,1,1,cu121,8,2048,2048,2048\n"
    c("r14_import_neusight_bmm_peak", ["trace", "import", "--from", "neusight", "{T}/r14nsb.csv", "--out",
                                       "{T}/r14nsbo"], want=["r14nsb.csv", "peak"],
      files={"r14nsb.csv": ns + row.format(ms="0.001")})
    c("r14_import_neusight_bmm_ok", ["trace", "import", "--from", "neusight", "{T}/r14nsk.csv", "--out",
                                     "{T}/r14nsko"], "good", files={"r14nsk.csv": ns + row.format(ms="12.5")})
    one = ["--replicas", "1"]
    c("r14_sim_router_lo_one", S + ["--router", "least_outstanding"], want=["--router", "replica"])
    c("r14_sim_router_rr_one", S + one + ["--router", "round_robin"], want=["--router"])
    c("r14_sim_router_lo_two", S + ["--replicas", "2", "--router", "least_outstanding"], "good")
    c("r14_sim_router_json", S + ["--router", "least_outstanding", "--format", "json"], want=["--router"])
    c("r14_whatif_router", ["whatif", "--model", "llama-3-8b", "--gpus", "h200", "--rate", "2", "--router",
                            "least_outstanding"], want=["--router"])
    cal = json.load(open(os.path.join(REPO, "tests/data/calibrate/good.json")))

    def edit(**kw):
        j = json.loads(json.dumps(cal))
        for k, v in kw.items():
            if v is None:
                j.pop(k, None)
            else:
                j[k] = v
        return json.dumps(j)

    for n, body, exp in (("bogus", edit(sms_source="bogus"), "bad"),
                         ("number", edit(sms_source=5), "bad"),
                         ("empty", edit(sms_source=""), "bad"),
                         ("all_partition", edit(sms=66, sms_source="all"), "bad"),
                         ("driver_whole", edit(sms_source="driver"), "bad"),
                         ("guess_whole", edit(sms_source="guess"), "bad"),
                         ("driver_partition", edit(sms=64, sms_source="driver"), "good"),
                         ("guess_partition", edit(sms=72, sms_source="guess"), "good"),
                         ("absent", edit(sms_source=None), "good")):
        c(f"r14_cal_sms_source_{n}", ["calibrate", f"{{T}}/r14cal_{n}.json", "--gpu", "h100-sxm"], exp,
          want=[f"r14cal_{n}.json", "sms_source"] if exp == "bad" else (["guessed"] if n == "guess_partition" else []),
          files={f"r14cal_{n}.json": body})


def corpus_text(spec, median="12.5"):
    head = open(os.path.join(REPO, "tests/data/r9_train_one/one.corpus.csv")).read().split("\n")
    lines = [x for x in head if x.startswith("#") or x.startswith("case_id")]
    return "\n".join(lines + [f"1,gemm,{spec},library,k,1:1:1,128:1:1,32,0,5,{median},{median},{median},0.5,"]) + "\n"


def add_corpus_specs(c):
    """A corpus row whose spec no command takes: read by every corpus reader (summary, diff, compact, validate)."""
    for n, spec in (("huge", "gemm m=1073741824 n=1073741824 k=1073741824 dtype=bf16"),
                    ("zero", "gemm m=0 n=64 k=64 dtype=bf16"),
                    ("unknown_key", "gemm m=64 n=64 k=64 dtype=bf16 foo=1"),
                    ("bad_dtype", "gemm m=64 n=64 k=64 dtype=bf17"),
                    ("missing_key", "gemm m=64 n=64 dtype=bf16")):
        f = f"r14cs_{n}/h200/x.corpus.csv"
        c(f"r14_corpus_{n}_summary", ["trace", "summary", f"{{T}}/r14cs_{n}"], want=["x.corpus.csv"],
          files={f: corpus_text(spec)})
        if n in ("huge", "unknown_key"):
            c(f"r14_corpus_{n}_diff", ["trace", "diff", "{T}/" + f, CORPUS], want=["x.corpus.csv"])
            c(f"r14_corpus_{n}_compact", ["trace", "compact", "{T}/" + f, "-o", "{T}/r14cc.corpus.csv.gz"],
              want=["x.corpus.csv"])
            c(f"r14_corpus_{n}_validate", ["validate", "--traces", f"{{T}}/r14cs_{n}"], want=["x.corpus.csv"])
    c("r14_corpus_ok_summary", ["trace", "summary", "{T}/r14cs_ok"], "good",
      files={"r14cs_ok/h200/x.corpus.csv": corpus_text("gemm m=64 n=64 k=64 dtype=bf16")})
    c("r14_corpus_summary_lenient", ["trace", "summary", "{T}/r14cs_huge", "--lenient"], "any")


def add_heldout(c):
    """tune --validate --heldout-traces DIR [--heldout-only]: folders, families, formats, other modes."""
    v = TUNE + ["--family", "moe-triton-fp8", "--validate", "--no-timing", "--traces", "traces/tune"]
    blind = "traces/checks/tune-blind/h200"
    for n, extra, exp, want in (
            ("missing", ["--heldout-traces", "/nonexistent", "--heldout-only"], "bad", ["/nonexistent"]),
            ("file", ["--heldout-traces", "README.md"], "bad", ["README.md"]),
            ("empty_dir", ["--heldout-traces", "{T}/r14empty", "--heldout-only"], "bad", ["r14empty"]),
            ("empty_arg", ["--heldout-traces", "", "--heldout-only"], "bad", ["--heldout-traces"]),
            ("other_gpu", ["--heldout-traces", "traces/checks/tune-blind/h100", "--heldout-only"], "bad", ["h100"]),
            ("only_alone", ["--heldout-only"], "bad", ["--heldout-only"]),
            ("csv", ["--heldout-traces", blind, "--heldout-only", "--format", "csv"], "bad", ["--format"]),
            ("json", ["--heldout-traces", blind, "--heldout-only", "--format", "json"], "good", ["by_batch"]),
            ("table", ["--heldout-traces", blind, "--heldout-only"], "good", []),
            ("with_pool", ["--heldout-traces", blind, "--format", "json"], "good", ["by_batch"]),
            ("same_as_traces", ["--heldout-traces", "traces/tune", "--heldout-only"], "any", [])):
        c(f"r14_heldout_{n}", v + extra, exp, want=want, files={"r14empty/.keep": ""} if n == "empty_dir" else None)
    c("r14_heldout_gemm_family", TUNE + ["--family", "gemm", "--validate", "--no-timing", "--traces", "traces/tune",
                                         "--heldout-traces", blind, "--heldout-only"], want=["--heldout-traces"])
    c("r14_heldout_with_fit", TUNE + ["--family", "moe-triton-fp8", "--fit", "--traces", "traces/tune", "--out",
                                      "{T}/r14f.json", "--heldout-only"], want=["--heldout-only"])
    c("r14_heldout_with_kernel", TUNE + ["--kernel", G, "--heldout-only"], want=["--heldout-only"])
    c("r14_heldout_with_plan", TUNE + ["--family", "gemm", "--plan", "--heldout-traces", blind], want=["--heldout"])


def add_import_rows(c):
    """trace import --from: edge rows of each source."""
    for n, body, exp in (("space_num", PW + " 64,4096,4096,12,NVIDIA H100\n", "bad"),
                         ("exp_m", PW + "6.4e1,4096,4096,12,NVIDIA H100\n", "bad"),
                         ("neg_zero", PW + "-0,4096,4096,12,NVIDIA H100\n", "bad"),
                         ("trailing_comma", PW + "64,4096,4096,12,NVIDIA H100,\n", "bad"),
                         ("quoted", PW + '"64","4096","4096","12","NVIDIA H100"\n', "any"),
                         ("dup_rows", PW + "64,4096,4096,12,NVIDIA H100\n64,4096,4096,13,NVIDIA H100\n", "good"),
                         ("dur_min", PW + "64,4096,4096,0.000001,NVIDIA H100\n", "bad"),
                         ("dur_max", PW + "64,4096,4096,10000000,NVIDIA H100\n", "any"),
                         ("dur_above_max", PW + "64,4096,4096,10000001,NVIDIA H100\n", "bad"),
                         ("hw_empty", PW + "64,4096,4096,12,\n", "bad"),
                         ("tabs", PW.replace(",", "\t") + "64\t4096\t4096\t12\tNVIDIA H100\n", "bad"),
                         ("utf16", (PW + "64,4096,4096,12,NVIDIA H100\n").encode("utf-16"), "bad"),
                         ("nul", PW + "64,4096,40\x0096,12,NVIDIA H100\n", "bad"),
                         ("gpu_flag_conflict", PW + "64,4096,4096,12,NVIDIA H100\n", "bad"),
                         ("gpu_flag_unknown_hw", PW + "64,4096,4096,12,NVIDIA H999\n", "good")):
        name = f"r14pe_{n}/gemm_fp8_test.csv"
        extra = ["--gpu", "h200"] if n.startswith("gpu_flag") else []
        c(f"r14_import_pw_{n}", ["trace", "import", "--from", "pipeweave", "{T}/" + name, "--out",
                                 f"{{T}}/r14peo_{n}"] + extra, exp,
          want=["gemm_fp8_test.csv"] if exp == "bad" else [], files={name: body})
    moe = ("weight_type,M,E,topk,H,N,BLOCK_SIZE_M,BLOCK_SIZE_N,BLOCK_SIZE_K,GROUP_SIZE_M,num_warps,num_stages,"
           "avg_duration,sample_count\nw13,1,8,2,1024,512,16,16,128,1,4,3,4.27,3\n")
    for n, gpu, exp in (("moe_gpu_conflict", ["--gpu", "h200"], "bad"), ("moe_gpu_same", ["--gpu", "h800"], "good"),
                        ("moe_ok", [], "good")):
        c(f"r14_import_pw_{n}", ["trace", "import", "--from", "pipeweave", f"{{T}}/r14pm_{n}/moe_dse_H800_x.csv",
                                 "--out", f"{{T}}/r14pmo_{n}"] + gpu, exp, want=["--gpu"] if exp == "bad" else [],
          files={f"r14pm_{n}/moe_dse_H800_x.csv": moe})
    vd = open(os.path.join(REPO, "tests/data/public/vidur_no_gpu_path.csv")).read()
    c("r14_import_vidur_no_gpu", ["trace", "import", "--from", "vidur", "{T}/r14vd.csv", "--out", "{T}/r14vdo"],
      want=["--gpu"], files={"r14vd.csv": vd})
    c("r14_import_vidur_ok", ["trace", "import", "--from", "vidur", "{T}/r14vd.csv", "--gpu", "a100-sxm4-80gb",
                              "--out", "{T}/r14vdo2", "--format", "json"], "good")
    c("r14_import_vidur_gpu_path", ["trace", "import", "--from", "vidur", "{T}/r14vd.csv", "--gpu", "gpus/h200.yaml",
                                    "--out", "{T}/r14vdo3"], want=["--gpu"])
    c("r14_import_from_twice", ["trace", "import", "--from", "vidur", "--from", "neusight", "{T}/r14vd.csv", "--out",
                                "{T}/r14vdo4"], want=["--from"])
    c("r14_import_same_file_twice", ["trace", "import", "--from", "vidur", "{T}/r14vd.csv", "{T}/r14vd.csv", "--gpu",
                                     "a100-sxm4-80gb", "--out", "{T}/r14vdo5"], want=["r14vd.csv"])


def add_replay(c):
    """e2e --replay: traces missing parts, odd events, flags of another mode."""
    j = json.load(open(os.path.join(REPO, CHROME)))
    r = ["e2e", "--gpu", "h200", "--replay"]

    def trace(f):
        t = json.loads(json.dumps(j))
        f(t)
        return json.dumps(t)

    def kernels(t):
        return [e for e in t["traceEvents"] if e.get("cat") == "kernel"]

    for n, body, exp in (("no_events", trace(lambda t: t.pop("traceEvents")), "bad"),
                         ("events_empty", trace(lambda t: t.update(traceEvents=[])), "bad"),
                         ("no_kernels", trace(lambda t: t.update(traceEvents=[e for e in t["traceEvents"]
                                                                            if e.get("cat") != "kernel"])), "bad"),
                         ("neg_dur", trace(lambda t: kernels(t)[0].update(dur=-5)), "bad"),
                         ("nan_ts", trace(lambda t: kernels(t)[0].update(ts="nan")), "any"),  # skipped, said
                         ("reversed", trace(lambda t: t["traceEvents"].reverse()), "any"),
                         ("events_object", trace(lambda t: t.update(traceEvents={})), "bad"),
                         ("top_array", json.dumps(j["traceEvents"]), "any")):
        c(f"r14_replay_{n}", r + [f"{{T}}/r14rp_{n}.json"], exp, want=[f"r14rp_{n}.json"] if exp == "bad" else [],
          files={f"r14rp_{n}.json": body})
    for n, extra, want in (("phase", ["--phase", "decode"], "--phase"), ("batch", ["--batch", "4"], "--batch"),
                           ("gpu_all", [], "--gpu"), ("dir", [], "traces")):
        argv = (["e2e", "--gpu", "all", "--replay", CHROME] if n == "gpu_all" else
                r + ["traces"] if n == "dir" else r + [CHROME] + extra)
        c(f"r14_replay_flag_{n}", argv, want=[want])
    c("r14_replay_csv", r + [CHROME, "--format", "csv"], "any")
    c("r14_replay_json", r + [CHROME, "--format", "json"], "good")
    c("r14_replay_analytical", r + [CHROME, "--kernel-model", "analytical"], "good")
    c("r14_replay_trace_out_dir", r + [CHROME, "--trace-out", "traces"], want=["--trace-out"])


def add_report_kinds(c):
    """loom report of each JSON kind: another kind's schema, a later version, an array, odd numbers; its flags."""
    for kind in ("e2e", "whatif", "simulate"):
        j = loom_json(kind)
        other = "simulate" if kind != "simulate" else "e2e"
        for n, body in (("v2", dict(j, schema=f"loom.{kind}/2")), ("other_kind", dict(j, schema=f"loom.{other}/1")),
                        ("array", [j])):
            c(f"r14_report_{kind}_{n}", ["report", f"--{kind}", f"{{T}}/r14rk_{kind}_{n}.json", "-o", "{T}/r14o.html"],
              want=[f"r14rk_{kind}_{n}.json"], files={f"r14rk_{kind}_{n}.json": json.dumps(body)})
    val = json.load(open(os.path.join(REPO, "tests/data/report/validation_small.json")))
    c("r14_report_validation_v2", ["report", "--validation", "{T}/r14v2.json", "-o", "{T}/r14o.html"],
      want=["r14v2.json"], files={"r14v2.json": json.dumps(dict(val, schema="loom.validate/2"))})
    e = loom_json("e2e")
    for n, argv, exp, want in (
            ("title_ctrl", ["--title", "a\x1b[31mred"], "any", []),
            ("scatter_zero", ["--scatter-max", "0"], "bad", ["--scatter-max"]),
            ("scatter_neg", ["--scatter-max", "-1"], "bad", ["--scatter-max"]),
            ("scatter_frac", ["--scatter-max", "2.5"], "bad", ["--scatter-max"]),
            ("roofline_text", ["--roofline-max", "many"], "bad", ["--roofline-max"]),
            ("out_dir", ["-o", "traces"], "bad", ["traces"]),
            ("out_full", ["-o", "/dev/full"], "bad", ["/dev/full"])):
        out = [] if n.startswith("out_") else ["-o", "{T}/r14o2.html"]
        c(f"r14_report_flag_{n}", ["report", "--e2e", "{T}/r14e.json"] + out + argv, exp, want=want,
          files={"r14e.json": json.dumps(e)}, empty_ok=True)


# Each GPU key (hw/gpu_schema.cpp) given a value in a unit of another kind: refused naming the key.
SET_BAD = {"name": None, "architecture": "5 GHz", "compute_capability": "9.0 GB", "sms": "132 MHz",
           "clock.boost": "1980 GB", "clock.sustained": "1.7 TB/s", "clock.tensor_load": "1500 W",
           "sustained_load.tensor_slowdown": "1.1 MHz", "sustained_load.onset": "0.15 GB",
           "fp32": "128 MHz", "fp64": "64 W", "sfu": "16 TB/s", "int": "64 s", "smem_bandwidth": "128 MHz",
           "sm_limits.registers": "65536 MHz", "sm_limits.max_regs_per_thread": "255 GB",
           "sm_limits.shared_memory": "228 MHz", "sm_limits.shared_memory_per_block": "227 W",
           "sm_limits.max_threads": "2048 GB", "sm_limits.max_ctas": "32 us",
           "sm_limits.max_threads_per_block": "1 KiB",
           "l1": "256 MHz", "l2.size": "50 TB/s", "l2.bandwidth": "8.7 TB", "l2.per_sm": "48 MHz",
           "dram.size": "141 GB/s", "dram.bandwidth": "4.8 TB", "dram.type": "5 GB", "dram.ecc": "2 W",
           "launch_overhead": "2 GB", "graph_gap": "1.2 MHz", "host.cpu_speed": "1 GHz",
           "interconnect.nvlink": "900 GB", "interconnect.pcie": "64 MHz", "interconnect.gpus_per_node": "8 GB",
           "interconnect.nvlink_gpus": "8 W", "interconnect.topology": "3 GB/s", "tdp": "700 MHz",
           "price": "4 W", "tensor.fp64": "64 GB", "tensor.tf32": "512 W", "tensor.fp16": "1024 MHz",
           "tensor.bf16": "1024 TB/s", "tensor.fp8": "2048 s"}


def add_set_units(c):
    for key, value in SET_BAD.items():
        if value is None:
            continue
        c(f"r14_set_unit_{key}", P + ["--set", f"{key}={value}"], want=[key])


def add_few_flags(c):
    """Flags with the fewest cases so far: diagnose, validate, tune --extrapolate/--partial-shapes, simulate --clock."""
    d = ["diagnose", "--gpu", "h200", "--kernel", G]
    for n, v, exp in (("nan", "nan", "bad"), ("zero", "0", "bad"), ("neg", "-3", "bad"), ("huge", "1e300", "bad"),
                      ("unit", "30us", "bad"), ("tiny", "0.001", "any")):
        c(f"r14_diagnose_measured_{n}", d + ["--measured-us", v], exp, want=["--measured-us"] if exp == "bad" else [])
    c("r14_diagnose_measured_twice", d + ["--measured-us", "30", "--measured-us", "40"], want=["--measured-us"])
    c("r14_diagnose_collective", ["diagnose", "--gpu", "h200", "--kernel", "all_reduce bytes=1048576 gpus=8",
                                  "--format", "json"], "good")
    for n, extra, want in (("max_mape_neg", ["--max-mape", "-1"], "--max-mape"),
                           ("max_mape_text", ["--max-mape", "ten"], "--max-mape"),
                           ("model_dir_missing", ["--model-dir", "/nonexistent"], "/nonexistent"),
                           ("out_dir", ["--out", "traces"], "traces")):
        c(f"r14_validate_{n}", ["validate"] + extra, want=[want])
    for n, extra, want in (("extrapolate_bad", ["--kernel", G, "--extrapolate", "cubic"], "--extrapolate"),
                           ("extrapolate_validate", ["--family", "gemm", "--validate", "--traces", "traces/tune",
                                                     "--extrapolate", "ratio"], "--extrapolate"),
                           ("partial_neg", ["--family", "gemm-cublaslt", "--validate", "--traces", "traces/tune",
                                            "--partial-shapes", "-1"], "--partial-shapes"),
                           ("partial_text", ["--family", "gemm-cublaslt", "--validate", "--traces", "traces/tune",
                                             "--partial-shapes", "some"], "--partial-shapes")):
        c(f"r14_tune_{n}", TUNE + extra, want=[want])
    for n, v in (("bogus", "fast"), ("empty", ""), ("upper", "BOOST")):
        c(f"r14_sim_clock_{n}", S + ["--clock", v], want=["--clock"])
    c("r14_trace_paths_file", ["trace", "paths", "README.md", "-o", "{T}/r14p.json"], want=["README.md"])
    c("r14_trace_paths_out_dir", ["trace", "paths", "-o", "traces"], want=["traces"])
    c("r14_gpus_set_unknown", ["gpus", "show", "h200", "--set", "sms=66MHz"], want=["sms"])


from probe_lib import PY  # noqa: E402  (the Python-module program, round 17's shared helpers)


def add_python(c):
    for n, expr, exp, want in (
            ("predict_none_gpu", "loom.predict(None, 'gemm m=64 n=64 k=64 dtype=bf16')", "bad", []),
            ("predict_bytes_spec", "loom.predict('h200', b'gemm m=64 n=64 k=64 dtype=bf16')", "any", []),
            ("predict_model_bad", "loom.predict('h200', 'gemm m=64 n=64 k=64 dtype=bf16', model='forest')", "bad",
             ["forest"]),
            ("predict_corpus_huge", "loom.predict('h200', 'gemm m=1073741824 n=1073741824 k=1073741824 dtype=bf16')",
             "bad", ["2^40"]),
            ("diagnose_unknown_key", "loom.diagnose('h200', 'gemm m=64 n=64 k=64 dtype=bf16 foo=1')", "bad", ["foo"]),
            ("tune_unknown_gpu", "loom.tune('h2000', 'gemm m=64 n=4096 k=4096 dtype=bf16')", "bad", ["h2000"]),
            ("tune_gpu_file", "loom.tune('gpus/h200.yaml', 'gemm m=64 n=4096 k=4096 dtype=bf16')", "any", []),
            ("e2e_phase_bad", "loom.e2e('h200', 'llama-3-8b', 'train', batch=4, context=64)", "bad", ["train"]),
            ("e2e_tp_zero", "loom.e2e('h200', 'llama-3-8b', 'decode', batch=4, context=64, tp=0)", "bad", ["tp"]),
            ("e2e_mode_bad", "loom.e2e('h200', 'llama-3-8b', 'decode', batch=4, context=64, mode='turbo')", "bad",
             ["turbo"]),
            ("batch_threads_zero", "loom.predict_batch('h200', [{'family': 'gemm', 'm': 64, 'n': 64, 'k': 64, "
                                   "'dtype': 'bf16'}], threads=0)", "bad", ["threads"]),
            ("batch_nan_cell", "loom.predict_batch('h200', [{'family': 'gemm', 'm': float('nan'), 'n': 64, 'k': 64, "
                               "'dtype': 'bf16'}])", "bad", ["m"]),
            ("gpus_arg", "loom.gpus('h200')", "any", [])):
        c(f"r14_py_{n}", ["@python", PY.format(expr=expr)], exp, want=want)
