"""Probe cases (see probe_cases.py), ninth round: the flags added last (`train --max-depth` over a tiny --traces
corpus, `--interval` with every output format and GPU list, `calibrate` results with odd values), `trace import
--from` over files with odd encodings, units and numbers (every public format, the collective ones included), `trace
fit-collectives` outputs, and `validate --serving/--collectives/--e2e` over odd folders. Serving, tune, what-if,
replay, GPU files, paths and the Python module / C API are in probe_cases_r9b.py."""
import json

from probe_cases import read

K = "gemm m=64 n=64 k=64 dtype=bf16"
CAL = "tests/data/calibrate/good.json"
NS = "tests/data/public/neusight_ok.csv"
# A command whose input file must be left as it was: exit 4 (a defect: 'other') when the command changed it.
KEEP = ("import hashlib, os, subprocess, sys\nloom = os.path.join(os.environ['PYTHONPATH'], '..', 'loom')\n"
        "keep = {keep!r}\nh = lambda p: hashlib.sha256(open(p, 'rb').read()).hexdigest() if os.path.isfile(p) else None\n"
        "before = [h(p) for p in keep]\nr = subprocess.run([loom] + {argv!r})\n"
        "for p, b in zip(keep, before):\n    if h(p) != b:\n"
        "        print('loom: probe: input %s was changed or removed' % p, file=sys.stderr); sys.exit(4)\n"
        "sys.exit(r.returncode)\n")


def corpus_head(n):
    """A corpus of the first n - 22 kernels of a committed corpus (as when its header was 22 lines), in version 1:
    since the committed corpora are version 2 (slimcorpus), their first lines are the kernel dictionary (round 10)."""
    from probe_cases_r10 import pick, v1
    return v1(pick(n - 22))


def read_path(p):
    from probe_cases import REPO
    return REPO + "/" + p


def add_round9(c):
    add_train(c)
    add_interval(c)
    add_calibrate(c)
    add_public_import(c)
    add_fit_collectives(c)
    add_validate_dirs(c)
    from probe_cases_r9b import add_round9b
    add_round9b(c)


def add_train(c):
    """`train --max-depth` syntax (refused before any corpus is read) and training over tiny corpora in T."""
    small = {"tr9/a.corpus.csv": corpus_head(60)}
    T = ["train", "--traces", "{T}/tr9", "--out", "{T}/tr9out"]
    for n, v, want in (("empty", "", "--max-depth"), ("comma", ",", "--max-depth"), ("trailing_comma", "gemm=8,", "--max-depth"),
                       ("leading_comma", ",gemm=8", "--max-depth"), ("no_eq", "gemm", "--max-depth"),
                       ("no_depth", "gemm=", "--max-depth"), ("no_family", "=8", "--max-depth"),
                       ("zero", "gemm=0", "--max-depth"), ("neg", "gemm=-1", "--max-depth"), ("plus", "gemm=+8", "--max-depth"),
                       ("float", "gemm=7.5", "--max-depth"), ("hex", "gemm=0x8", "--max-depth"), ("huge", "gemm=99999999999", "--max-depth"),
                       ("space", "gemm= 8", "--max-depth"), ("space_family", " gemm=8", "--max-depth"),
                       ("upper", "GEMM=8", "--max-depth"), ("colon", "gemm:8", "--max-depth"), ("twice", "moe=4,moe=5", "moe"),
                       ("impl_key", "gemm@cutlass=8", "--max-depth"), ("all", "all=8", "--max-depth"),
                       ("double_eq", "gemm==8", "--max-depth"), ("semicolon", "gemm=8;moe=6", "--max-depth"),
                       ("nul_like", "gemm=8\x01", "--max-depth"), ("unicode", "gemm=８", "--max-depth")):
        c(f"r9_train_depth_{n}", T + ["--max-depth", v], want=[want], files=small)
    c("r9_train_depth_flag_twice", T + ["--max-depth", "gemm=4", "--max-depth", "moe=4"], want=["--max-depth"], files=small)
    # 38 kernels give no family the 200 training kernels of its forest: refused since round 10; 330 give attention_prefill one
    from probe_cases_r10 import pick, v1
    c("r9_train_depth_ok", ["train", "--traces", "{T}/tr9b", "--out", "{T}/tr9bout", "--max-depth", "attention_decode=3,gemm=2",
                            "--rounds", "3"], "good", files={"tr9b/a.corpus.csv": v1(pick(330, family="attention_prefill"))})
    c("r9_train_depth_max", T + ["--max-depth", "attention_decode=16"], "any", files=small)
    c("r9_train_global", T + ["--global", "--rounds", "3"], "good", files=small)
    c("r9_train_rounds_zero", T + ["--rounds", "0"], want=["--rounds"], files=small)
    c("r9_train_seed_neg", T + ["--seed", "-1"], want=["--seed"], files=small)
    c("r9_train_header_only", ["train", "--traces", "{T}/tr9h", "--out", "{T}/tr9hout"], want=["tr9h"],
      files={"tr9h/a.corpus.csv": corpus_head(22)})
    c("r9_train_one_kernel", ["train", "--traces", "{T}/tr9one", "--out", "{T}/tr9oneout"], want=["tr9one", "too few"],
      files={"tr9one/a.corpus.csv": corpus_head(23)})
    c("r9_train_empty_dir", ["train", "--traces", "{T}/tr9e", "--out", "{T}/tr9eout"], want=["tr9e"], files={"tr9e/.keep": ""})
    c("r9_train_traces_file", ["train", "--traces", "{T}/tr9/a.corpus.csv", "--out", "{T}/tr9fo"], want=["a.corpus.csv"], files=small)
    c("r9_train_out_is_corpus", ["@python", KEEP.format(keep=["{T}/tr9k/a.corpus.csv"], argv=[
        "train", "--traces", "{T}/tr9k", "--out", "{T}/tr9k/a.corpus.csv"])], want=["--out"],
      files={"tr9k/a.corpus.csv": corpus_head(60)})
    c("r9_train_out_devnull", T + ["--out", "/dev/null"], want=["--out"], files=small)
    c("r9_train_out_empty", ["train", "--traces", "{T}/tr9", "--out", ""], want=["--out"], files=small)
    c("r9_train_traces_loop", ["train", "--traces", "{T}/tr9loop", "--out", "{T}/tr9lo"], want=["tr9loop"],
      files={"tr9loop/a": "@LINK@b", "tr9loop/b": "@LINK@a"})
    c("r9_train_corpus_nan", ["train", "--traces", "{T}/tr9n", "--out", "{T}/tr9no"], want=["a.corpus.csv"],
      files={"tr9n/a.corpus.csv": corpus_head(24) + "99,attention_decode,attention_decode batch=1 heads=32 kv_heads=8 "
                                  "seq_kv=512 head_dim=128 dtype=bf16,torch,k,1:8:1,128:1:1,183,86336,10,nan,8,8,1,8\n"})
    c("r9_train_corpus_crlf", ["train", "--traces", "{T}/tr9c", "--out", "{T}/tr9co"], "any",
      files={"tr9c/a.corpus.csv": corpus_head(60).replace("\n", "\r\n")})


def add_interval(c):
    """--interval with each format, GPU lists, edited GPUs, --clock and --model analytical."""
    P = ["predict", "--gpu", "h200", "--kernel", K, "--interval"]
    for f in ("json", "csv", "table"):
        c(f"r9_interval_predict_{f}", P + ["--format", f], "good")
        c(f"r9_interval_e2e_{f}", ["e2e", "--gpu", "h200", "--model", "llama-3-8b", "--phase", "decode", "--batch", "4",
                                    "--context", "512", "--interval", "--format", f], "good")
        c(f"r9_interval_whatif_{f}", ["whatif", "--model", "llama-3-8b", "--batch", "1", "--input-len", "64",
                                       "--output-len", "8", "--gpus", "h200,b200", "--interval", "--format", f], "good")
    for n, extra, exp in (("all", ["--gpu", "all"], "any"), ("set", ["--set", "sms=66"], "good"),
                          ("edited", ["--gpu", "examples/edited-h100.yaml"], "good"),
                          ("sustained", ["--clock", "sustained"], "good"), ("analytical", ["--model", "analytical"], "any"),
                          ("moe", ["--kernel", "moe tokens=64 experts=8 topk=2 hidden=4096 inter=14336 dtype=bf16"], "good"),
                          ("collective", ["--kernel", "all_reduce bytes=1048576 gpus=8"], "any"),
                          ("p4", ["--gpu", "p4"], "any"), ("roofline", ["--model", "roofline"], "any")):
        argv = ["predict", "--gpu", "h200", "--kernel", K, "--interval", "--format", "json"]
        for i in range(0, len(extra), 2):
            if extra[i] in argv:
                argv[argv.index(extra[i]) + 1] = extra[i + 1]
            else:
                argv += extra[i:i + 2]
        c(f"r9_interval_predict_{n}", argv, exp)
    c("r9_interval_value", ["predict", "--gpu", "h200", "--kernel", K, "--interval", "90"], want=["90"])
    c("r9_interval_eq", ["predict", "--gpu", "h200", "--kernel", K, "--interval=1"], want=["--interval"])
    c("r9_interval_twice", ["predict", "--gpu", "h200", "--kernel", K, "--interval", "--interval"], "any")
    c("r9_interval_batch", ["predict", "--gpu", "h200", "--batch", "tests/data/batch_header_only.csv", "--interval"], "any")
    c("r9_interval_simulate", ["simulate", "--gpu", "h200", "--model", "llama-3-8b", "--rate", "1", "--num-requests",
                               "5", "--interval"], want=["--interval"])
    c("r9_interval_whatif_rate", ["whatif", "--model", "llama-3-8b", "--gpus", "h200", "--rate", "1", "--interval"], "any")
    c("r9_interval_e2e_prefill_tp", ["e2e", "--gpu", "h200", "--model", "llama-3-70b", "--phase", "prefill", "--batch",
                                      "1", "--seq", "512", "--tp", "4", "--interval", "--format", "json"], "any")
    c("r9_interval_diagnose", ["diagnose", "--gpu", "h200", "--kernel", K, "--interval"], want=["--interval"])


def add_calibrate(c):
    """Calibration results with odd values: every number of the tensor / memory / launch sections."""
    base = json.loads(read(CAL))

    def edited(path, value):
        d = json.loads(json.dumps(base))
        node = d
        for k in path[:-1]:
            node = node[k]
        if value is KeyError:
            del node[path[-1]]
        else:
            node[path[-1]] = value
        return json.dumps(d)
    for n, path, value in (
            ("slowdown_below_one", ["tensor", "bf16", "slowdown"], 0.5), ("slowdown_huge", ["tensor", "bf16", "slowdown"], 1e9),
            ("sustained_mhz_zero", ["tensor", "bf16", "sustained_sm_mhz"], 0),
            ("sustained_above_max", ["tensor", "bf16", "sustained_sm_mhz"], 5000),
            ("max_mhz_neg", ["tensor", "bf16", "max_sm_mhz"], -1), ("power_neg", ["tensor", "bf16", "power_w"], -5),
            ("cool_us_zero", ["tensor", "bf16", "cool_us"], 0), ("sustained_us_str", ["tensor", "bf16", "sustained_us"], "1641"),
            ("tflops_huge", ["tensor", "bf16", "sustained_tflops"], 1e300),
            ("clock_left_neg", ["tensor", "bf16", "clock_left_max_after_s"], -0.1),
            ("dram_zero", ["memory", "dram_read_bytes_per_s"], 0), ("dram_huge", ["memory", "dram_read_bytes_per_s"], 1e30),
            ("dram_copy_neg", ["memory", "dram_copy_bytes_per_s"], -1.0), ("l2_zero", ["memory", "l2_bytes"], 0),
            ("launch_neg", ["launch", "stream_us_per_kernel"], -8.0), ("launch_str", ["launch", "graph_us_per_kernel"], "x"),
            ("sms_float", ["sms"], 131.5), ("sms_total_zero", ["device", "sms_total"], 0),
            ("clock_device_zero", ["device", "clock_mhz"], 0), ("gpu_empty", ["device", "gpu"], ""),
            ("gpu_unknown", ["device", "gpu"], "NVIDIA Z9000"), ("schema_v2", ["schema"], "loom.calibration/2"),
            ("no_tensor", ["tensor"], KeyError), ("tensor_empty", ["tensor"], {}), ("tensor_list", ["tensor"], []),
            ("memory_null", ["memory"], None), ("extra_dtype", ["tensor", "int4"], {"cool_us": 1}),
            ("nvml_str", ["nvml"], "yes")):
        # A device name gpu_names.tsv lacks (a new SKU) is taken: --gpu names the entry explicitly.
        c(f"r9_cal_{n}", ["calibrate", "{T}/cal9_" + n + ".json", "--gpu", "h100-sxm"], "any" if n == "gpu_unknown" else "bad",
          want=[] if n == "gpu_unknown" else ["cal9_" + n + ".json"], files={"cal9_" + n + ".json": edited(path, value)})
    text = read(CAL).decode()
    for n, data, exp in (("bom", "\ufeff" + text, "any"), ("crlf", text.replace("\n", "\r\n"), "good"),
                         ("trailing_garbage", text + "x", "bad"), ("two_docs", text + text, "bad"),
                         ("latin1", text.replace("vm", "v\xe9").encode("latin-1"), "bad"),
                         ("nul", text.replace("vm", "v\x00m"), "bad")):
        c(f"r9_cal_file_{n}", ["calibrate", "{T}/cal9f_" + n + ".json", "--gpu", "h100-sxm"], exp,
          want=["cal9f_" + n + ".json"] if exp == "bad" else [], files={"cal9f_" + n + ".json": data})
    for n, argv, want in (("gpu_all", ["calibrate", CAL, "--gpu", "all"], "--gpu"),
                          ("gpu_list", ["calibrate", CAL, "--gpu", "h100-sxm,h200"], "--gpu"),
                          ("flag_gpu_empty", ["calibrate", CAL, "--gpu", ""], "--gpu"),
                          ("two_results", ["calibrate", CAL, CAL, "--gpu", "h100-sxm"], "calibrate"),
                          ("o_dir", ["calibrate", CAL, "--gpu", "h100-sxm", "-o", "{T}/cal9dir"], "cal9dir"),
                          ("o_and_out", ["calibrate", CAL, "--gpu", "h100-sxm", "-o", "{T}/a.yaml", "--out", "{T}/b.yaml"], "-o"),
                          ("stdin", ["calibrate", "-", "--gpu", "h100-sxm"], "-"),
                          ("o_catalogue", ["calibrate", CAL, "--gpu", "h100-sxm", "-o", "/proc/self/cal.yaml"], "cal.yaml")):
        c(f"r9_cal_{n}", argv, want=[want], files={"cal9dir/.keep": ""})
    c("r9_cal_o_is_input", ["@python", KEEP.format(keep=["{T}/cal9k.json"], argv=[
        "calibrate", "{T}/cal9k.json", "--gpu", "h100-sxm", "-o", "{T}/./cal9k.json"])], want=["cal9k.json"],
      files={"cal9k.json": text})
    c("r9_cal_o_is_gpu_file", ["@python", KEEP.format(keep=["{T}/cal9g.yaml"], argv=[
        "calibrate", CAL, "--gpu", "{T}/cal9g.yaml", "-o", "{T}/cal9g.yaml"])], "bad",
      files={"cal9g.yaml": "extends: h100-sxm\nname: lab h100\n"})


def add_public_import(c):
    """`trace import --from`: every format with odd encodings, numbers, units and layouts."""
    ns = read(NS).decode()
    hdr, row = ns.split("\n")[0], ns.split("\n")[1]
    vd = read("tests/data/public/vidur_no_gpu_path.csv").decode().split("\n")
    pw = read("tests/data/public/moe_dse_H800_bad_stage.csv").decode().splitlines()
    coll = read("tests/data/public/collective/H20/all_reduce.csv").decode().splitlines()
    lc = read("tests/data/public/collective/loom-h200-2gpu.csv").decode().splitlines()
    I = lambda src, f, *extra: ["trace", "import", "--from", src, "{T}/" + f, "-o", "{T}/imp9o", *extra]  # noqa: E731
    lat = hdr.split(",").index("Latency")

    def ns_row(value, col=lat):  # the Kernel Name column is quoted and holds commas: edited as CSV
        import csv
        import io
        f = next(csv.reader([row]))
        f[col] = value
        out = io.StringIO()
        csv.writer(out, lineterminator="\n").writerow(f)
        return hdr + "\n" + out.getvalue().replace('"""', '"') if value.startswith('"') else hdr + "\n" + out.getvalue()
    for n, data, exp in (
            ("empty", "", "bad"), ("bom_only", "\ufeff", "bad"), ("header_only", hdr + "\n", "bad"),
            ("header_crlf_only", hdr + "\r\n", "bad"), ("crlf", ns.replace("\n", "\r\n"), "good"),
            ("bom_crlf", "\ufeff" + ns.replace("\n", "\r\n"), "good"), ("double_bom", "\ufeff\ufeff" + ns, "bad"),
            ("utf16", ns.encode("utf-16"), "bad"), ("dup_col", hdr + ",Latency\n" + row + ",1\n", "bad"),
            ("lat_neg", ns_row("-0.8"), "bad"), ("lat_zero", ns_row("0"), "bad"), ("lat_inf", ns_row("inf"), "bad"),
            ("lat_nan_upper", ns_row("NaN"), "bad"), ("lat_unit", ns_row("0.8ms"), "bad"), ("lat_us_unit", ns_row("800 us"), "bad"),
            ("lat_hex", ns_row("0x1p-1"), "bad"), ("lat_comma_dec", ns_row("0,8"), "bad"), ("lat_space", ns_row(" 0.8"), "bad"),
            ("lat_empty", ns_row(""), "bad"), ("lat_huge_digits", ns_row("9" * 400), "bad"),
            ("lat_denormal", ns_row("4e-320"), "bad"), ("b_neg", ns_row("-32768", hdr.split(",").index("B")), "bad"),
            ("b_huge", ns_row("9" * 30, hdr.split(",").index("B")), "bad"), ("b_float", ns_row("32768.5", hdr.split(",").index("B")), "bad"),
            ("device_empty", ns_row("", hdr.split(",").index("Device")), "bad"),
            ("device_ctrl", ns_row("Tesla\x1bV100", hdr.split(",").index("Device")), "bad"),
            ("short_row", hdr + "\n" + ",".join(row.split(",")[:5]) + "\n", "bad"),
            ("long_row", hdr + "\n" + row + ",extra\n", "bad"), ("blank_lines", hdr + "\n\n" + row + "\n\n", "any"),
            ("no_final_newline", hdr + "\n" + row, "good"), ("cr_only", ns.replace("\n", "\r"), "bad"),
            ("nul_in_row", hdr + "\n" + row.replace("ln", "l\x00n", 1) + "\n", "bad"),
            ("quote_unclosed", hdr + "\n" + row.replace('"void', 'void"', 1) + "\n", "bad"),
            ("header_spaces", hdr.replace(",", ", ") + "\n" + row + "\n", "bad"), ("header_upper", hdr.upper() + "\n" + row + "\n", "bad")):
        c(f"r9_imp_ns_{n}", I("neusight", "ns9_" + n + ".csv"), exp, want=["ns9_" + n + ".csv"] if exp == "bad" else [],
          files={"ns9_" + n + ".csv": data})
    vh = vd[0].split(",")
    vrow = vd[1].split(",")
    for n, col, value in (("median_neg", "time_stats.emb.median", "-1"), ("median_nan", "time_stats.emb.median", "nan"),
                          ("median_inf", "time_stats.emb.median", "inf"), ("median_unit", "time_stats.emb.median", "1ms"),
                          ("min_above_max", "time_stats.emb.min", "1e6")):
        if col not in vh:
            continue
        f = list(vrow)
        f[vh.index(col)] = value
        ok = n in ("min_above_max", "median_nan")  # Vidur writes nan for an op it did not time: skipped and counted
        c(f"r9_imp_vidur_{n}", I("vidur", "vd9_" + n + ".csv", "--gpu", "a100-sxm4-80gb"), "any" if ok else "bad",
          want=[] if ok else ["vd9_" + n + ".csv"],
          files={"vd9_" + n + ".csv": vd[0] + "\n" + ",".join(f) + "\n"})
    c("r9_imp_vidur_header_only", I("vidur", "vd9h.csv", "--gpu", "a100-sxm4-80gb"), want=["vd9h.csv"], files={"vd9h.csv": vd[0] + "\n"})
    c("r9_imp_vidur_gpu_yaml", I("vidur", "vd9y.csv", "--gpu", "examples/edited-h100.yaml"), want=["--gpu"],
      files={"vd9y.csv": "\n".join(vd[:3]) + "\n"})
    c("r9_imp_vidur_gpu_unknown", I("vidur", "vd9u.csv", "--gpu", "h999"), want=["h999"], files={"vd9u.csv": "\n".join(vd[:3]) + "\n"})
    ph = pw[0].split(",")
    for n, col, value in (("dur_neg", "avg_duration", "-4.2"), ("dur_nan", "avg_duration", "nan"), ("e_zero", "E", "0"),
                          ("topk_above_e", "topk", "99"), ("m_neg", "M", "-1"), ("n_huge", "N", "9" * 25),
                          ("warps_zero", "num_warps", "0"), ("count_zero", "sample_count", "0")):
        f = pw[1].split(",")
        f[ph.index(col)] = value
        c(f"r9_imp_pw_{n}", I("pipeweave", "moe_dse_H800_" + n + ".csv"), want=["moe_dse_H800_" + n + ".csv"],
          files={"moe_dse_H800_" + n + ".csv": pw[0] + "\n" + ",".join(f) + "\n"})
    chh = coll[0].split(",")
    for n, col, value in (("median_nan", "time_stats.all_reduce.median", "nan"), ("min_neg", "time_stats.all_reduce.min", "-1"),
                          ("workers_zero", "num_workers", "0"), ("size_neg", "size", "-2048"), ("dpn_zero", "devices_per_node", "0"),
                          ("collective_other", "collective", "all_gather"), ("size_float", "size", "2048.0")):
        f = coll[1].split(",")
        f[chh.index(col)] = value
        c(f"r9_imp_coll_{n}", I("vidur", "H20/c9_" + n + ".csv"), "any" if n in ("median_nan", "collective_other") else "bad",
          want=["c9_" + n + ".csv"] if n not in ("median_nan", "collective_other") else [],
          files={"H20/c9_" + n + ".csv": coll[0] + "\n" + ",".join(f) + "\n" + coll[2] + "\n"})
    lh = lc[0].split(",")
    for n, col, value in (("run_nan", "run1_us", "nan"), ("run_zero", "run2_us", "0"), ("bytes_zero", "bytes", "0"),
                          ("gpus_one", "gpus", "1"), ("gpus_huge", "gpus", "4096"), ("rank_neg", "rank", "-1"),
                          ("dtype_fp8", "dtype", "float8"), ("impl_custom", "impl", "custom"), ("op_typo", "op", "allreduce")):
        f = lc[1].split(",")
        f[lh.index(col)] = value
        c(f"r9_imp_loomcoll_{n}", I("loom", "lc9_" + n + ".csv", "--gpu", "h200"), want=["lc9_" + n + ".csv"],
          files={"lc9_" + n + ".csv": lc[0] + "\n" + ",".join(f) + "\n"})
    for n, argv, want, files in (
            ("same_file_twice", ["trace", "import", "--from", "neusight", NS, NS, "-o", "{T}/imp9t"], NS, None),
            ("same_file_two_spellings", ["trace", "import", "--from", "neusight", NS, "./" + NS, "-o", "{T}/imp9t"], NS, None),
            ("dir_input", ["trace", "import", "--from", "neusight", "tests/data/public", "-o", "{T}/imp9t"], "tests/data/public", None),
            ("stdin", ["trace", "import", "--from", "neusight", "-", "-o", "{T}/imp9t"], "-", None),
            ("out_is_input", ["trace", "import", "--from", "neusight", "{T}/imp9in.csv", "-o", "{T}/imp9in.csv"], "imp9in.csv",
             {"imp9in.csv": ns}),
            ("out_devnull", ["trace", "import", "--from", "neusight", NS, "-o", "/dev/null"], "/dev/null", None),
            ("from_upper", ["trace", "import", "--from", "NeuSight", NS, "-o", "{T}/imp9t"], "NeuSight", None),
            ("from_wrong_source", ["trace", "import", "--from", "vidur", NS, "-o", "{T}/imp9t"], "neusight_ok.csv", None),
            ("from_twice", ["trace", "import", "--from", "neusight", "--from", "vidur", NS, "-o", "{T}/imp9t"], "--from", None),
            ("from_chrome_too", ["trace", "import", "--from", "neusight", NS, "--chrome", "x.json", "-o", "{T}/imp9t"], "--chrome", None),
            ("gpu_all", ["trace", "import", "--from", "neusight", NS, "--gpu", "all", "-o", "{T}/imp9t"], "all", None),
            ("second_bad", ["trace", "import", "--from", "neusight", NS, "{T}/imp9b.csv", "-o", "{T}/imp9t2"], "imp9b.csv",
             {"imp9b.csv": hdr + "\n"}),
            ("fifo", ["trace", "import", "--from", "neusight", "{T}/imp9fifo", "-o", "{T}/imp9t"], "imp9fifo", {"imp9fifo": "@FIFO@"}),
            ("loop", ["trace", "import", "--from", "neusight", "{T}/imp9l1", "-o", "{T}/imp9t"], "imp9l1",
             {"imp9l1": "@LINK@imp9l2", "imp9l2": "@LINK@imp9l1"})):
        c(f"r9_imp_{n}", argv, want=[want], files=files)


def add_fit_collectives(c):
    """`trace fit-collectives`: its output path and stray arguments."""
    F = ["trace", "fit-collectives"]
    for n, extra, want in (("o_dir", ["-o", "{T}/fc9dir"], "fc9dir"), ("o_empty", ["-o", ""], "-o"), ("o_full", ["-o", "/dev/full"], "/dev/full"),
                           ("o_nodir", ["-o", "{T}/nofc9/x.json"], "nofc9"), ("o_and_out", ["-o", "{T}/a.json", "--out", "{T}/b.json"], "-o"),
                           ("positional", ["traces/collectives"], "traces/collectives"), ("format", ["--format", "json"], "--format"),
                           ("gpu", ["--gpu", "h200"], "--gpu"), ("o_proc", ["-o", "/proc/fc9.json"], "fc9.json")):
        c(f"r9_fitcoll_{n}", F + extra, want=[want], files={"fc9dir/.keep": ""})
    c("r9_fitcoll_o_tmp", F + ["-o", "{T}/fc9.json"], "any", empty_ok=True)
    c("r9_fitcoll_o_space", F + ["-o", "{T}/fc 9 dir/out.json"], "any", empty_ok=True, files={"fc 9 dir/.keep": ""})


def add_validate_dirs(c):
    """validate --serving / --collectives / --e2e over odd folders."""
    for n, mode, traces, files, exp in (
            ("serving_file", "--serving", "tests/data/serving/requests.csv", None, "bad"),
            ("serving_empty", "--serving", "{T}/vs9e", {"vs9e/.keep": ""}, "bad"),
            ("serving_loop", "--serving", "{T}/vs9l", {"vs9l/a": "@LINK@b", "vs9l/b": "@LINK@a"}, "bad"),
            ("serving_fifo", "--serving", "{T}/vs9f", {"vs9f/run.json": "@FIFO@"}, "bad"),
            ("serving_binary_name", "--serving", "{T}/vs9b", {b"vs9b/r\xff.json": "{}"}, "bad"),
            ("collectives_file", "--collectives", "README.md", None, "bad"),
            ("collectives_empty", "--collectives", "{T}/vc9e", {"vc9e/.keep": ""}, "bad"),
            ("collectives_loop", "--collectives", "{T}/vc9l", {"vc9l/collectives/a": "@LINK@b", "vc9l/collectives/b": "@LINK@a"}, "bad"),
            ("collectives_space", "--collectives", "{T}/vc9 s", {"vc9 s/collectives/loom/x.csv": "a,b\n"}, "bad"),
            ("e2e_file", "--e2e", "README.md", None, "bad"), ("e2e_empty", "--e2e", "{T}/ve9e", {"ve9e/.keep": ""}, "bad"),
            ("e2e_loop", "--e2e", "{T}/ve9l", {"ve9l/h200/a": "@LINK@b", "ve9l/h200/b": "@LINK@a"}, "bad"),
            ("e2e_cases_only", "--e2e", "{T}/ve9c", {"ve9c/h200/x.cases.csv": "case_id\n"}, "bad"),
            ("e2e_gpu_unknown", "--e2e", "{T}/ve9u", {"ve9u/h999/x.cases.csv": "case_id\n"}, "bad")):
        c(f"r9_validate_{n}", ["validate", mode, "--traces", traces], exp, files=files)
    c("r9_validate_two_modes", ["validate", "--serving", "--e2e"], want=["--e2e"])
    c("r9_validate_collectives_e2e", ["validate", "--collectives", "--e2e"], want=["--collectives"])
    c("r9_validate_serving_clock_bad", ["validate", "--serving", "--clock", "fast"], want=["--clock"])
    c("r9_validate_serving_max_error_neg", ["validate", "--serving", "--max-error", "-5"], want=["--max-error"])
    c("r9_validate_collectives_max_mape_nan", ["validate", "--collectives", "--max-mape", "nan"], want=["--max-mape"])
