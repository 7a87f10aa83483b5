"""Probe cases (see probe_cases.py), nineteenth round, on probe_lib.py: what the runner cannot set up itself, through
a small wrapper program (RUN below) that starts the binary under test with a file-size limit, a closed or broken
stdout, another locale, environment variables loom reads, stdin holding a file; and the output is checked for what
a run leaves behind (a temporary or partial file). Also: /dev/full as every output flag (refused before the work),
special input names ('-', /dev/stdin, /dev/null, '--help', spaces, newlines, paths beyond PATH_MAX, `..` chains),
outputs that are FIFOs, links and folders, `whatif --threads`, the Python module under a comma-decimal locale and
with duck-typed rows, and the C API with two handles."""
from probe_lib import REPO, Round  # noqa: F401

K = "gemm m=64 n=64 k=64 dtype=bf16"
P = ["predict", "--gpu", "h200", "--kernel", K]
E = ["e2e", "--gpu", "h200", "--model", "llama-3-8b", "--phase", "decode", "--batch", "8", "--context", "1024"]
W = ["whatif", "--model", "llama-3-8b", "--batch", "8", "--input-len", "512", "--output-len", "64", "--gpus",
     "h200,h100-sxm"]
S = ["simulate", "--gpu", "h200", "--model", "llama-3-8b", "--rate", "2", "--num-requests", "20"]
FIT = ["tune", "--gpu", "h200", "--family", "moe-triton-fp8", "--fit", "--traces", "traces/tune"]
VAL = ["tune", "--gpu", "h200", "--family", "moe-triton-fp8", "--validate", "--no-timing", "--traces", "traces/tune"]
MOE = ["tune", "--gpu", "h200", "--model", "mixtral-8x7b"]
CAL = ["calibrate", "tests/data/calibrate/good.json", "--gpu", "h100-sxm"]
NEU = ["trace", "import", "--from", "neusight", "tests/data/public/neusight_ok.csv"]
LCT = ["trace", "import", "--lct", "traces/e2e/h200/graph_decode.lct.gz", "--cases",
       "traces/e2e/h200/graph_decode.cases.csv"]
COMPACT = ["trace", "compact", "traces/h200/sms132-linear.corpus.csv.gz"]

# The wrapper: runs `@LOOM@ argv...` (each '@LOOM@' the binary under test) in the repository with env changes, an
# optional file-size limit (SIGXFSZ left at its default, as a shell's `ulimit -f` leaves it), stdin from a file,
# stdout closed / a pipe closed at once / a pipe read to the end. After the run, `watch` (a folder) must hold no
# `*.loom-tmp-*` file and no file named in `absent`: one left is a second stderr line (messy) or, on exit 0, exit 1.
# A run killed by a signal is exit 3 (crash) but SIGPIPE with stdout='sigpipe' (a shell's `| head -c 0`), the
# convention of every Unix filter. mode 'compare': the same argv is run twice, without and with env, and the
# stdouts must be byte-identical ('same' printed, else 'DIFFERENT' and exit 0: a defect for a good case).
RUN = r'''r = None  # {shown}
import os, subprocess, sys, resource, signal, time, glob
loom = os.path.abspath(os.path.join(os.environ['PYTHONPATH'], '..', 'loom'))
A = {a!r}
argv = [loom if x == '@LOOM@' else x for x in A['argv']]
env = dict(os.environ)
env.update(A.get('env', {{}}))
for k in A.get('unset', []):
    env.pop(k, None)
def pre():
    signal.signal(signal.SIGPIPE, signal.SIG_IGN if A.get('ignore_pipe') else signal.SIG_DFL)
    signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
    if A.get('fsize') is not None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (A['fsize'], A['fsize']))
def run(e):
    stdin = open(A['stdin'], 'rb') if A.get('stdin') else subprocess.DEVNULL
    so = A.get('stdout')
    if so == 'closed':
        p = subprocess.Popen(argv, env=e, stdin=stdin, stderr=subprocess.PIPE, preexec_fn=lambda: (pre(), os.close(1)))
        _, err = p.communicate()
        return p.returncode, b'', err
    if so in ('sigpipe', 'epipe'):
        rd, wr = os.pipe()
        os.close(rd)
        p = subprocess.Popen(argv, env=e, stdin=stdin, stdout=wr, stderr=subprocess.PIPE, preexec_fn=pre)
        os.close(wr)
        _, err = p.communicate()
        return p.returncode, b'', err
    if so and so.startswith('/'):
        with open(so, 'wb') as f:
            p = subprocess.run(argv, env=e, stdin=stdin, stdout=f, stderr=subprocess.PIPE, preexec_fn=pre)
        return p.returncode, b'', p.stderr
    p = subprocess.run(argv, env=e, stdin=stdin, capture_output=True, preexec_fn=pre)
    return p.returncode, p.stdout, p.stderr
if A.get('mode') == 'compare':
    base = dict(os.environ)
    r0, o0, e0 = run(base)
    r1, o1, e1 = run(env)
    if (r0, o0, e0) == (r1, o1, e1):
        print('same' if r0 == 0 else 'same refusal')
    else:
        print('DIFFERENT: rc %d/%d; %r / %r' % (r0, r1, (o0 + e0)[:300], (o1 + e1)[:300]))
    sys.exit(0)
t0 = time.time()
rc, out, err = run(env)
took = time.time() - t0
sys.stdout.buffer.write(out)
sys.stdout.flush()
sys.stderr.buffer.write(err)
left = []
if A.get('watch'):
    left = glob.glob(os.path.join(A['watch'], '**', '*loom-tmp*'), recursive=True)
    left += [x for x in A.get('absent', []) if os.path.lexists(x)]
for k, v in A.get('keep', {{}}).items():
    if not os.path.exists(k) or open(k).read() != v:
        left.append(k + ' not kept whole')
if A.get('slow') and rc == 2 and took > A['slow']:
    left.append('refused after %.1f s of work (over %s s)' % (took, A['slow']))
if rc < 0 and not (rc == -signal.SIGPIPE and A.get('stdout') == 'sigpipe'):
    print('killed by signal %d' % -rc, file=sys.stderr)
    sys.exit(3)
if rc == -signal.SIGPIPE:
    print('sigpipe')
    sys.exit(0)
if left:
    print('LEFT BEHIND: %s' % left, file=sys.stderr)
    sys.exit(rc if rc else 1)
sys.exit(rc)
'''


def run_case(r, name, argv, expect="bad", want=(), files=None, empty_ok=True, **a):
    """A case through RUN: argv without the binary (prepended), the wrapper's options as keywords."""
    a["argv"] = ["@LOOM@"] + list(argv)
    shown = (", " if a.get("mode") == "compare" else " ").join(a["argv"][1:]).replace("\n", "\\n")[:200]
    r.c(f"{r.prefix}_{name}", ["@python", RUN.format(a=a, shown=shown)], expect, want=list(want), files=files, empty_ok=empty_ok)


def add_round19(c):
    from probe_cases_r19b import add_round19b
    r = Round(c, "r19")
    add_file_size_limit(r)
    add_dev_full(r)
    add_stdout(r)
    add_round19b(r)


def add_file_size_limit(r):
    """Every output written under a file-size limit (`ulimit -f`) too small for it: one line naming the output, exit
    2, and nothing left behind (no temporary file, no part of the output, the old file whole)."""
    d = "{T}/r19_fsize"
    files = {"r19_fsize/old.html": "old report\n", "r19_fsize/.keep": ""}
    for n, argv, out in (
            ("report", ["report", "--sample", "-o", d + "/r.html"], d + "/r.html"),
            ("report_old", ["report", "--sample", "-o", d + "/old.html"], d + "/old.html"),
            ("report_kernel", ["report", "--gpu", "h200", "--kernel", K, "-o", d + "/k.html"], d + "/k.html"),
            ("fit", FIT + ["--out", d + "/fit.json"], d + "/fit.json"),
            ("pershape", VAL + ["--per-shape", d + "/ps.csv"], d + "/ps.csv"),
            ("simulate_trace", S + ["--trace-out", d + "/t.json"], d + "/t.json"),
            ("e2e_trace", E + ["--trace-out", d + "/e.json"], d + "/e.json"),
            ("fit_collectives", ["trace", "fit-collectives", "-o", d + "/c.json"], d + "/c.json"),
            ("compact", COMPACT + ["-o", d + "/c.corpus.csv"], d + "/c.corpus.csv"),
            ("import_lct", LCT + ["-o", d + "/i.corpus.csv"], d + "/i.corpus.csv"),
            ("import_neusight", NEU + ["--out", d + "/neu"], None),
            ("calibrate", CAL + ["-o", d + "/cal.yaml"], d + "/cal.yaml"),
            ("moe_export", MOE + ["--export-moe-configs", d + "/moe"], None),
            ("tune_export", ["tune", "--gpu", "h200", "--family", "moe-triton-fp8", "--export", "--out",
                             d + "/x.h"], None)):  # --export's --out is a folder it creates (as --export-moe-configs)
        argv = [x.replace(d, d + "/" + n) for x in argv]
        out = out.replace(d, d + "/" + n) if out else None
        run_case(r, f"fsize_{n}", argv, "bad", [(out or d).replace("{T}/", "")], files=dict(files, **{f"r19_fsize/{n}/old.html": "old\n"}),
                 fsize=64, watch=d + "/" + n, absent=[out] if out and "old" not in n else [])
    run_case(r, "fsize_old_kept", ["report", "--sample", "-o", d + "/keep.html"], "bad", ["keep.html"],
             files={"r19_fsize/keep.html": "old\n"}, fsize=2, watch=d, keep={d + "/keep.html": "old\n"})
    for n, argv in (("report_stdout", ["report", "--sample", "-o", "-"]), ("gpus_stdout", ["gpus"]),
                    ("whatif_stdout", W + ["--format", "csv"]), ("predict_stdout", P + ["--format", "json"])):
        run_case(r, f"fsize_{n}", argv, "bad", ["stdout"], files=files, fsize=64, stdout=d + "/so.txt")


def add_dev_full(r):
    """/dev/full as each output flag of a command with seconds of work: refused before the work (RUN times it: a
    refusal after more than `slow` seconds is a defect), one line naming /dev/full."""
    for n, argv, slow in (
            ("fit_out", FIT + ["--out", "/dev/full"], 1.2),
            ("pershape", VAL + ["--per-shape", "/dev/full"], 1.2),
            ("moe_export_file", MOE + ["--export-moe-configs", "/dev/full"], None),
            ("import_out", NEU + ["--out", "/dev/full"], None),
            ("import_lct", LCT + ["-o", "/dev/full"], 1.2),
            ("compact", COMPACT + ["-o", "/dev/full"], 1.2),
            ("report", ["report", "--sample", "-o", "/dev/full"], None),
            ("calibrate", CAL + ["-o", "/dev/full"], None),
            ("simulate_trace", S + ["--trace-out", "/dev/full"], None),
            ("e2e_trace", E + ["--trace-out", "/dev/full"], None),
            ("fit_collectives", ["trace", "fit-collectives", "-o", "/dev/full"], None),
            ("tune_export", ["tune", "--gpu", "h200", "--family", "moe-triton-fp8", "--export", "--out",
                             "/dev/full"], None)):
        run_case(r, f"devfull_{n}", argv, "bad", ["/dev/full"], slow=slow)
    # /dev/full by another name: a link to it, /dev/fd of a descriptor open on it is out of reach of the runner.
    run_case(r, "devfull_link", FIT + ["--out", "{T}/r19_full_link"], "bad", ["r19_full_link"],
             files={"r19_full_link": "@LINK@/dev/full"}, slow=1.2)


def add_stdout(r):
    """stdout closed (`>&-`), a pipe whose reader has gone (SIGPIPE ignored: EPIPE; SIGPIPE default: the signal) and
    /dev/full: one line naming stdout and the real reason, exit 2; or death by SIGPIPE."""
    for n, argv in (("gpus", ["gpus"]), ("gpus_json", ["gpus", "--format", "json"]), ("predict", P),
                    ("predict_json", P + ["--format", "json"]), ("diagnose", ["diagnose", "--gpu", "h200", "--kernel",
                                                                               K]),
                    ("e2e", E), ("whatif_csv", W + ["--format", "csv"]), ("simulate_json", S + ["--format", "json"]),
                    ("report_stdout", ["report", "--sample", "-o", "-"]), ("help", ["--help"]),
                    ("version", ["--version"]), ("cmd_help", ["predict", "--help"]),
                    ("compact_stdout", COMPACT + ["-o", "-"]), ("tune_plan", ["tune", "--gpu", "h200", "--family",
                                                                              "gemm", "--plan"])):
        run_case(r, f"closed_{n}", argv, "bad", ["stdout"], stdout="closed")
        run_case(r, f"epipe_{n}", argv, "bad", ["stdout", "Broken pipe"], stdout="epipe", ignore_pipe=True)
    for n, argv in (("gpus", ["gpus"]), ("report", ["report", "--sample", "-o", "-"]), ("whatif", W)):
        run_case(r, f"sigpipe_{n}", argv, "good", ["sigpipe"], stdout="sigpipe")
        run_case(r, f"stdout_full_{n}", argv, "bad", ["stdout", "No space left"], stdout="/dev/full")
