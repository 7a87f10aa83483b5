"""What the probe's rounds share (scripts/probe-bad-inputs.py; round 17 on, earlier rounds keep their own copies):
scratch files and folders named per case, gzip that survives the runner's `@T@` substitution, a corpus split into
its metadata and rows, and the three `@python` programs a case can run (the Python module, the C API through
ctypes, a helper script), each turning a refusal into exit 2 and one `loom: ` line so the runner classes it."""
import gzip
import os

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The Python module: a ValueError is the refusal (exit 2, its line); any other exception is a traceback (exit 1).
PY = ("import sys, loom\ntry:\n    r = {expr}\nexcept ValueError as e:\n    print('loom: ' + str(e), file=sys.stderr)\n"
      "    sys.exit(2)\nprint(repr(r))\n")

# The C API through ctypes: {body} calls lib.loom_* and ends in done(h, rc, shown...) (status 2: the handle's message
# as the refusal line; another non-zero status: exit 1).
CAPI = """import ctypes as C, os, sys
lib = C.CDLL(os.path.join(os.environ['PYTHONPATH'], '..', 'libloom_c.so'))
class P(C.Structure):
    _fields_ = [('latency_us', C.c_double), ('ceiling_us', C.c_double), ('analytical_us', C.c_double),
                ('learned', C.c_int), ('bottleneck', C.c_char * 32), ('config', C.c_char * 64)]
lib.loom_open.restype = C.c_void_p
lib.loom_open.argtypes = [C.c_char_p, C.c_char_p, C.c_char_p, C.c_size_t]
lib.loom_last_error.restype = C.c_char_p
lib.loom_last_error.argtypes = [C.c_void_p]
lib.loom_predict.argtypes = [C.c_void_p, C.c_char_p, C.c_char_p, C.c_void_p]
lib.loom_tune.argtypes = [C.c_void_p, C.c_char_p, C.c_char_p, C.c_char_p, C.c_size_t, C.c_void_p]
lib.loom_close.argtypes = [C.c_void_p]
lib.loom_version.restype = C.c_char_p
err = C.create_string_buffer(512)
def opened(d=None, m=b'analytical'):
    h = lib.loom_open(d, m, err, 512)
    if not h:
        print('loom: ' + err.value.decode('utf-8', 'replace'), file=sys.stderr)
        sys.exit(2)
    return h
def done(h, rc, *shown):
    if rc == 2:
        print('loom: ' + lib.loom_last_error(h).decode('utf-8', 'replace'), file=sys.stderr)
        sys.exit(2)
    if rc != 0:
        print('status %d: %s' % (rc, lib.loom_last_error(h)), file=sys.stderr)
        sys.exit(1)
    print(*shown)
p = P()
cfg = C.create_string_buffer(64)
us = C.c_double(-1)
r = None
"""

# A helper script under scripts/, its exit status and stderr passed through as they are (a traceback is exit 1 and
# many lines: a defect). `loom` in argv is replaced by the binary under test.
SCRIPT = ("import os, subprocess, sys\nloom = os.path.join(os.environ['PYTHONPATH'], '..', 'loom')\n"
          "argv = [loom if x == '@LOOM@' else x for x in {argv!r}]\n"
          "r = subprocess.run([sys.executable, {script!r}] + argv, stdin=subprocess.DEVNULL)\nsys.exit(r.returncode)\n")


def gz(data):
    """gzip without the bytes '@T@' (the runner writes every file with @T@ replaced by its scratch folder: a
    compressed stream holding them comes out corrupt) and with a fixed time stamp."""
    data = data if isinstance(data, bytes) else data.encode()
    for level in range(9, 0, -1):
        out = gzip.compress(data, compresslevel=level, mtime=0)
        if b"@T@" not in out:
            return out
    raise ValueError("no gzip level avoids @T@")


def corpus_parts(path):
    """(metadata and header lines, row lines) of a committed corpus (plain or gzip), or (None, None) if absent."""
    full = os.path.join(REPO, path)
    if not os.path.exists(full):
        return None, None
    opener = gzip.open if path.endswith(".gz") else open
    with opener(full, "rt") as f:
        lines = f.read().split("\n")
    head = [x for x in lines if x.startswith("#") or x.startswith("case_id,")]
    return head, [x for x in lines if x and not x.startswith("#") and not x.startswith("case_id,")]


def text(head, rows):
    return "\n".join(list(head) + list(rows)) + "\n"


class Round:
    """A round's case maker over the runner's c(): names prefixed `PREFIX_`, scratch paths `{T}/PREFIX_...`."""

    def __init__(self, c, prefix):
        self.c, self.prefix = c, prefix

    def path(self, name):
        """The scratch path of a case's file or folder (for argv; files= takes the same name without {T}/)."""
        return "{T}/" + self.prefix + "_" + name

    def file(self, name):
        return self.prefix + "_" + name

    def cli(self, name, argv, expect="bad", want=(), files=None, empty_ok=False):
        """A loom command; files maps names (relative to the scratch folder, see file()) to text or bytes."""
        self.c(f"{self.prefix}_{name}", list(argv), expect, want=list(want), files=files, empty_ok=empty_ok)

    def py(self, name, expr, expect="bad", want=()):
        """A Python-module expression (import loom done; ValueError is the refusal)."""
        self.c(f"{self.prefix}_py_{name}", ["@python", PY.format(expr=expr)], expect, want=list(want))

    def capi(self, name, body, expect="bad", want=()):
        """C API calls through ctypes (see CAPI: opened(), done(), p, cfg, us)."""
        self.c(f"{self.prefix}_capi_{name}", ["@python", CAPI + body + "\n"], expect, want=list(want))

    def script(self, name, script, argv, expect="bad", want=(), files=None, empty_ok=False):
        """scripts/SCRIPT with argv ('{T}' for the scratch folder, '@LOOM@' for the binary under test)."""
        self.c(f"{self.prefix}_script_{name}", ["@python", SCRIPT.format(script=os.path.join(REPO, "scripts", script),
                                                                         argv=list(argv))],
               expect, want=list(want), files=files, empty_ok=empty_ok)


# The Python module with NumPy and pandas (round 18 on): {body} runs under an interpreter that has both. The one the
# runner uses may not (pyenv's python3 beside Debian's python3-numpy/-pandas): the program re-runs itself under
# /usr/bin/python3 then; without either, it says so and exits 1 (a defect of the probe's machine, not a pass).
# agree(rows, dicts) predicts both: 'same' when the numbers agree, the rows' ValueError when they are refused, and
# 'DIFFERENT'/'ACCEPTED' (no 'same': a defect for a good case, exit 0 for a bad one) otherwise.
NP_BODY = """import sys, loom
import numpy as np, pandas as pd
ROW = {'family': 'gemm', 'm': 64, 'n': 64, 'k': 64, 'dtype': 'bf16'}
GEMM = [('family', 'U16'), ('m', 'i8'), ('n', 'i8'), ('k', 'i8'), ('dtype', 'U8')]
def flat(x):
    return {k: [repr(v) for v in list(x[k])] for k in sorted(x)}
def agree(rows, dicts, gpu='h200'):
    a = loom.predict_batch(gpu, rows)
    try:
        b = loom.predict_batch(gpu, dicts)
    except ValueError as e:
        return 'ACCEPTED while the list of dicts is refused: ' + str(e)
    return 'same' if flat(a) == flat(b) else 'DIFFERENT: %r / %r' % (flat(a), flat(b))
try:
    r = {expr}
except ValueError as e:
    print('loom: ' + str(e), file=sys.stderr)
    sys.exit(2)
print(repr(r))
"""
NP = """import os, sys
BODY = {body!r}
try:
    import numpy, pandas
except ImportError:
    if sys.executable != '/usr/bin/python3' and os.path.exists('/usr/bin/python3'):
        os.execv('/usr/bin/python3', ['/usr/bin/python3', '-c', 'exec(' + repr(BODY) + ')'])
    print('numpy or pandas not installed for ' + sys.executable + ' (nor /usr/bin/python3)', file=sys.stderr)
    sys.exit(1)
exec(BODY)
"""


def np_case(r, name, expr, expect="bad", want=()):
    """A NumPy/pandas case of round r (see NP): named `PREFIX_np_NAME`."""
    r.c(f"{r.prefix}_np_{name}", ["@python", NP.format(body=NP_BODY.replace("{expr}", expr))], expect,
        want=list(want))
