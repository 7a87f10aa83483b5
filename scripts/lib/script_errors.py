"""One error policy for the helper scripts under scripts/ (issue 17), as loom's own: a bad input, flag or output is one
stderr line `loom: SCRIPT: what; what to do` and exit 2, never a traceback.

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))  # from scripts/
    from script_errors import Parser, fail, guarded, require_loom
    ...
    if __name__ == "__main__":
        sys.exit(guarded(main))
"""
import argparse
import contextlib
import csv
import os
import subprocess
import sys
import zlib

# What a reader of outside files raises on bad input: a missing or unreadable file (OSError, gzip's BadGzipFile
# included), a cut gzip (EOFError, zlib.error), text that is not UTF-8, a malformed CSV, JSON or number (ValueError),
# a missing column or key (KeyError), a short row (IndexError), no rows where some were needed (ZeroDivisionError,
# statistics.StatisticsError is a ValueError), a loom run that failed (CalledProcessError).
INPUT_ERRORS = (OSError, EOFError, zlib.error, UnicodeDecodeError, ValueError, csv.Error, KeyError, IndexError,
                ZeroDivisionError, subprocess.CalledProcessError)


def script_name():
    return os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else "script"


def fail(msg):
    """One `loom: SCRIPT: msg` line (control characters shown as '?') and exit 2."""
    line = "".join("?" if ord(ch) < 0x20 or ord(ch) == 0x7f else ch for ch in str(msg))
    print(f"loom: {script_name()}: {line}"[:1500], file=sys.stderr)
    sys.exit(2)


def describe(e):
    """A one-line reason for an input error."""
    if isinstance(e, OSError) and e.strerror:
        return f"{e.filename or 'stdout'}: {e.strerror}; give a readable input and a writable output"
    if isinstance(e, KeyError):
        return f"no column or key {e.args[0]!r} in the input; give a file in the format the script's --help names"
    if isinstance(e, IndexError):
        return f"a row or argument is shorter than expected ({e}); check the input's format"
    if isinstance(e, subprocess.CalledProcessError):
        err = (e.stderr or b"").decode("utf-8", "replace").strip().splitlines() if isinstance(e.stderr, bytes) else []
        return f"{' '.join(map(str, e.cmd[:3]))} ... failed (exit {e.returncode})" + (f": {err[-1]}" if err else "")
    if isinstance(e, (EOFError, zlib.error)):
        return f"a compressed input is cut or corrupt ({e or type(e).__name__}); give a complete file"
    if isinstance(e, ZeroDivisionError):
        return "no rows to summarise; give an input with data"
    return f"{e or type(e).__name__}; check the input"


def guarded(main):
    """Runs main(); an input error becomes one `loom:` line and exit 2. Returns main's exit status."""
    try:
        rc = main()
        sys.stdout.flush()
        return rc
    except BrokenPipeError:  # `| head`: the reader left; not an error of the input
        sys.stdout = open(os.devnull, "w")
        return 0
    except INPUT_ERRORS as e:
        try:
            sys.stdout = open(os.devnull, "w")  # the interpreter's final flush of a full stdout fails quietly
        except OSError:
            pass
        fail(describe(e))


@contextlib.contextmanager
def reading(path):
    """Names `path` in an error raised while reading it (gzip's BadGzipFile and a cut stream carry no file name)."""
    try:
        yield
    except (OSError, EOFError, zlib.error, UnicodeDecodeError, csv.Error) as e:
        if isinstance(e, OSError) and e.filename:
            raise
        fail(f"{path}: {describe(e)}")


def require_loom(path, flag="--loom"):
    """Refuses a loom binary that is not an executable file (before any work)."""
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        fail(f"{flag} {path}: not an executable loom binary; build it (bash scripts/build.sh) or give its path")
    return path


class Parser(argparse.ArgumentParser):
    """argparse with the refusal as one `loom:` line (argparse prints its usage and a second line)."""

    def error(self, message):
        fail(f"{message}; see --help")
