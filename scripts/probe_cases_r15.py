"""Probe cases (see probe_cases.py), fifteenth round: what round 14 left (a switch given twice), then what rounds 1-14
touched least (counted per command and flag over build_cases: `trace paths` 15, `tune --fit` 15, `trace diff` 18,
`trace fit-collectives` 20, `gpus show` 37, `validate --e2e` 44; the two tune summary scripts none) and what was added
since: `validate --e2e` over traces with `loom.host_probe` ranges, the serving profile key
`new_kv_length_host_fixed_share`, calibrate results' `host_cost`, scripts/torch/tune/prefill_summary.py and
scripts/host-slope-fit.py, `predict --batch` CSV edges, `--threads`, whatif and simulate request files."""
import gzip
import json
import os

from probe_cases import REPO

G = "gemm m=4096 n=4096 k=4096 dtype=bf16"
P = ["predict", "--gpu", "h200", "--kernel", G]
S = ["simulate", "--gpu", "h200", "--model", "llama-3-8b", "--rate", "2", "--num-requests", "20"]
E2E = ["e2e", "--gpu", "h200", "--model", "llama-3-8b", "--phase", "decode", "--batch", "8", "--context", "1024"]
W = ["whatif", "--model", "llama-3-8b", "--gpus", "h200", "--batch", "8", "--input-len", "512", "--output-len", "64"]
# Runs a repository script with argv, as `python3 SCRIPT ARGS...` ('r = ' is what the probe shows of a @python case).
SCRIPT = "import runpy, sys\nr = sys.argv = {argv!r}\nrunpy.run_path(sys.argv[0], run_name='__main__')\n"


def add_round15(c):
    add_switch_twice(c)
    add_host_probe_traces(c)
    add_fixed_share(c)
    add_calibrate_host_cost(c)
    add_prefill_summary(c)
    add_host_slope_fit(c)
    add_batch_csv_edges(c)
    add_threads_and_requests(c)
    add_least_probed(c)


def add_switch_twice(c):
    """A switch given twice is refused as a value flag given twice is (round 14 left it accepted)."""
    for n, argv, flag in (
            ("interval", P + ["--interval", "--interval"], "--interval"),
            ("interval_eq", P + ["--interval", "--interval=1"], "--interval"),
            ("whatif_interval", W + ["--interval", "--interval"], "--interval"),
            ("quiet", S + ["--quiet", "--quiet"], "--quiet"),
            ("per_request", S + ["--per-request", "--per-request"], "--per-request"),
            ("check", ["validate", "--check", "--check"], "--check"),
            ("e2e", ["validate", "--e2e", "--e2e"], "--e2e"),
            ("force", ["train", "--out", "{T}/m", "--force", "--force"], "--force"),
            ("lenient", ["trace", "import", "--from", "vidur", "{T}/v.csv", "--gpu", "h200", "--lenient", "--lenient",
                         "--out", "{T}/vo"], "--lenient")):
        c(f"r15_switch_twice_{n}", argv, want=[flag] if n == "interval_eq" else [flag, "twice"])  # =1: no value
    c("r15_switch_once_ok", P + ["--interval"], "good")


def _mini_trace():
    """Case 2 of traces/e2e/h200/hf_eager (an eager llama-3.2-1b decode step with 10 host probes): its case list
    row and the trace records inside its range, (meta lines, records)."""
    lines = gzip.open(os.path.join(REPO, "traces/e2e/h200/hf_eager.lct.gz"), "rt").read().split("\n")
    meta = [x for x in lines if x.startswith("#") and not x.startswith("#end")]
    case = [x for x in lines if x.endswith("\tloom.case=2")][0].split("\t")
    s, e = int(case[1]), int(case[2])
    recs = [x.split("\t") for x in lines if x and not x.startswith("#")]
    return meta, [r for r in recs if s <= int(r[1]) and int(r[2]) <= e]


def _lct(meta, recs):
    return "\n".join(meta + ["\t".join(r) for r in recs] + [f"#end records={len(recs)} dropped=0", ""])


def _cases():
    lines = open(os.path.join(REPO, "traces/e2e/h200/hf_eager.cases.csv")).read().split("\n")
    return "\n".join([x for x in lines if x.startswith("#") or x.startswith("case_id,")] +
                     [x for x in lines if x.startswith("2,")]) + "\n"


def _probes(recs):
    return [r for r in recs if r[0] == "R" and r[-1] == "loom.host_probe"]


def _in(r, k):
    return int(r[1]) <= int(k[1]) < int(r[2])


def add_host_probe_traces(c):
    """validate --e2e over a one-case copy of hf_eager with its loom.host_probe ranges edited."""
    try:
        meta, recs = _mini_trace()
    except OSError:
        return
    cases = _cases()

    def run(n, lct, exp, want=(), case_list=cases, gz=True, extra=()):
        d = f"r15e2e_{n}"
        files = {f"{d}/run.cases.csv": case_list}
        if lct is not None:
            files[f"{d}/run.lct.gz" if gz else f"{d}/run.lct"] = gzip.compress(lct.encode()) if gz else lct
        c(f"r15_e2e_{n}", ["validate", "--e2e", "--traces", "{T}/" + d] + list(extra), exp, want=want, files=files)

    run("ok", _lct(meta, recs), "good", ["probe"])
    run("ok_json", _lct(meta, recs), "good", ["host_probe"], extra=["--format", "json"])
    probes = _probes(recs)
    no_k = [k for k in recs if not (k[0] == "K" and any(_in(p, k) for p in probes))]
    run("probe_no_kernels", _lct(meta, no_k), "good", ["catalogue"], extra=["--format", "json"])
    zero = [r[:2] + [r[1]] + r[3:] if r in probes else r for r in recs]
    run("probe_zero_length", _lct(meta, zero), "any")
    first = probes[0]
    neg = [r[:2] + [str(int(r[1]) - 1000)] + r[3:] if r is first else r for r in recs]
    run("probe_negative", _lct(meta, neg), "bad", ["run.lct.gz"])
    # every probe's kernels squeezed into 1 ns each: 0.001 us a launch, a host 10,000 times the reference's speed
    fast = []
    for r in recs:
        p = next((p for p in probes if r[0] == "K" and _in(p, r)), None)
        fast.append(r)
        if p is not None:
            i = sum(1 for k in fast if k[0] == "K" and _in(p, k)) - 1
            fast[-1] = [r[0], str(int(p[1]) + i), str(int(p[1]) + i + 1)] + r[3:]
    fast = [[r[0], r[1], str(int(r[1]) + 1 + sum(1 for k in fast if k[0] == "K" and _in(r, k)))] + r[3:]
            if r in probes else r for r in fast]
    run("probe_too_fast", _lct(meta, fast), "bad", ["host_probe"])
    # one kernel left in each probe: ~9,000 us a launch, a host 700 times slower than the reference
    slow, seen = [], set()
    for r in recs:
        p = next((i for i, p in enumerate(probes) if r[0] == "K" and _in(p, r)), None)
        if p is None or p not in seen:
            slow.append(r)
        if p is not None:
            seen.add(p)
    run("probe_too_slow", _lct(meta, slow), "bad", ["host_probe"])
    one_slow = [r for r in recs if not (r[0] == "K" and _in(first, r))] + [
        k for k in recs if k[0] == "K" and _in(first, k)][:1]
    run("probe_one_slow", _lct(meta, sorted(one_slow, key=lambda r: (int(r[1]), r[0]))), "good", ["probe"])
    outside = recs + [["R", str(int(recs[0][1]) - 10**6), str(int(recs[0][1]) - 1000), "999", "loom.host_probe"]]
    run("probe_outside_case", _lct(meta, outside), "any")
    run("no_trace", None, "bad", ["run.cases.csv", "trace"])
    run("trace_plain", _lct(meta, recs), "good", ["probe"], gz=False)
    run("trace_truncated", _lct(meta, recs)[:len(_lct(meta, recs)) // 2], "bad", ["run.lct"], gz=False)
    c("r15_e2e_trace_gz_cut_file", ["validate", "--e2e", "--traces", "{T}/r15e2e_gzcut"], want=["run.lct.gz"],
      files={"r15e2e_gzcut/run.cases.csv": cases,
             "r15e2e_gzcut/run.lct.gz": gzip.compress(_lct(meta, recs).encode())[:5000]})
    run("trace_empty", "", "bad", ["run.lct"], gz=False)
    run("cases_header_only", _lct(meta, recs), "bad", ["run.cases.csv"],
        case_list="\n".join(x for x in cases.split("\n") if not x.startswith("2,")) + "\n")
    run("cases_row_cut", _lct(meta, recs), "bad", ["run.cases.csv"], case_list=cases[:-40])
    run("cases_other_id", _lct(meta, recs), "bad", ["case 7"], case_list=cases.replace("\n2,", "\n7,"))
    run("cases_crlf", _lct(meta, recs), "any", case_list=cases.replace("\n", "\r\n"))
    run("trace_other_gpu", _lct([m.replace("NVIDIA H200", "NVIDIA H100 80GB HBM3") for m in meta], recs), "bad",
        ["run.cases.csv"])
    run("trace_end_count", _lct(meta, recs).replace(f"records={len(recs)}", f"records={len(recs) + 5}"), "any")


PROFILE = open(os.path.join(REPO, "models/profiles/hf-sdpa.yaml")).read() if os.path.exists(
    os.path.join(REPO, "models/profiles/hf-sdpa.yaml")) else ""


def add_fixed_share(c):
    """new_kv_length_host_fixed_share: 0 to 0.95, a share of new_kv_length_host_us."""
    key = "new_kv_length_host_fixed_share:"
    line = next((x for x in PROFILE.split("\n") if x.startswith(key)), None)
    if line is None:
        return
    for n, v, exp in (("one", "1", "bad"), ("neg", "-0.1", "bad"), ("text", "most", "bad"), ("pct", "28%", "bad"),
                      ("unit", "0.28 us", "bad"), ("max", "0.95", "good"), ("zero", "0", "good"),
                      ("quoted", "'0.28'", "any"), ("nan", ".nan", "bad"), ("list", "[0.28]", "bad"),
                      ("empty", "", "bad"), ("just_over", "0.9500001", "bad")):
        c(f"r15_share_{n}", E2E + ["--profile", f"{{T}}/r15share_{n}.yaml"], exp,
          want=["new_kv_length_host_fixed_share"] if exp == "bad" else [],
          files={f"r15share_{n}.yaml": PROFILE.replace(line, key + " " + v)})
    no_cost = "\n".join(x for x in PROFILE.split("\n") if not x.startswith("new_kv_length_host_us:"))
    c("r15_share_without_cost", E2E + ["--profile", "{T}/r15share_nocost.yaml"],
      want=["new_kv_length_host_fixed_share", "new_kv_length_host_us"], files={"r15share_nocost.yaml": no_cost})
    c("r15_share_twice", E2E + ["--profile", "{T}/r15share_twice.yaml"], want=["new_kv_length_host_fixed_share"],
      files={"r15share_twice.yaml": PROFILE + "\n" + key + " 0.3\n"})
    c("r15_share_sim", S + ["--profile", "{T}/r15share_sim.yaml"], want=["new_kv_length_host_fixed_share"],
      files={"r15share_sim.yaml": PROFILE.replace(line, key + " 2")})


def add_calibrate_host_cost(c):
    """calibrate results whose host_cost (host_cost.py's host time a launch) is odd."""
    path = os.path.join(REPO, "tests/data/calibrate/good.json")
    if not os.path.exists(path):
        return
    good = json.load(open(path))
    host = {"us_per_launch": 14.2, "launches": 231, "layers": 16, "tokens": 8, "reps": 20, "cpu": "Xeon"}
    for n, hc, exp, want in (
            ("ok", host, "good", ["cpu_speed"]), ("zero", dict(host, us_per_launch=0), "bad", ["us_per_launch"]),
            ("neg", dict(host, us_per_launch=-3), "bad", ["us_per_launch"]),
            ("text", dict(host, us_per_launch="14"), "bad", ["us_per_launch"]),
            ("tiny", dict(host, us_per_launch=0.2), "bad", ["us_per_launch"]),
            ("huge", dict(host, us_per_launch=5000), "bad", ["us_per_launch"]),
            ("at_fast_edge", dict(host, us_per_launch=0.64), "good", ["cpu_speed"]),
            ("missing", {"launches": 231}, "bad", ["us_per_launch"]), ("null", None, "bad", ["host_cost"]),
            ("list", [14.2], "bad", ["host_cost"]), ("launches_zero", dict(host, launches=0), "bad", ["launches"]),
            ("launches_text", dict(host, launches="many"), "bad", ["launches"]),
            ("nan_text", dict(host, us_per_launch="NaN"), "bad", ["us_per_launch"])):
        j = dict(good, host_cost=hc)
        c(f"r15_cal_host_{n}", ["calibrate", f"{{T}}/r15cal_{n}.json", "--gpu", "h100-sxm", "-o", f"{{T}}/r15cal_{n}.yaml"],
          exp, want=want if exp == "bad" else [], files={f"r15cal_{n}.json": json.dumps(j)}, empty_ok=True)


def _script(name, script, args, exp="bad", want=(), files=None):
    return name, ["@python", SCRIPT.format(argv=[script] + args)], exp, want, files


def add_prefill_summary(c):
    """scripts/torch/tune/prefill_summary.py: per-rep CSVs and traces."""
    ps = "scripts/torch/tune/prefill_summary.py"
    hdr = "range,gpu_ms,moe_ms\n"
    row = "default;tokens=512,{a},{b}\nloom;tokens=512,{c},{d}\n"
    ok = hdr + row.format(a=10, b=4, c=8, d=2)
    for n, body, exp, want in (
            ("ok", ok, "good", []), ("empty", "", "bad", ["r15ps_empty.csv"]),
            ("header_only", hdr, "bad", ["r15ps_header_only.csv"]),
            ("no_tokens", hdr + "default,1,1\n", "bad", ["r15ps_no_tokens.csv:2"]),
            ("tokens_text", hdr + "default;tokens=many,1,1\nloom;tokens=many,1,1\n", "bad", ["tokens"]),
            ("no_loom", hdr + "default;tokens=512,10,4\n", "bad", ["loom"]),
            ("zero_loom", hdr + row.format(a=10, b=4, c=0, d=0), "bad", ["r15ps_zero_loom.csv"]),
            ("nan", hdr + row.format(a="nan", b=4, c=8, d=2), "bad", ["r15ps_nan.csv:2"]),
            ("inf", hdr + row.format(a="inf", b=4, c=8, d=2), "bad", ["r15ps_inf.csv:2"]),
            ("negative", hdr + row.format(a=-10, b=4, c=8, d=2), "bad", ["r15ps_negative.csv:2"]),
            ("moe_over_total", hdr + row.format(a=10, b=40, c=8, d=2), "bad", ["r15ps_moe_over_total.csv:2"]),
            ("crlf", ok.replace("\n", "\r\n"), "any", []), ("bom", "\ufeff" + ok, "any", []),
            ("not_utf8", hdr + "default;tokens=512,1\xff,1\n", "bad", ["r15ps_not_utf8.csv"]),
            ("extra_col", hdr + "default;tokens=512,10,4,\n", "bad", ["r15ps_extra_col.csv:2"])):
        f = f"r15ps_{n}.csv"
        name, argv, e, w, _ = _script(f"r15_prefill_summary_{n}", ps, ["{T}/" + f], exp, want)
        c(name, argv, e, want=w, files={f: body.encode("latin-1") if "\xff" in body else body.encode()})
    for n, data, want in (("lct_not_gz", b"R\t1\t2\t0\tloom.prefill=x\n", ["r15ps_lct_not_gz.lct.gz"]),
                          ("lct_short_line", gzip.compress(b"R\t1\n"), ["r15ps_lct_short_line.lct.gz:1"]),
                          ("lct_text_time", gzip.compress(b"R\tx\t2\t0\tloom.prefill=default,tokens=1\n"),
                           ["r15ps_lct_text_time.lct.gz:1"]),
                          ("lct_no_ranges", gzip.compress(b"#loom-cupti 1\n"), ["r15ps_lct_no_ranges.lct.gz"])):
        f = f"r15ps_{n}.lct.gz"
        name, argv, e, w, _ = _script(f"r15_prefill_summary_{n}", ps, ["{T}/" + f], "bad", want)
        c(name, argv, e, want=w, files={f: data})
    for n, args, want in (("no_args", [], ["usage"]), ("missing", ["{T}/nope.csv"], ["nope.csv"]),
                          ("dir", ["{T}"], []), ("reps_csv_no_out", ["{T}/x.lct.gz", "--reps-csv"], ["usage"]),
                          ("reps_csv_bad_input", ["{T}/r15ps_lct_not_gz.lct.gz", "--reps-csv", "{T}/r15ps_o.csv"],
                           ["r15ps_lct_not_gz.lct.gz"]),
                          ("reps_csv_out_dir", ["{T}/r15ps_ok.lct.gz", "--reps-csv", "{T}"], ["--reps-csv"]),
                          ("reps_csv_ok", ["{T}/r15ps_ok.lct.gz", "--reps-csv", "{T}/r15ps_ok_reps.csv"], None),
                          ("lct_ok", ["{T}/r15ps_ok.lct.gz"], None)):
        name, argv, e, w, _ = _script(f"r15_prefill_summary_{n}", ps, args, "bad" if want is not None else "good",
                                      want or [])
        c(name, argv, e, want=w, empty_ok=n == "reps_csv_ok",
          files={"r15ps_lct_not_gz.lct.gz": b"R\t1\t2\t0\tloom.prefill=x\n", "r15ps_ok.lct.gz": gzip.compress(
              b"R\t0\t1000\t1\tloom.prefill=default,tokens=64\nR\t2000\t3000\t2\tloom.prefill=loom,tokens=64\n"
              b"K\t10\t500\t0\tfused_moe_kernel\nK\t2010\t2300\t0\tfused_moe_kernel\n")})
    name, argv, e, w, _ = _script("r15_prefill_summary_committed", ps, ["traces/tune/h200/moe-prefill-reps.csv"],
                                  "good", ["speedup"])
    c(name, argv, e, want=w)


def _slope(steps, meta=None):
    meta = meta if meta is not None else {"launches": 400, "probe_launches": 231}
    return gzip.compress(("\n".join(json.dumps(x) for x in [meta] + steps) + "\n").encode())


def add_host_slope_fit(c):
    """scripts/host-slope-fit.py: host_slope.py's .jsonl.gz."""
    hs = "scripts/host-slope-fit.py"
    steps = []
    for i in range(40):
        probe = 16.8 if i % 4 < 2 else 30.3
        steps += [{"cudnn": True, "wall_us": 60000 + 1560 * probe, "probe_us": probe},
                  {"cudnn": False, "wall_us": 750 * probe, "probe_us": probe}]
    one_mode = [dict(s, probe_us=16.8) for s in steps]
    for n, data, exp, want in (
            ("ok", _slope(steps), "good", ["fixed share"]),
            ("no_steps", _slope([]), "bad", ["r15hs_no_steps"]),
            ("no_pairs", _slope([dict(s, cudnn=True) for s in steps]), "bad", ["r15hs_no_pairs"]),
            ("one_mode", _slope(one_mode), "bad", ["r15hs_one_mode"]),
            ("nan", _slope([dict(steps[0], wall_us=float("nan"))] + steps[1:]), "bad", ["r15hs_nan"]),
            ("text_probe", _slope([dict(steps[0], probe_us="16")] + steps[1:]), "bad", ["r15hs_text_probe"]),
            ("neg_probe", _slope([dict(s, probe_us=-s["probe_us"]) for s in steps]), "bad", ["r15hs_neg_probe"]),
            ("zero_probe", _slope([dict(s, probe_us=0) for s in steps]), "bad", ["r15hs_zero_probe"]),
            ("meta_missing", _slope(steps, {"launches": 400}), "bad", ["r15hs_meta_missing"]),
            ("not_gz", b"{}\n", "bad", ["r15hs_not_gz"]), ("empty_gz", gzip.compress(b""), "bad", ["r15hs_empty_gz"]),
            ("bad_line", gzip.compress(b'{"launches": 1, "probe_launches": 1}\n{oops\n'), "bad", ["r15hs_bad_line"]),
            ("step_list", _slope([[True, 1, 2]]), "bad", ["r15hs_step_list"])):
        f = f"r15hs_{n}.jsonl.gz"
        name, argv, e, w, _ = _script(f"r15_host_slope_{n}", hs, ["{T}/" + f], exp, want)
        c(name, argv, e, want=w, files={f: data})
    for n, args, want in (("no_args", [], ["usage"]), ("two_args", ["a", "b"], ["usage"]),
                          ("missing", ["{T}/nope.jsonl.gz"], ["nope.jsonl.gz"])):
        name, argv, e, w, _ = _script(f"r15_host_slope_{n}", hs, args, "bad", want)
        c(name, argv, e, want=w)
    name, argv, e, w, _ = _script("r15_host_slope_committed", hs, ["traces/checks/host/h200/host_slope.jsonl.gz"],
                                  "good", ["fixed share"])
    c(name, argv, e, want=w)


def add_batch_csv_edges(c):
    """predict --batch: BOM, CRLF, empty trailing columns, huge rows."""
    hdr = "family,m,n,k,dtype\n"
    for n, body, exp, want in (
            ("bom_crlf", "\ufeff" + (hdr + "gemm,64,64,64,bf16\n").replace("\n", "\r\n"), "good", []),
            ("trailing_empty_col", "family,m,n,k,dtype,\ngemm,64,64,64,bf16,\n", "bad", ["r15b_trailing_empty_col"]),
            ("trailing_comma_row", hdr + "gemm,64,64,64,bf16,\n", "bad", ["r15b_trailing_comma_row.csv:2"]),
            ("cr_only", (hdr + "gemm,64,64,64,bf16\n").replace("\n", "\r"), "any", []),
            ("huge_row", hdr + "gemm,64,64,64," + "b" * 1000000 + "\n", "bad", ["r15b_huge_row.csv:2"]),
            ("huge_number", hdr + "gemm," + "9" * 5000 + ",64,64,bf16\n", "bad", ["r15b_huge_number.csv:2"]),
            ("bom_twice", "\ufeff\ufeff" + hdr + "gemm,64,64,64,bf16\n", "bad", ["r15b_bom_twice.csv"]),
            ("bom_mid", hdr + "\ufeffgemm,64,64,64,bf16\n", "bad", ["r15b_bom_mid.csv:2"]),
            ("blank_lines", hdr + "\n\ngemm,64,64,64,bf16\n\n", "any", []),
            ("spaces_cells", hdr + " gemm , 64 ,64,64,bf16\n", "any", []),
            ("quoted_cell", hdr + '"gemm","64",64,64,bf16\n', "any", []),
            ("no_newline_end", hdr + "gemm,64,64,64,bf16", "good", []),
            ("utf16", (hdr + "gemm,64,64,64,bf16\n").encode("utf-16"), "bad", ["r15b_utf16.csv"])):
        f = f"r15b_{n}.csv"
        c(f"r15_batch_{n}", ["predict", "--gpu", "h200", "--batch", "{T}/" + f], exp, want=want,
          files={f: body if isinstance(body, bytes) else body.encode()})


def add_threads_and_requests(c):
    """--threads odd values; simulate/whatif request files."""
    B = ["predict", "--gpu", "h200", "--batch", "examples/kernels.csv"]
    for n, v, exp in (("zero", "0", "bad"), ("neg", "-1", "bad"), ("huge", "100000", "bad"), ("one", "1", "good"),
                      ("hex", "0x4", "bad"), ("float", "2.0", "bad"), ("space", " 2", "bad"), ("plus", "+2", "bad"),
                      ("big_ok", "64", "any"), ("max_int", "2147483648", "bad")):
        c(f"r15_threads_{n}", B + ["--threads", v], exp, want=["--threads"] if exp == "bad" else [])
    c("r15_threads_no_batch", P + ["--threads", "2"], "any")
    R = ["simulate", "--gpu", "h200", "--model", "llama-3-8b", "--requests"]
    for n, body, exp, want in (
            ("crlf", "arrival_s,prompt_tokens,output_tokens\r\n0,128,16\r\n0.5,256,32\r\n", "any", []),
            ("bom", "\ufeffarrival_s,prompt_tokens,output_tokens\n0,128,16\n", "any", []),
            ("trailing_col", "arrival_s,prompt_tokens,output_tokens,\n0,128,16,\n", "bad", ["r15r_trailing_col"]),
            ("jsonl_extra_key", '{"arrival_s": 0, "prompt_tokens": 128, "output_tokens": 16, "foo": 1}\n', "bad",
             ["foo"]),
            ("jsonl_crlf", '{"arrival_s": 0, "prompt_tokens": 128, "output_tokens": 16}\r\n', "any", []),
            ("jsonl_nan", '{"arrival_s": NaN, "prompt_tokens": 128, "output_tokens": 16}\n', "bad", ["r15r_jsonl_nan"]),
            ("zero_output", "arrival_s,prompt_tokens,output_tokens\n0,128,0\n", "bad", ["r15r_zero_output.csv:2"]),
            ("unsorted", "arrival_s,prompt_tokens,output_tokens\n1,128,16\n0,128,16\n", "any", [])):
        ext = "jsonl" if n.startswith("jsonl") else "csv"
        f = f"r15r_{n}.{ext}"
        c(f"r15_requests_{n}", R + ["{T}/" + f], exp, want=want, files={f: body})
        c(f"r15_whatif_requests_{n}", ["whatif", "--model", "llama-3-8b", "--gpus", "h200", "--requests", "{T}/" + f],
          exp, want=want, files={f: body})


def add_least_probed(c):
    """trace paths / diff / fit-collectives, tune --fit, gpus show: the fewest cases so far."""
    c("r15_paths_no_traces", ["trace", "paths", "{T}/r15empty", "-o", "{T}/p.json"], "bad",
      want=["r15empty"], files={"r15empty/.keep": ""})
    c("r15_diff_same", ["trace", "diff", "traces/h200/sms132-linear.corpus.csv.gz",
                        "traces/h200/sms132-linear.corpus.csv.gz"], "any")
    c("r15_diff_one", ["trace", "diff", "traces/h200/sms132-linear.corpus.csv.gz"], want=["diff"])
    c("r15_diff_three", ["trace", "diff", "a", "b", "c"], want=["c"])
    c("r15_fitcoll_format_xml", ["trace", "fit-collectives", "--format", "xml"], want=["--format"])
    c("r15_tune_fit_out_dir", ["tune", "--gpu", "h200", "--family", "gemm", "--fit", "--traces", "traces/tune",
                               "--out", "traces"], want=["traces"])
    c("r15_tune_fit_out_full", ["tune", "--gpu", "h200", "--family", "gemm", "--fit", "--traces", "traces/tune",
                                "--out", "/dev/full"], want=["/dev/full"])
    c("r15_gpus_show_twice", ["gpus", "show", "h200", "h200"], "any")
    c("r15_gpus_show_none", ["gpus", "show"], want=["show"])
    c("r15_gpus_show_csv", ["gpus", "show", "h200", "--format", "csv"], "any")
    c("r15_whatif_gpus_empty_item", ["whatif", "--model", "llama-3-8b", "--gpus", "h200,,h100-sxm", "--batch", "8",
                                     "--input-len", "512", "--output-len", "64"], want=["--gpus"])
