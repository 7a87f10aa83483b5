"""Probe cases (see probe_cases.py), seventh round: the inputs added on 27 Nov. <model dir>/transfer.json (per-family
transfer weights, read by every learned prediction) made malformed in a LOOM_HOME copy, and `--set` on a GPU, which
now anchors learned predictions at the unchanged GPU (GpuSpec::anchor): batches, bad values, SM partitions (not
anchored), several overrides at once and scoped whatif overrides. Answers are checked, not only exit codes: a
prediction is never below the ceiling it reports, more bandwidth or clock is never slower, less never faster, and an
override that restates the GPU's own value changes nothing (exit 4 when one of these fails)."""
import json

from probe_cases import REPO

# A command under a LOOM_HOME whose models/efficiency/transfer.json is `text` ('@FIFO@': a named pipe, '@DIR@': a
# folder); everything else is linked to the repository's copy.
THOME = ("import os, shutil, subprocess, sys, tempfile\nloom = os.path.join(os.environ['PYTHONPATH'], '..', 'loom')\n"
         "d = tempfile.mkdtemp()\nfor x in ('gpus', 'kernels', 'traces'): os.symlink({repo!r} + '/' + x, d + '/' + x)\n"
         "os.makedirs(d + '/models/efficiency')\n"
         "for x in os.listdir({repo!r} + '/models'):\n"
         "    if x != 'efficiency': os.symlink({repo!r} + '/models/' + x, d + '/models/' + x)\n"
         "for x in os.listdir({repo!r} + '/models/efficiency'):\n"
         "    if x != 'transfer.json':\n"
         "        os.symlink({repo!r} + '/models/efficiency/' + x, d + '/models/efficiency/' + x)\n"
         "p, text = d + '/models/efficiency/transfer.json', {text!r}\n"
         "if text == '@FIFO@': os.mkfifo(p)\nelif text == '@DIR@': os.mkdir(p)\nelse: open(p, 'w').write(text)\n"
         "try: r = subprocess.run([loom] + {argv!r}, env=dict(os.environ, LOOM_HOME=d), timeout=10); "
         "rc = r.returncode\n"
         "except subprocess.TimeoutExpired:\n"
         "    print('probe: loom hung (killed after 10 s)', file=sys.stderr); rc = 124\n"
         "shutil.rmtree(d)\nsys.exit(rc)\n")
# Predictions (--format json) for the base command and each variant (extra flags); `rel` per variant: 'le' (never
# slower than the base), 'ge' (never faster), 'eq' (the same answer). Every row of every answer must be at or above
# its reported ceiling. A variant that is refused passes its exit status through.
CHECK = ("import json, os, subprocess, sys\nloom = os.path.join(os.environ['PYTHONPATH'], '..', 'loom')\n"
         "def run(extra):\n"
         "    r = subprocess.run([loom] + {base!r} + extra + ['--format', 'json'], capture_output=True)\n"
         "    if r.returncode: sys.stderr.buffer.write(r.stderr); sys.exit(r.returncode)\n"
         "    return [(p['latency_us'], p['ceiling_us']) for p in json.loads(r.stdout)['predictions']]\n"
         "def bad(what): print('loom: ' + what, file=sys.stderr); sys.exit(4)\n"
         "base = run([])\nfor extra, rel in {variants!r}:\n    got = run(extra)\n"
         "    for i, ((b, _), (v, ceil)) in enumerate(zip(base, got)):\n"
         "        at = 'row %d under %s: ' % (i, extra)\n"
         "        if v < ceil * (1 - 1e-9): bad(at + '%.4g us below its ceiling %.4g us' % (v, ceil))\n"
         "        if rel == 'le' and v > b * (1 + 1e-9): bad(at + 'slower (%.4g -> %.4g us)' % (b, v))\n"
         "        if rel == 'ge' and v < b * (1 - 1e-9): bad(at + 'faster (%.4g -> %.4g us)' % (b, v))\n"
         "        if rel == 'eq' and abs(v - b) > 1e-9 * b: bad(at + 'changed (%.4g -> %.4g us)' % (b, v))\n"
         "print('checked %d rows x %d variants' % (len(base), len({variants!r})))\n")
TP = ["predict", "--gpu", "b200", "--kernel", "gemm m=64 n=64 k=64 dtype=bf16"]
ROWS = ("family,m,n,k,dtype,rows,cols,batch,heads,kv_heads,seq_kv,head_dim\n"
        "gemm,512,4096,4096,bf16,,,,,,,\ngemm,64,64,64,bf16,,,,,,,\ngemm,8192,8192,8192,fp8,,,,,,,\n"
        "gemm,1,14336,4096,bf16,,,,,,,\nrms_norm,,,,bf16,4096,8192,,,,,\nattention_decode,,,,bf16,,,32,32,8,4096,128\n")


def add_round7(c):
    add_transfer(c)
    add_set_anchor(c)


def tcase(c, name, text, expect="bad", want=("transfer.json",)):
    c(f"r7_transfer_{name}", ["@python", THOME.format(repo=REPO, text=text, argv=TP)], expect,
      want=list(want) if expect == "bad" else [])


def fam(entry, name="gemm"):
    return json.dumps({"schema": "loom-transfer 1", "families": {name: entry}})


def add_transfer(c):
    """transfer.json: refused with one line naming the file (and what is wrong), never a crash, hang or a silently
    ignored typo; the committed file and valid edits are accepted."""
    ok = {"architectures": ["hopper"], "weight": 0.5}
    tcase(c, "committed", open(REPO + "/models/efficiency/transfer.json").read(), "good")
    tcase(c, "ok_half", fam(ok), "good")
    tcase(c, "ok_empty_families", '{"schema": "loom-transfer 1", "families": {}}', "good")
    tcase(c, "ok_no_architectures_listed", fam({"architectures": [], "weight": 0}), "good")
    for n, text, want in (
            ("not_json", "not json", ["transfer.json:1"]), ("empty", "", ["transfer.json:1"]),
            ("truncated", fam(ok)[:-3], ["transfer.json:1"]), ("array", "[]", ["object"]), ("null", "null", ["object"]),
            ("schema_2", '{"schema": "loom-transfer 2", "families": {}}', ["schema"]),
            ("schema_number", '{"schema": 5, "families": {}}', ["schema"]),
            ("schema_missing", '{"families": {}}', ["schema"]),
            ("families_array", '{"schema": "loom-transfer 1", "families": []}', ["families"]),
            ("families_missing", '{"schema": "loom-transfer 1"}', ["families"]),
            ("families_string", '{"schema": "loom-transfer 1", "families": "gemm"}', ["families"]),
            ("top_unknown_key", '{"schema": "loom-transfer 1", "families": {}, "famlies": {}}', ["famlies"]),
            ("weight_2", fam({"architectures": ["hopper"], "weight": 2}), ["gemm", "weight"]),
            ("weight_neg", fam({"architectures": ["hopper"], "weight": -0.25}), ["gemm", "weight"]),
            ("weight_x", fam({"architectures": ["hopper"], "weight": "x"}), ["gemm", "weight"]),
            ("weight_quoted", fam({"architectures": ["hopper"], "weight": "0.5"}), ["gemm", "weight"]),
            ("weight_null", fam({"architectures": ["hopper"], "weight": None}), ["gemm", "weight"]),
            ("weight_bool", fam({"architectures": ["hopper"], "weight": True}), ["gemm", "weight"]),
            ("weight_missing", fam({"architectures": ["hopper"]}), ["gemm", "weight"]),
            ("weight_1e999", fam(ok).replace("0.5", "1e999"), ["transfer.json"]),
            ("arch_missing", fam({"weight": 0.5}), ["gemm", "architectures"]),
            ("arch_string", fam({"architectures": "hopper", "weight": 0.5}), ["gemm", "architectures"]),
            ("arch_number", fam({"architectures": [5], "weight": 0.5}), ["gemm", "architectures"]),
            ("arch_object", fam({"architectures": {"hopper": 1}, "weight": 0.5}), ["gemm", "architectures"]),
            ("family_number", fam(5), ["gemm"]), ("family_list", fam([0.5]), ["gemm"]),
            ("family_unknown", fam(ok, "gemmm"), ["gemmm"]), ("family_empty_name", fam(ok, ""), ["family"]),
            ("family_extra_key", fam(dict(ok, wieght=1)), ["wieght"]),
            ("family_twice", '{"schema": "loom-transfer 1", "families": {"gemm": %s, "gemm": %s}}'
             % (json.dumps(ok), json.dumps(ok)), ["gemm", "transfer.json:"]),
            ("deep", "[" * 30000 + "]" * 30000, ["transfer.json"]),
            ("bytes", '{"schema": "loom-transfer 1", "families": {"g\xffmm": 1}}', ["transfer.json"]),
            ("fifo", "@FIFO@", ["transfer.json"]), ("dir", "@DIR@", ["transfer.json"])):
        tcase(c, n, text, want=want)


def add_set_anchor(c):
    """--set on a GPU: sane answers for batches, overrides that restate a value, SM partitions (not anchored) and
    scoped whatif overrides; bad values refused with one line naming the key."""
    files = {"r7rows.csv": ROWS}
    B = ["predict", "--gpu", "h200", "--batch", "{T}/r7rows.csv"]
    S = lambda *kv: [x for s in kv for x in ("--set", s)]  # noqa: E731
    variants = [(S("clock.sustained=1500MHz"), "ge"), (S("clock.sustained=1900MHz"), "le"),
                (S("dram.bandwidth=6TB/s"), "le"), (S("dram.bandwidth=2TB/s"), "ge"), (S("l2.bandwidth=12TB/s"), "le"),
                (S("clock.sustained=1900MHz", "dram.bandwidth=6TB/s", "l2.bandwidth=12TB/s"), "le"),
                (S("clock.sustained=1830MHz"), "eq"), (S("dram.bandwidth=4.8TB/s"), "eq"), (S("price=3USD/h"), "eq"),
                (S("name=lab"), "eq"), (S("sms=132"), "eq"), (S("sms=132", "clock.sustained=1830MHz"), "eq")]
    c("r7_set_batch_sane", ["@python", CHECK.format(base=B, variants=variants)],
      "good", files=files)
    part = B + S("sms=64")
    c("r7_set_partition_sane", ["@python", CHECK.format(base=part, variants=[
        (S("clock.sustained=1830MHz"), "eq"), (S("dram.bandwidth=4.8TB/s", "price=2USD/h"), "eq"),
        (S("dram.bandwidth=6TB/s"), "le"), (S("clock.sustained=1500MHz"), "ge")])], "good", files=files)
    one = ["predict", "--gpu", "h200", "--kernel", "gemm m=512 n=4096 k=4096 dtype=bf16"]
    c("r7_set_single_sane", ["@python", CHECK.format(base=one, variants=[
        (S("clock.sustained=1900MHz"), "le"), (S("clock.tensor_load=1300MHz"), "any"),
        (S("sms=64"), "ge"), (S("sms=64", "clock.sustained=1830MHz"), "ge")])], "good")
    for n, kv, want in (("clock_x", "clock.sustained=x", "clock.sustained"),
                        ("clock_zero", "clock.sustained=0MHz", "clock.sustained"),
                        ("clock_over_boost", "clock.sustained=2400MHz", "clock.boost"),
                        ("clock_no_unit", "clock.sustained=1500", "clock.sustained"),
                        ("bw_neg", "dram.bandwidth=-1TB/s", "dram.bandwidth"),
                        ("bw_huge", "dram.bandwidth=1e30TB/s", "dram.bandwidth"),
                        ("bw_empty", "dram.bandwidth=", "dram.bandwidth"), ("sms_zero", "sms=0", "sms"),
                        ("sms_frac", "sms=64.5", "sms"), ("unknown", "dram.bandwidht=6TB/s", "dram.bandwidht"),
                        ("no_eq", "dram.bandwidth", "dram.bandwidth")):
        c(f"r7_set_bad_{n}", B + ["--set", kv], want=[want], files=files)
        c(f"r7_set_bad_second_{n}", B + ["--set", "dram.bandwidth=6TB/s", "--set", kv], want=[want], files=files)
    W = ["whatif", "--model", "llama-3-8b", "--batch", "8", "--input-len", "512", "--output-len", "64", "--gpus",
         "h200,h100-sxm"]
    for n, extra in (("bw", ["h200:dram.bandwidth=6TB/s"]), ("bw_clock", ["h200:dram.bandwidth=6TB/s",
                                                                           "h200:clock.sustained=1900MHz"]),
                     ("partition_clock", ["h200:sms=64", "h200:clock.sustained=1830MHz"]),
                     ("both_gpus", ["h200:dram.bandwidth=6TB/s", "h100-sxm:dram.bandwidth=4TB/s"])):
        c(f"r7_set_whatif_{n}", W + S(*extra), "good")
        c(f"r7_set_whatif_json_{n}", W + S(*extra) + ["--format", "json"], "good")
    for n, kv, want in (("bad_value", "h200:dram.bandwidth=x", "dram.bandwidth"),
                        ("other_gpu", "a100:dram.bandwidth=6TB/s", "a100"),
                        ("empty_value", "h200:clock.sustained=", "clock.sustained")):
        c(f"r7_set_whatif_{n}", W + ["--set", kv], want=[want])
