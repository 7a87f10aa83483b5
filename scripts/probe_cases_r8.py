"""Probe cases (see probe_cases.py), eighth round: the model directory (model.json, the forest files, coverage.json,
manifest.json, transfer.json architectures) and models/collectives.json broken in a LOOM_HOME copy; `impl=` and `scales=` on
every kernel family; `validate --serving` and `--collectives` over odd trace folders; and the ceiling invariant over
random kernels of every family on every catalogue GPU under `--clock sustained|auto`, `--set` overrides (anchored
learned predictions), GPU files that `extends:` a catalogue entry and `--model analytical` (exit 4 names the first
prediction below its own ceiling). The Python module, the C API and the other flags are in probe_cases_r8b.py."""
import json

from probe_cases import REPO

# A command under a LOOM_HOME whose models/efficiency/<name> is `text` ('@FIFO@': a named pipe, '@DIR@': a folder,
# '@GONE@': removed, bytes: written as they are); the other model files are copied, everything else linked. The packed
# forest cache is off, so the forests are read from their files.
MHOME = ("import os, shutil, subprocess, sys, tempfile\nloom = os.path.join(os.environ['PYTHONPATH'], '..', 'loom')\n"
         "d = tempfile.mkdtemp()\nfor x in ('gpus', 'kernels', 'traces'): os.symlink({repo!r} + '/' + x, d + '/' + x)\n"
         "os.makedirs(d + '/models')\n"
         "for x in os.listdir({repo!r} + '/models'):\n"
         "    if x != 'efficiency': os.symlink({repo!r} + '/models/' + x, d + '/models/' + x)\n"
         "shutil.copytree({repo!r} + '/models/efficiency', d + '/models/efficiency')\n"
         "p, text = d + '/models/efficiency/' + {name!r}, {text!r}\n"
         "if os.path.lexists(p): os.remove(p)\n"
         "if text == '@FIFO@': os.mkfifo(p)\nelif text == '@DIR@': os.mkdir(p)\n"
         "elif text != '@GONE@': open(p, 'wb').write(text if isinstance(text, bytes) else text.encode())\n"
         "argv = [a.replace('@D@', d) for a in {argv!r}]\n"
         "try: r = subprocess.run([loom] + argv, env=dict(os.environ, LOOM_HOME=d, LOOM_PACKED_DIR='/nonexistent'), "
         "timeout=15); rc = r.returncode\n"
         "except subprocess.TimeoutExpired:\n"
         "    print('probe: loom hung (killed after 15 s)', file=sys.stderr); rc = 124\n"
         "shutil.rmtree(d)\nsys.exit(rc)\n")
MP = ["predict", "--gpu", "h200", "--kernel", "gemm m=512 n=4096 k=4096 dtype=bf16"]
INDEX = json.load(open(REPO + "/models/efficiency/model.json"))

# Kernels of every family (valid on h200) for the impl= and scales= cross products.
FAMILIES = {"gemm": "gemm m=512 n=4096 k=4096 dtype=bf16",
            "moe": "moe tokens=256 experts=8 topk=2 hidden=4096 inter=14336 dtype=bf16",
            "attention_prefill": "attention_prefill batch=1 heads=32 kv_heads=8 seq=1024 head_dim=128 causal=1 dtype=bf16",
            "attention_decode": "attention_decode batch=8 heads=32 kv_heads=8 seq_kv=4096 head_dim=128 dtype=bf16",
            "rms_norm": "rms_norm rows=4096 cols=4096 dtype=bf16", "layer_norm": "layer_norm rows=4096 cols=4096 dtype=bf16",
            "softmax": "softmax rows=4096 cols=4096 dtype=bf16",
            "elementwise": "elementwise op=silu_mul rows=4096 cols=14336 dtype=bf16",
            "rotary": "rotary tokens=4096 heads=32 kv_heads=8 head_dim=128 dtype=bf16",
            "all_reduce": "all_reduce bytes=33554432 gpus=8", "all_gather": "all_gather bytes=33554432 gpus=8",
            "reduce_scatter": "reduce_scatter bytes=33554432 gpus=8", "send_recv": "send_recv bytes=4194304"}
COLLECTIVES = ("all_reduce", "all_gather", "reduce_scatter", "send_recv")


def add_round8(c):
    add_model_dir(c)
    add_impl(c)
    add_validate_dirs(c)
    add_ceiling_sweep(c)
    from probe_cases_r8b import add_round8b
    add_round8b(c)


def mcase(c, name, file, text, expect="bad", want=None, argv=MP):
    c(f"r8_modeldir_{name}", ["@python", MHOME.format(repo=REPO, name=file, text=text, argv=argv)], expect,
      want=([file.split("/")[-1]] if want is None else want) if expect == "bad" else [])


def index_with(**edit):
    j = json.loads(json.dumps(INDEX))
    for k, v in edit.items():
        if v is None:
            j.pop(k, None)
        else:
            j[k] = v
    return json.dumps(j, indent=1)


def models_with(key, entry):
    m = dict(INDEX["models"])
    m[key] = entry
    return index_with(models=m)


def add_model_dir(c):
    """model.json, the forest files, coverage.json, collectives.json and manifest.json: refused with one line naming
    the file (and the key or line), never a hang, a crash or a silently analytical model."""
    mcase(c, "committed", "model.json", json.dumps(INDEX, indent=2), "good")
    mcase(c, "index_gone", "model.json", "@GONE@", "any")  # no trained model: analytical, and the answers say so
    g = INDEX["models"]["gemm"]
    feats = INDEX["features"]
    for n, text, want in (
            ("index_not_json", "{\n\"features\": ]", ["model.json:2"]), ("index_empty", "", ["model.json:1"]),
            ("index_array", "[]", ["model.json"]), ("index_fifo", "@FIFO@", ["model.json"]),
            ("index_dir", "@DIR@", ["model.json"]),
            ("index_dup_key", json.dumps(INDEX, indent=1).replace("{", '{\n "schema": "x",', 1), ["model.json:", "schema"]),
            ("index_unknown_key", index_with(modles={}), ["modles"]),
            ("index_schema_2", index_with(schema="loom-efficiency-model 2"), ["schema"]),
            ("index_schema_number", index_with(schema=1), ["schema"]),
            ("features_missing", index_with(features=None), ["features"]),
            ("features_number", index_with(features=5), ["features"]),
            ("features_empty", index_with(features=[]), ["features"]),
            ("features_dup", index_with(features=[feats[0]] + feats[:-1]), [feats[0]]),
            ("features_number_item", index_with(features=feats[:-1] + [7]), ["features"]),
            ("features_unknown", index_with(features=["bogus"] + feats[1:]), ["bogus"]),
            ("models_missing", index_with(models=None), ["models"]), ("models_list", index_with(models=[]), ["models"]),
            ("models_empty", index_with(models={}), ["models"]),
            ("model_unknown_family", models_with("gemmm", g), ["gemmm"]),
            ("model_unknown_impl", models_with("gemm@triton", g), ["gemm@triton"]),
            ("model_entry_string", models_with("gemm", "gemm.xgb.json.gz"), ["gemm"]),
            ("model_entry_extra", models_with("gemm", dict(g, size=5)), ["size"]),
            ("model_no_hash", models_with("gemm", {"file": g["file"]}), ["gemm", "hash"]),
            ("model_hash_short", models_with("gemm", dict(g, hash="abc")), ["gemm", "hash"]),
            ("model_hash_number", models_with("gemm", dict(g, hash=5)), ["hash"]),
            ("model_file_outside", models_with("gemm", dict(g, file="../../gpus/h200.yaml")), ["gemm", "file"]),
            ("model_file_dot", models_with("gemm", dict(g, file=".")), ["gemm", "file"]),
            ("model_file_missing", models_with("gemm", dict(g, file="nope.xgb.json.gz")), ["nope.xgb.json.gz"]),
            ("model_hash_wrong", models_with("gemm", dict(g, hash="0123456789abcdef")), ["gemm.xgb.json.gz"]),
            ("index_deep", "[" * 30000 + "]" * 30000, ["model.json"]),
            ("index_big_number", index_with(fingerprint=None).replace('"schema"', '"target": 1e999, "schema"'),
             ["model.json"])):
        mcase(c, n, "model.json", text, want=want)
    for n, text in (("empty", b""), ("not_gzip", b"{}"), ("truncated", open(REPO + "/models/efficiency/gemm.xgb.json.gz",
                                                                             "rb").read()[:4000]),
                    ("fifo", "@FIFO@"), ("dir", "@DIR@"), ("gone", "@GONE@"), ("junk_gzip", b"\x1f\x8b\x08\x00junk")):
        mcase(c, f"forest_{n}", "gemm.xgb.json.gz", text)
    interval = MP + ["--interval"]
    mcase(c, "coverage_committed", "coverage.json", open(REPO + "/models/efficiency/coverage.json").read(), "good",
          argv=interval)
    cov = json.load(open(REPO + "/models/efficiency/coverage.json"))

    def covered(edit):
        j = json.loads(json.dumps(cov))
        edit(j["families"])
        return json.dumps(j, indent=1)
    for n, text, want in (
            ("fifo", "@FIFO@", []), ("dir", "@DIR@", []), ("not_json", "nope", []), ("gone", "@GONE@", []),
            ("schema", '{"schema": "loom-coverage 9", "families": {}}', []),
            ("dup_key", json.dumps(cov, indent=1).replace("{", '{\n "schema": "x",', 1), ["coverage.json:"]),
            ("family_unknown", covered(lambda f: f.update(gemmm=f["gemm"])), ["gemmm"]),
            ("band_nan", covered(lambda f: f["gemm"]["shapes"].update(log_lo=float("nan"))).replace("NaN", '"nan"'),
             ["gemm", "shapes"]),
            ("band_reversed", covered(lambda f: f["gemm"]["shapes"].update(log_lo=5, log_hi=-5)), ["gemm", "shapes"]),
            ("kernels_negative", covered(lambda f: f["gemm"].update(kernels=-5)), ["gemm", "kernels"]),
            ("key_renamed", covered(lambda f: f["gemm"].update(shape=f["gemm"].pop("shapes"))), ["gemm"])):
        mcase(c, f"coverage_{n}", "coverage.json", text, want=["coverage.json"] + want, argv=interval)
    for n, text in (("fifo", "@FIFO@"), ("dir", "@DIR@")):
        mcase(c, f"manifest_{n}", "manifest.json", text, argv=["validate", "--model-dir", "@D@/models/efficiency"])
    # models/collectives.json (the measured collective fits, read by every collective prediction).
    cj = json.load(open(REPO + "/models/collectives.json"))

    def fits(edit):
        j = json.loads(json.dumps(cj))
        edit(j)
        return json.dumps(j, indent=1)
    coll = ["predict", "--gpu", "h200", "--kernel", "all_reduce bytes=1048576 gpus=8"]
    mcase(c, "collectives_committed", "../collectives.json", json.dumps(cj), "good", argv=coll)
    for n, text, want in (
            ("fifo", "@FIFO@", []), ("dir", "@DIR@", []), ("not_json", "{\n\nx", ["collectives.json:3"]),
            ("array", "[]", ["fits"]), ("dup_key", json.dumps(cj, indent=1).replace("{", '{\n "about": "x",', 1),
                                        ["collectives.json:", "about"]),
            ("unknown_top", fits(lambda j: j.update(fitz=[])), ["fitz"]),
            ("unknown_fit_key", fits(lambda j: j["fits"][0].update(bw=1)), ["fit 1", "bw"]),
            ("busbw_zero", fits(lambda j: j["fits"][0]["large"].update(busbw_GBps=0)), ["fit 1", "busbw_GBps"]),
            ("alpha_neg", fits(lambda j: j["fits"][0]["small"].update(alpha_us=-1)), ["fit 1", "alpha_us"]),
            ("gpus_frac", fits(lambda j: j["fits"][0].update(gpus=2.5)), ["fit 1", "gpus"]),
            ("gpus_string", fits(lambda j: j["fits"][0].update(gpus="8")), ["fit 1", "gpus"]),
            ("fit_twice", fits(lambda j: j["fits"].append(j["fits"][0])), ["second fit"])):
        mcase(c, f"collectives_{n}", "../collectives.json", text, want=["collectives.json"] + want, argv=coll)
    # transfer.json: round 7 probed its structure; the architecture names it lists were not checked.
    tj = json.load(open(REPO + "/models/efficiency/transfer.json"))

    def arch(names, **top):
        j = json.loads(json.dumps(tj))
        j["families"]["gemm"]["architectures"] = names
        j.update(top)
        return json.dumps(j)
    gemm_archs = tj["families"]["gemm"]["architectures"]
    for n, text, exp, want in (("arch_typo", arch(["hoper"] + gemm_archs[1:]), "bad", ["gemm", "hoper"]),
                               ("arch_twice", arch(gemm_archs + gemm_archs[:1]), "bad", ["gemm", gemm_archs[0]]),
                               ("arch_empty_name", arch([""] + gemm_archs), "bad", ["gemm", "architecture"]),
                               ("arch_capital", arch(["Hopper"]), "bad", ["Hopper"]),
                               ("arch_blackwell", arch(gemm_archs + ["blackwell"]), "good", []),
                               ("rule_number", arch(gemm_archs, rule=5), "bad", ["rule"]),
                               ("rule_text", arch(gemm_archs, rule="any text"), "good", [])):
        mcase(c, f"transfer_{n}", "transfer.json", text, exp, want=want or None,
              argv=["predict", "--gpu", "b200", "--kernel", "gemm m=64 n=64 k=64 dtype=bf16"])


def impl_expect(fam, impl):
    """What impl=X on family F must give: 'bad' where no such implementation exists, else an answer."""
    if fam in COLLECTIVES:
        return "good" if impl == "nccl" or (impl == "custom" and fam == "all_reduce") else "bad"
    if impl in ("nccl", "custom"):
        return "bad"
    if impl == "cutlass":
        return "bad"  # gemm: needs dtype=fp8 (the bf16 base); other families have none
    if impl == "fused":
        return "good" if fam in ("rotary", "rms_norm", "elementwise") else "bad"
    if impl == "paged":
        return "good" if fam == "attention_decode" else "bad"
    return "good"  # library, torch, loom: the learned model's implementation feature


def add_impl(c):
    """impl= with every value on every family (13 x 8), scales= and l2= on the families that have no such key."""
    for fam, spec in FAMILIES.items():
        for impl in ("library", "torch", "loom", "cutlass", "fused", "paged", "nccl", "custom"):
            exp = impl_expect(fam, impl)
            c(f"r8_impl_{fam}_{impl}", ["predict", "--gpu", "h200", "--kernel", spec + " impl=" + impl, "--format", "json"],
              exp, want=["impl"] if exp == "bad" else [])
    c("r8_impl_gemm_cutlass_fp8_ok", ["predict", "--gpu", "h200", "--kernel",
                                      "gemm m=512 n=4096 k=4096 dtype=fp8 impl=cutlass scales=rowwise"], "good")
    for fam in ("moe", "attention_decode", "rms_norm", "all_reduce", "send_recv"):
        c(f"r8_scales_{fam}", ["predict", "--gpu", "h200", "--kernel", FAMILIES[fam] + " scales=rowwise"], want=["scales"])
    for fam in ("gemm", "softmax", "all_gather"):
        c(f"r8_l2_hot_{fam}", ["predict", "--gpu", "h200", "--kernel", FAMILIES[fam] + " l2=hot"], want=["l2=hot"])


def add_validate_dirs(c):
    """validate --serving over runs with a named pipe, a folder or nothing where a file goes, or a GPU folder that
    is no catalogue GPU; validate --collectives over folders without corpora."""
    d = "traces/serving/engine/h100-sxm/static16/"
    run = {f: open(REPO + "/" + d + f).read() for f in ("requests.csv", "per_request.csv", "iterations.csv")}
    for f in run:
        short = f.split(".")[0]
        for n, data in (("fifo", "@FIFO@"), ("empty", "")):
            files = {f"vs8_{short}_{n}/h100-sxm/r/{g}": (data if g == f else run[g]) for g in run}
            c(f"r8_serving_{short}_{n}", ["validate", "--serving", "--traces", "{T}/vs8_" + short + "_" + n], want=[f],
              files=files)
        files = {f"vs8_{short}_dir/h100-sxm/r/{g}" + ("/.keep" if g == f else ""): ("" if g == f else run[g])
                 for g in run}
        c(f"r8_serving_{short}_dir", ["validate", "--serving", "--traces", "{T}/vs8_" + short + "_dir"], want=[f],
          files=files)
    c("r8_serving_gpu_folder_unknown", ["validate", "--serving", "--traces", "{T}/vs8_gpu"], want=["vs8_gpu/h100-sxmm"],
      files={f"vs8_gpu/h100-sxmm/r/{g}": run[g] for g in run})
    c("r8_serving_ok", ["validate", "--serving", "--traces", "{T}/vs8_ok"], "good",
      files={f"vs8_ok/h100-sxm/r/{g}": run[g] for g in run})
    for n, files in (("empty", {"vc8_empty/.keep": ""}), ("fifo_corpus", {"vc8_fifo/h200/x.corpus.csv.gz": "@FIFO@"}),
                     ("dir_corpus", {"vc8_dir/h200/x.corpus.csv.gz/.keep": ""})):
        c(f"r8_collectives_{n}", ["validate", "--collectives", "--traces", "{T}/vc8_" + n.split("_")[0]], want=["vc8_"],
          files=files)


# Random kernels of every family on every catalogue GPU, each batch under boost/sustained/auto clocks, --set
# overrides (anchored learned predictions), a GPU file that extends: the entry (with and without a change) and
# --model analytical: no prediction below its own ceiling (exit 4 names the first). Rows a GPU cannot run are
# dropped first (one predict each).
SWEEP = ("import subprocess, sys\nr = subprocess.run([sys.executable, {script!r}, '--seed', '{seed}', '--iters', '{iters}'])\n"
         "sys.exit(r.returncode)\n")


def add_ceiling_sweep(c):
    for seed in (1, 2, 3, 4):
        c(f"r8_ceiling_sweep_{seed}", ["@python", SWEEP.format(script=REPO + "/scripts/probe_sweep_ceiling.py", seed=seed,
                                                               iters=5)], "good", want=["ok"])
