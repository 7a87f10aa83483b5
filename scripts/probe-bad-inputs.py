#!/usr/bin/env python3
"""Bad-input probe (issue 17): runs several hundred bad or odd inputs through every loom subcommand and sorts each
outcome into a class. The standard: a bad input gets exit 2 and ONE stderr line starting 'loom: ' that names the
flag, file or field; never exit 3 / a signal (crash), never a hang, never exit 0 with nan/inf/empty output or
invalid JSON, never a bad value silently accepted.

  python3 scripts/probe-bad-inputs.py [--loom build/loom] [--timeout 20] [--only SUBSTR] [-v]

Classes: clean (refused as the standard asks), ok (an odd but valid input accepted with sane output), crash, hang,
silent (exit 0 but nan/inf/empty/invalid JSON/'error' in the output), accepted (a bad input accepted with exit 0),
messy (refused, but not one 'loom: ' line), wrongmsg (refused cleanly but the line lacks the expected name),
refused (a valid input, expect='good', refused), other (any other exit code). Exit status 1 when any case is in a
defect class. Cases live in probe_cases*.py; a case
whose argv starts with '@python' runs its second item under python3 with PYTHONPATH=build/python."""
import argparse, json, os, re, resource, subprocess, sys, tempfile, collections

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from probe_cases import build_cases  # noqa: E402

DEFECTS = ("crash", "hang", "silent", "accepted", "messy", "wrongmsg", "refused", "other")
CONTROL = re.compile(rb"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")  # no output or message carries raw control bytes
SUSPICIOUS = re.compile(rb"(?<![A-Za-z_])(-?nan|-?inf(inity)?)(?![A-Za-z_])|\berror:|internal error", re.I)


def limit_memory():  # 4 GiB of address space a case: a reader that slurps /dev/zero fails (exit 3), not the machine
    resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))


def classify(case, rc, out, err, timed_out):
    if timed_out:
        return "hang", "timeout"
    if rc < 0 or rc == 3:
        return "crash", f"rc={rc} {err[-200:]!r}"
    lines = [l for l in err.split(b"\n") if l.strip()]
    if rc == 2 and case.expect == "good":
        return "refused", lines[0][:300].decode("utf-8", "replace") if lines else "exit 2"
    if rc == 2:
        if len(lines) != 1 or not lines[0].startswith(b"loom: "):
            return "messy", f"{len(lines)} stderr lines: {err[:300]!r}"
        if CONTROL.search(lines[0]) or len(lines[0]) > 2000:  # an echoed escape rewrites the terminal; a 1 MB line
            return "messy", (f"refusal line of {len(lines[0])} bytes with control bytes or beyond 2000: "
                             f"{lines[0][:200]!r}")
        for want in case.want:
            if want.encode() not in lines[0]:
                return "wrongmsg", f"want {want!r}: {lines[0][:300]!r}"
        return "clean", lines[0][:200].decode("utf-8", "replace")
    if rc != 0:
        return "other", f"rc={rc} {err[:300]!r}"
    # exit 0
    if case.expect == "bad":
        return "accepted", (out[:200] + b" | " + err[:200]).decode("utf-8", "replace")
    text = out
    for want in case.want if case.expect == "good" else ():  # a valid input's answer must say it
        if want.encode() not in text:
            return "silent", f"want {want!r} in the output: {text[:200]!r}"
    if not text.strip() and not case.empty_ok:
        return "silent", "empty stdout"
    m = CONTROL.search(text)
    if m:
        return "silent", f"control byte {m.group(0)!r} in the output: {text[max(0, m.start() - 60):m.start() + 20]!r}"
    m = None if text.lstrip().startswith(b"<!DOCTYPE") else SUSPICIOUS.search(text)  # HTML: chart labels
    if m:
        i = m.start()
        return "silent", f"{m.group(0)!r} in output: {text[max(0, i - 80):i + 80]!r}"
    if "json" in case.fmt:
        try:
            json.loads(text.decode("utf-8"), parse_constant=lambda c: (_ for _ in ()).throw(ValueError(c)))
        except Exception as e:  # noqa: BLE001
            return "silent", f"--format json output is not valid JSON: {e}"
    if "csv" in case.fmt and text.count(b"\n") < 1:
        return "silent", "csv output without rows"
    return "ok", (out[:120] + b" | " + err[:120]).decode("utf-8", "replace")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--loom", default="build/loom")
    ap.add_argument("--timeout", type=float, default=20)
    ap.add_argument("--only", default="")
    ap.add_argument("-v", action="store_true", help="print every case, not only defects")
    a = ap.parse_args()
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    loom = os.path.abspath(a.loom)
    os.environ["LOOM_PROBE_BINARY"] = loom  # feature gates of cases written before their feature (probe_cases_r10b)
    with tempfile.TemporaryDirectory(prefix="loom-probe-") as tmp:
        cases = build_cases(tmp)
        tally = collections.Counter()
        for case in cases:
            if a.only and a.only not in case.name:
                continue
            for name, data in case.files.items():
                path = os.path.join(tmp.encode() if isinstance(name, bytes) else tmp,
                                    name)
                os.makedirs(os.path.dirname(path), exist_ok=True)
                data = data if isinstance(data, bytes) else data.encode()
                if (os.path.lexists(path) and (os.path.islink(path) or data.startswith(b"@LINK@"))
                        and not data.startswith(b"@HARD@")):
                    os.remove(path)
                if data == b"@FIFO@":  # a named pipe with no writer (a reader must not wait for one forever)
                    if os.path.lexists(path):
                        os.remove(path)
                    os.mkfifo(path)
                    continue
                if data.startswith(b"@HARD@"):  # a hard link to a file written before it (one inode, two names)
                    if os.path.lexists(path):
                        os.remove(path)
                    os.link(os.path.join(tmp, data[6:].decode()), path)
                    continue
                if data.startswith(b"@LINK@"):  # a symbolic link to the rest (loops: a -> b -> a)
                    os.symlink(data[6:].decode(), path)
                    continue
                with open(path, "wb") as f:
                    f.write(data.replace(b"@T@", tmp.encode()))
            argv = [loom] + case.argv
            env = dict(os.environ, LOOM_HOME=repo)
            if case.argv and case.argv[0] == "@python":  # the Python module: ValueError -> exit 2 + 'loom: ' line
                argv = [sys.executable, "-c", case.argv[1]]
                env["PYTHONPATH"] = os.path.join(os.path.dirname(loom), "python")
            timed_out = False
            try:
                p = subprocess.run(argv, cwd=repo, stdin=subprocess.DEVNULL, capture_output=True, timeout=a.timeout,
                                   env=env, preexec_fn=limit_memory)
                rc, out, err = p.returncode, p.stdout, p.stderr
            except subprocess.TimeoutExpired as e:
                rc, out, err, timed_out = -999, e.stdout or b"", e.stderr or b"", True
            cls, why = classify(case, rc, out, err, timed_out)
            tally[cls] += 1
            if cls in DEFECTS or a.v:
                shown = case.argv[1].split("r = ")[1].split("\n")[0] if argv[0] == sys.executable else " ".join(
                    x.decode("utf-8", "backslashreplace") if isinstance(x, bytes) else x
                    for x in case.argv).replace(tmp, "$T")
                print(f"{cls:8s} {case.name}: loom {shown}\n         {why.replace(tmp, '$T')}")
        total = sum(tally.values())
        print(f"\n{total} cases: " + ", ".join(f"{k} {tally[k]}" for k in
                                               ("clean", "ok") + DEFECTS))
        return 1 if any(tally[k] for k in DEFECTS) else 0


if __name__ == "__main__":
    sys.exit(main())
