"""Probe cases (see probe_cases.py), sixteenth round: what changed since round 15 and what rounds 1-15 probed least
(counted per command and mode over build_cases: `tune --validate --heldout-traces` 11, `tune --export` 12, `tune --fit`
14, `tune --validate` 18, `tune --kernel` 47 with no Triton MoE spec, `report --json-in` 25; scripts/torch/tune/
moe_sweep.py imports torch at its top and is not run here):
held-out tuning grids edited (configs in another order, one missing, one extra, rows twice, another GPU, another SM
count, other dtype, not gzip, cut), the tune tables' Triton MoE per-config model (`config_model`: rows of the wrong
length, negative/huge coefficients, the seventh column missing, `features` and `lambda`), `tune --kernel "moe ...
impl=triton"` at edge tokens/experts/topk, `tune --export-moe-configs` flags and folders, `calibrate` messages with the
line of the bad value, `validate --e2e` over a TP trace's host probes, and a few whatif/simulate/report inputs."""
import gzip
import json
import os

from probe_cases import REPO
from probe_lib import gz as _gz  # gzip without '@T@' (round 17's shared helpers)

TUNE = ["tune", "--gpu", "h200"]
BLIND = "traces/checks/tune-blind2/h200/moe-triton-fp8/moe-triton-4.corpus.csv.gz"
TABLES = "models/tune/h200-moe-triton-fp8.json"
MOE = "moe tokens={t} experts={e} topk={k} hidden=4096 inter=768 dtype=fp8 impl=triton"
W = ["whatif", "--model", "llama-3-8b", "--gpus", "h200", "--batch", "8", "--input-len", "512", "--output-len", "64"]
S = ["simulate", "--gpu", "h200", "--model", "llama-3-8b", "--rate", "2", "--num-requests", "20"]


def add_round16(c):
    add_heldout_grids(c)
    add_moe_tables(c)
    add_moe_kernel(c)
    add_export_moe(c)
    add_calibrate_lines(c)
    add_tp_probes(c)
    add_misc16(c)


def _blind():
    if not os.path.exists(os.path.join(REPO, BLIND)):
        return None, None
    lines = gzip.open(os.path.join(REPO, BLIND), "rt").read().split("\n")
    return ([x for x in lines if x.startswith("#") or x.startswith("case_id,")],
            [x for x in lines if x and not x.startswith("#") and not x.startswith("case_id,")])


def _cfg(row):
    return row.split(",")[2].split(" config=")[1]


def add_heldout_grids(c):
    """tune --validate --heldout-traces DIR over edited copies of the blind moe-triton-fp8 grid."""
    meta, rows = _blind()
    if rows is None:
        return
    v = TUNE + ["--family", "moe-triton-fp8", "--validate", "--no-timing", "--traces", "traces/tune"]
    cfgs = sorted({_cfg(r) for r in rows})
    one = cfgs[0]
    shapes = sorted({r.split(",")[2].split(" config=")[0] for r in rows})

    def text(m, rs):
        return "\n".join(m + rs) + "\n"

    def run(n, body, exp, want=(), only=True, gz=True, extra=()):
        d = f"r16ho_{n}"
        f = f"{d}/x.corpus.csv.gz" if gz else f"{d}/x.corpus.csv"
        data = body if isinstance(body, bytes) else (_gz(body.encode()) if gz else body.encode())
        c(f"r16_heldout_{n}", v + ["--heldout-traces", "{T}/" + d] + (["--heldout-only"] if only else []) +
          list(extra), exp, want=want, files={f: data})

    run("reordered", text(meta, sorted(rows, key=lambda r: (_cfg(r)[::-1], r))), "good")
    run("reordered_json", text(meta, list(reversed(rows))), "good", extra=["--format", "json"])
    run("config_missing", text(meta, [r for r in rows if _cfg(r) != one]), "bad", ["r16ho_config_missing"])
    extra = [r.replace("config=" + one, "config=256x256x128_s4_w8_g16") for r in rows if _cfg(r) == one]
    run("config_extra", text(meta, rows + extra), "bad", ["r16ho_config_extra"])
    swapped = [r for r in rows if _cfg(r) != one] + extra
    run("config_swapped", text(meta, swapped), "bad", ["r16ho_config_swapped", one])
    run("rows_twice", text(meta, rows + rows), "any")
    run("one_row_missing", text(meta, rows[1:]), "any")
    # every shape misses a different config: every config is there, no shape complete
    inc = [r for r in rows if cfgs.index(_cfg(r)) != shapes.index(r.split(",")[2].split(" config=")[0]) % len(cfgs)]
    run("no_shape_complete", text(meta, inc), "bad", ["r16ho_no_shape_complete"])
    run("no_shape_complete_pool", text(meta, inc), "bad", ["r16ho_no_shape_complete_pool"], only=False)
    run("other_gpu", text([m.replace("h200", "h100").replace("H200", "H100 80GB HBM3") for m in meta], rows), "bad",
        ["h200"])
    run("other_sms", text([("#sms=66" if m.startswith("#sms=") else m) for m in meta], rows), "bad", ["sms"])
    run("other_sms_pool", text([("#sms=66" if m.startswith("#sms=") else m) for m in meta], rows), "bad", ["sms"],
        only=False)
    run("other_dtype", text(meta, [r.replace("dtype=fp8", "dtype=bf16") for r in rows]), "bad",
        ["r16ho_other_dtype"])
    run("no_tool", text([m for m in meta if not m.startswith("#tool=")], rows), "bad", ["r16ho_no_tool"])
    run("not_gzip", text(meta, rows).encode(), "any")
    run("gzip_cut", _gz(text(meta, rows).encode())[:20000], "bad", ["x.corpus.csv.gz"])
    run("plain_csv", text(meta, rows), "good", gz=False)
    run("crlf", text(meta, rows).replace("\n", "\r\n"), "any")
    run("bad_config_name", text(meta, [rows[0].replace("config=", "config=x")] + rows[1:]), "bad", ["x.corpus.csv"])
    run("median_zero", text(meta, [",".join(rows[0].split(",")[:10] + ["0"] + rows[0].split(",")[11:])] + rows[1:]),
        "any")
    run("median_nan", text(meta, [",".join(rows[0].split(",")[:10] + ["nan"] + rows[0].split(",")[11:])] + rows[1:]),
        "bad", ["x.corpus.csv"])
    run("header_only", text(meta, []), "bad", ["r16ho_header_only"])
    c("r16_heldout_pool_again", v + ["--heldout-traces", "traces/tune"], "bad", ["traces/tune", "nothing to score"])
    c("r16_heldout_twice", v + ["--heldout-traces", "{T}/r16ho_reordered", "--heldout-traces", "{T}/r16ho_reordered"],
      want=["--heldout-traces"])
    c("r16_heldout_only_twice", v + ["--heldout-traces", "{T}/r16ho_reordered", "--heldout-only", "--heldout-only"],
      want=["--heldout-only"])
    c("r16_heldout_bf16_family", TUNE + ["--family", "moe-triton", "--validate", "--no-timing", "--traces",
                                         "traces/tune", "--heldout-traces", "{T}/r16ho_reordered", "--heldout-only"],
      want=["r16ho_reordered"])
    c("r16_heldout_gemm_triton", TUNE + ["--family", "gemm-triton", "--validate", "--no-timing", "--traces",
                                         "traces/tune", "--heldout-traces", "{T}/r16ho_reordered", "--heldout-only"],
      want=["r16ho_reordered"])
    c("r16_heldout_log_only", v + ["--heldout-traces", "{T}/r16ho_log", "--heldout-only"], want=["r16ho_log"],
      files={"r16ho_log/moe-triton-4.log": "sweep log\n"})


def add_moe_tables(c):
    """tune --kernel (Triton MoE, fp8) with --tables: the committed table with its config_model edited."""
    path = os.path.join(REPO, TABLES)
    if not os.path.exists(path):
        return
    base = json.load(open(path))
    first = next(iter(base["config_model"]["coef"]))
    k = ["--kernel", MOE.format(t=64, e=128, k=8)]

    def run(n, edit, exp="bad", want=("config_model",), raw=None):
        j = json.loads(json.dumps(base))
        edit(j["config_model"]) if edit else None
        body = raw if raw is not None else json.dumps(j, indent=1)
        c(f"r16_moetab_{n}", TUNE + k + ["--tables", f"{{T}}/r16mt_{n}.json"], exp,
          want=list(want) if exp == "bad" else [], files={f"r16mt_{n}.json": body})

    def row(value):
        return lambda m: m["coef"].__setitem__(first, value)

    def every(f):
        return lambda m: m.__setitem__("coef", {n: f(r) for n, r in m["coef"].items()})

    run("ok", None, "good")
    run("row_six", row(base["config_model"]["coef"][first][:6]), want=["config_model", first])
    run("rows_six", every(lambda r: r[:6]), want=["config_model"])
    run("row_eight", row(base["config_model"]["coef"][first] + [0]), want=["config_model", first])
    run("row_empty", row([]), want=["config_model", first])
    run("row_null", row(None), want=["config_model", first])
    run("row_object", row({"a": 1}), want=["config_model", first])
    run("coef_text", row([str(x) for x in base["config_model"]["coef"][first]]), want=["config_model", first])
    run("coef_negative", row([-1.0] + base["config_model"]["coef"][first][1:]), want=["config_model", first])
    run("coef_negative_all", every(lambda r: [-abs(x) - 1 for x in r]), want=["config_model"])
    run("coef_huge", row([1e300] + base["config_model"]["coef"][first][1:]), want=["config_model", first])
    run("coef_huge_all", every(lambda r: [1e300] * 7), want=["config_model"])
    run("coef_tiny", every(lambda r: [1e-300] * 7), "any")
    run("coef_zero_all", every(lambda r: [0.0] * 7), "any")
    run("coef_pruned_all", every(lambda r: [0, 0, 0, 1e9, 0, 0, 0]), "any")
    nan = json.dumps(dict(base, config_model=dict(base["config_model"], coef=dict(
        base["config_model"]["coef"], **{first: [float("nan")] * 7}))))
    run("coef_nan", None, want=[], raw=nan)
    run("coef_inf", None, want=[], raw=nan.replace("NaN", "Infinity"))
    run("coef_1e400", None, want=[], raw=nan.replace("NaN", "1e400"))
    run("coef_missing_config", lambda m: m["coef"].pop(first), want=["config_model", first])
    run("coef_unknown_config", lambda m: m["coef"].__setitem__("8x8x8_s1_w1_g1", [0] * 7), want=["config_model"])
    run("coef_empty", lambda m: m.__setitem__("coef", {}), want=["config_model"])
    run("coef_list", lambda m: m.__setitem__("coef", []), want=["config_model"])
    run("lambda_negative", lambda m: m.__setitem__("lambda", -0.03), want=["lambda"])
    run("lambda_huge", lambda m: m.__setitem__("lambda", 1e300), want=["lambda"])
    run("lambda_text", lambda m: m.__setitem__("lambda", "0.03"), want=["lambda"])
    run("lambda_missing", lambda m: m.pop("lambda"), want=["lambda"])
    run("features_missing", lambda m: m.pop("features"), "any")
    run("features_gemm", lambda m: m["features"].__setitem__(6, "G*L/slots*(BM/M-1)"), want=["features"])
    run("features_six", lambda m: m["features"].pop(), want=["features"])
    run("features_text", lambda m: m.__setitem__("features", "W*L"), want=["features"])
    run("features_renamed", lambda m: m["features"].__setitem__(0, "W"), want=["features"])
    run("nonneg_text", lambda m: m.__setitem__("nonneg", "yes"), want=["nonneg"])
    run("nonneg_false_negative", lambda m: (m.__setitem__("nonneg", False),
                                            m["coef"].__setitem__(first, [-1.0] * 7)), "any")
    run("bytes_bad", lambda m: m.__setitem__("bytes", "pages"), want=["bytes"])
    run("work_floor_negative", lambda m: m.__setitem__("work_floor_ctas", -1), want=["work_floor_ctas"])
    run("model_list", None, want=["config_model"], raw=json.dumps(dict(base, config_model=[1, 2])))
    run("model_null", None, want=["config_model"], raw=json.dumps(dict(base, config_model=None)))
    run("no_model", None, "any", raw=json.dumps({k2: v2 for k2, v2 in base.items() if k2 != "config_model"}))


def add_moe_kernel(c):
    """tune --kernel "moe ... impl=triton" at edge tokens, experts and topk (h200, the committed tables)."""
    too_big = ("tokens_huge", "tokens_1e18", "experts_huge")  # refused for the operands' size: naming --kernel
    for n, t, e, k, exp in (("tokens0", 0, 128, 8, "bad"), ("tokens1", 1, 128, 8, "good"),
                            ("tokens_2048", 2048, 128, 8, "good"), ("tokens_65536", 65536, 128, 8, "any"),
                            ("tokens_huge", 2**31, 128, 8, "bad"), ("tokens_1e18", 10**18, 128, 8, "bad"),
                            ("tokens_neg", -1, 128, 8, "bad"), ("tokens_frac", 1.5, 128, 8, "bad"),
                            ("tokens_hex", "0x40", 128, 8, "bad"), ("experts0", 64, 0, 8, "bad"),
                            ("experts1_topk1", 64, 1, 1, "any"), ("experts_1024", 64, 1024, 8, "any"),
                            ("experts_huge", 64, 2**40, 8, "bad"), ("topk0", 64, 128, 0, "bad"),
                            ("topk_gt_experts", 64, 8, 9, "bad"), ("topk_eq_experts", 64, 8, 8, "any"),
                            ("topk_neg", 64, 128, -2, "bad")):
        c(f"r16_moek_{n}", TUNE + ["--kernel", MOE.format(t=t, e=e, k=k)], exp,
          want=(["--kernel", "DRAM"] if n in too_big else
                ["tokens" if "tokens" in n else "experts" if "experts" in n else "topk"]) if exp == "bad" else [])
    for n, spec, exp in (("hidden0", MOE.format(t=64, e=128, k=8).replace("hidden=4096", "hidden=0"), "bad"),
                         ("inter0", MOE.format(t=64, e=128, k=8).replace("inter=768", "inter=0"), "bad"),
                         ("inter1", MOE.format(t=64, e=128, k=8).replace("inter=768", "inter=1"), "any"),
                         ("bf16", MOE.format(t=64, e=128, k=8).replace("fp8", "bf16"), "good"),
                         ("fp16", MOE.format(t=64, e=128, k=8).replace("fp8", "fp16"), "bad"),
                         ("stage_w2", MOE.format(t=64, e=128, k=8) + " stage=w2", "good"),
                         ("stage_w3", MOE.format(t=64, e=128, k=8) + " stage=w3", "bad"),
                         ("impl_upper", MOE.format(t=64, e=128, k=8).replace("triton", "TRITON"), "bad"),
                         ("impl_empty", MOE.format(t=64, e=128, k=8).replace("triton", ""), "bad"),
                         ("impl_twice", MOE.format(t=64, e=128, k=8) + " impl=triton", "bad"),
                         ("config_key", MOE.format(t=64, e=128, k=8) + " config=64x64x64_s3_w4_g1", "bad")):
        c(f"r16_moek_{n}", TUNE + ["--kernel", spec], exp)
    c("r16_moek_json", TUNE + ["--kernel", MOE.format(t=1, e=128, k=8), "--format", "json", "--reps", "0"], "good")
    c("r16_moek_h100", ["tune", "--gpu", "h100-sxm", "--kernel", MOE.format(t=3, e=8, k=2)], "good")
    c("r16_moek_t4", ["tune", "--gpu", "t4", "--kernel", MOE.format(t=3, e=8, k=2)], want=["t4"])
    c("r16_moek_tables_gemm", TUNE + ["--kernel", MOE.format(t=3, e=8, k=2), "--tables",
                                      "models/tune/h200-gemm-triton.json"], want=["h200-gemm-triton.json"])
    c("r16_moek_tables_bf16", TUNE + ["--kernel", MOE.format(t=3, e=8, k=2), "--tables",
                                      "models/tune/h200-moe-triton.json"], want=["h200-moe-triton.json"])


def add_export_moe(c):
    """tune --export-moe-configs DIR: --tp lists, models, folders."""
    base = TUNE + ["--model", "mixtral-8x7b", "--export-moe-configs"]
    for n, tp, exp in (("space", " 2", "bad"), ("float", "2.0", "bad"), ("hex", "0x2", "bad"), ("neg", "-2", "bad"),
                       ("plus", "+2", "bad"), ("sixteen", "1,2,4,8,16", "bad"), ("trailing_comma", "1,2,", "bad"),
                       ("only_comma", ",", "bad"), ("semicolon", "1;2", "bad"), ("eight", "8", "good"),
                       ("unsorted", "4,1", "any"), ("empty", "", "bad"), ("huge", "99999999999999999999", "bad")):
        c(f"r16_moecfg_tp_{n}", base + [f"{{T}}/r16mc_{n}", "--tp", tp], exp,
          want=["--tp"] if exp == "bad" else [], empty_ok=True)
    for n, extra, exp, want in (
            ("unknown_model", ["--model", "mixtral-9x9b"], "bad", ["mixtral-9x9b"]),
            ("dev_full", ["--model", "mixtral-8x7b", "--export-moe-configs", "/dev/full"], "bad", ["/dev/full"]),
            ("proc", ["--model", "mixtral-8x7b", "--export-moe-configs", "/proc/r16moe"], "bad", ["/proc/r16moe"]),
            ("sys", ["--model", "mixtral-8x7b", "--export-moe-configs", "/sys/r16moe/x"], "bad", ["/sys/r16moe"]),
            ("fp8_h100", ["--model", "qwen3-30b-a3b", "--dtype", "fp8", "--export-moe-configs", "{T}/r16mc_f"],
             "good", []),
            ("tables_gemm", ["--model", "mixtral-8x7b", "--tables", "models/tune/h200-gemm-triton.json",
                             "--export-moe-configs", "{T}/r16mc_g"], "bad", ["h200-gemm-triton.json"]),
            ("tables_fp8_for_bf16", ["--model", "mixtral-8x7b", "--tables", TABLES, "--export-moe-configs",
                                     "{T}/r16mc_h"], "bad", ["h200-moe-triton-fp8.json"]),
            ("model_twice", ["--model", "mixtral-8x7b", "--model", "qwen3-30b-a3b", "--export-moe-configs",
                             "{T}/r16mc_i"], "bad", ["--model"]),
            ("with_kernel", ["--model", "mixtral-8x7b", "--kernel", MOE.format(t=1, e=8, k=2),
                             "--export-moe-configs", "{T}/r16mc_j"], "bad", ["--kernel"]),
            ("with_format", ["--model", "mixtral-8x7b", "--export-moe-configs", "{T}/r16mc_k", "--format", "table"],
             "bad", ["--format"])):
        c(f"r16_moecfg_{n}", TUNE + extra if n != "unknown_model" else TUNE + extra + ["--export-moe-configs",
                                                                                      "{T}/r16mc_u"],
          exp, want=want, empty_ok=True)


def _line_of(text, keys):
    """1-based line of the value at keys in indent=1 JSON text (the key's own line)."""
    lines, at = text.split("\n"), 0
    for k in keys:
        at = next(i for i in range(at, len(lines)) if lines[i].lstrip().startswith(json.dumps(k) + ":"))
    return at + 1


def add_calibrate_lines(c):
    """calibrate: each bad value's message names FILE:LINE of the value (as the YAML and CSV readers do)."""
    path = os.path.join(REPO, "tests/data/calibrate/good.json")
    if not os.path.exists(path):
        return
    good = json.load(open(path))
    host = {"us_per_launch": 14.2, "launches": 231}
    for n, keys, value in (
            (("sms", ["sms"], 0)), ("sms_frac", ["sms"], 131.5), ("dram", ["memory", "dram_read_bytes_per_s"], 5),
            ("slowdown", ["tensor", "bf16", "slowdown"], 0.2), ("fp8_slowdown", ["tensor", "fp8", "slowdown"], "1"),
            ("cool", ["tensor", "fp16", "cool_tflops"], -1), ("power", ["tensor", "tf32", "power_w"], 0),
            ("clock_above", ["tensor", "bf16", "sustained_sm_mhz"], 5000), ("graph", ["launch", "graph_us_per_kernel"],
                                                                           -1),
            ("stream", ["launch", "stream_us_per_kernel"], "fast"), ("dev_clock", ["device", "clock_mhz"], 1),
            ("dev_l2", ["device", "l2_bytes"], 0), ("sms_total", ["device", "sms_total"], 100),
            ("nvml", ["nvml"], "yes"), ("sms_source", ["sms_source"], "most"), ("schema", ["schema"], "loom/9"),
            ("date", ["date"], 7), ("host_cost", ["host_cost", "us_per_launch"], 0.01),
            ("host_launches", ["host_cost", "launches"], 0), ("mem_l2", ["memory", "l2_bytes"], -5),
            ("onset", ["tensor", "bf16", "clock_left_max_after_s"], 1000)):
        j = json.loads(json.dumps(dict(good, host_cost=host)))
        o = j
        for k in keys[:-1]:
            o = o[k]
        o[keys[-1]] = value
        text = json.dumps(j, indent=1)
        c(f"r16_cal_line_{n}", ["calibrate", f"{{T}}/r16cal_{n}.json", "--gpu", "h100-sxm"],
          want=[f"r16cal_{n}.json:{_line_of(text, keys)}:", keys[-1]], files={f"r16cal_{n}.json": text})
    for n, keys in (("no_memory", ["memory"]), ("no_dram", ["memory", "dram_read_bytes_per_s"]),
                    ("no_slowdown", ["tensor", "fp16", "slowdown"]), ("no_gpu", ["device", "gpu"])):
        j = json.loads(json.dumps(good))
        o = j
        for k in keys[:-1]:
            o = o[k]
        o.pop(keys[-1])
        text = json.dumps(j, indent=1)
        line = _line_of(text, keys[:-1]) if len(keys) > 1 else 1
        c(f"r16_cal_line_{n}", ["calibrate", f"{{T}}/r16cal_{n}.json", "--gpu", "h100-sxm"],
          want=[f"r16cal_{n}.json:{line}:", keys[-1]], files={f"r16cal_{n}.json": text})
    typo = json.dumps(dict(good, device=dict(good["device"], gpu="NVIDIA H100 80GB HBM")), indent=1)
    c("r16_cal_line_device_typo", ["calibrate", "{T}/r16cal_typo.json", "--gpu", "h100-sxm"],
      want=[f"r16cal_typo.json:{_line_of(typo, ['device', 'gpu'])}:", "device.gpu"], files={"r16cal_typo.json": typo})
    other = json.dumps(dict(good, device=dict(good["device"], gpu="NVIDIA H200")), indent=1)
    c("r16_cal_line_other_gpu", ["calibrate", "{T}/r16cal_other.json", "--gpu", "h100-sxm", "-o",
                                 "{T}/r16cal_other.yaml"],
      want=[f"r16cal_other.json:{_line_of(other, ['device', 'gpu'])}:", "h200"], files={"r16cal_other.json": other})
    one_line = json.dumps(dict(good, sms=0))
    c("r16_cal_line_one_line", ["calibrate", "{T}/r16cal_1l.json", "--gpu", "h100-sxm"], want=["r16cal_1l.json:1:"],
      files={"r16cal_1l.json": one_line})
    c("r16_cal_line_ok", ["calibrate", "{T}/r16cal_ok.json", "--gpu", "h100-sxm"], "good",
      files={"r16cal_ok.json": json.dumps(dict(good, host_cost=host), indent=1)})


def _tp_case(name, case_id):
    lines = gzip.open(os.path.join(REPO, f"traces/e2e/h200/{name}.lct.gz"), "rt").read().split("\n")
    meta = [x for x in lines if x.startswith("#") and not x.startswith("#end")]
    rng = [x for x in lines if x.endswith(f"\tloom.case={case_id}")][0].split("\t")
    s, e = int(rng[1]), int(rng[2])
    recs = [x.split("\t") for x in lines if x and not x.startswith("#")]
    recs = [r for r in recs if s <= int(r[1]) and int(r[2]) <= e]
    cl = open(os.path.join(REPO, f"traces/e2e/h200/{name}.cases.csv")).read().split("\n")
    cases = "\n".join([x for x in cl if x.startswith("#") or x.startswith("case_id,")] +
                      [x for x in cl if x.startswith(f"{case_id},")]) + "\n"
    return meta, recs, cases


def add_tp_probes(c):
    """validate --e2e over a one-case copy of the TP 2 trace (rank 0's, the only rank traces/e2e keeps) with its
    host probes edited; the other ranks' probes are not recorded in traces/e2e."""
    try:
        meta, recs, cases = _tp_case("tp2", 2)
    except (OSError, IndexError):
        return

    def lct(rs, m=None):
        m = meta if m is None else m
        return "\n".join(m + ["\t".join(r) for r in rs] + [f"#end records={len(rs)} dropped=0", ""])

    def run(n, body, exp, want=(), case_list=cases, extra=()):
        d = f"r16tp_{n}"
        c(f"r16_tp_{n}", ["validate", "--e2e", "--traces", "{T}/" + d] + list(extra), exp, want=want,
          files={f"{d}/run.cases.csv": case_list, f"{d}/run.lct.gz": _gz(body.encode())})

    probes = [r for r in recs if r[0] == "R" and r[-1] == "loom.host_probe"]
    run("ok", lct(recs), "good", extra=["--format", "json"])
    run("no_probes", lct([r for r in recs if r not in probes]), "good", ["catalogue"], extra=["--format", "json"])

    def inside(p, k):
        return int(p[1]) <= int(k[1]) < int(p[2])
    squeezed = [[r[0], r[1], str(int(r[1]) + 1)] + r[3:] if r in probes else r for r in recs]
    # no kernel starts inside a 1 ns probe: no reading, the catalogue's speed (said: host_speed_source)
    run("probe_1ns", lct(squeezed), "good", ["catalogue"], extra=["--format", "json"])
    few = [r for r in recs if not (r[0] == "K" and any(inside(p, r) for p in probes))]
    run("probe_no_kernels", lct(few), "good", ["catalogue"], extra=["--format", "json"])
    run("tp_header_4", lct(recs), "any", case_list=cases.replace("#tp=2", "#tp=4"))
    run("spec_tp3", lct(recs), "bad", ["tp"], case_list=cases.replace("tp=2,", "tp=3,"))
    run("spec_tp1", lct(recs), "any", case_list=cases.replace(" tp=2,", ","))
    run("shard_config_cut", lct(recs), "any",  # recorded for people; loom reads the model's config by its name
        case_list="\n".join(x[:60] if x.startswith("#tp_shard_config=") else x for x in cases.split("\n")))
    run("probe_twice", lct(sorted(recs + probes, key=lambda r: (int(r[1]), r[0]))), "any")


def add_misc16(c):
    """A few whatif, simulate and report inputs not tried before."""
    c("r16_whatif_gpus_path", W[:4] + ["gpus/h200.yaml"] + W[5:], "any")
    c("r16_whatif_gpus_same_twice", W[:4] + ["h200,h200"] + W[5:], "any")
    c("r16_whatif_tp_not_dividing", W + ["--tp", "3"], "bad", ["--tp"])
    c("r16_sim_rate_tiny", S[:6] + ["1e-9"] + S[7:], "any")
    c("r16_sim_num_requests_one", S[:8] + ["1"], "good")
    c("r16_report_simulate_text", ["report", "--simulate", "{T}/r16_sim.json", "-o", "{T}/r16_sim.html"],
      want=["r16_sim.json"], files={"r16_sim.json": "not json\n"})
    c("r16_report_whatif_empty_obj", ["report", "--whatif", "{T}/r16_wi.json", "-o", "{T}/r16_wi.html"],
      want=["r16_wi.json"], files={"r16_wi.json": "{}"})
    c("r16_report_e2e_list", ["report", "--e2e", "{T}/r16_e2e.json", "-o", "{T}/r16_e2e.html"], want=["r16_e2e.json"],
      files={"r16_e2e.json": "[]"})
    c("r16_report_json_in_nan", ["report", "--json-in", "{T}/r16_ji.json", "-o", "{T}/r16_ji.html"],
      want=["r16_ji.json"], files={"r16_ji.json": '{"schema": "loom.predict/1", "latency_us": NaN}'})
    c("r16_report_validation_bom", ["report", "--validation", "{T}/r16_v.json", "-o", "{T}/r16_v.html"],
      want=["r16_v.json"], files={"r16_v.json": "\ufeff{}"})
