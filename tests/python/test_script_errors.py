"""The helper scripts' error policy (scripts/lib/script_errors.py, round 17): a missing, cut or non-gzip input, a loom
binary that is not one, or a bad flag is one stderr line `loom: SCRIPT: ...` and exit 2, never a traceback. Runs
without loom: every case is refused before a binary would run."""
import gzip
import os
import subprocess
import sys
import tempfile
import unittest

SCRIPTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts")


def run(script, *argv):
    p = subprocess.run([sys.executable, os.path.join(SCRIPTS, script), *argv], capture_output=True, text=True,
                       stdin=subprocess.DEVNULL, timeout=60)
    return p.returncode, [x for x in p.stderr.split("\n") if x.strip()]


class ScriptErrors(unittest.TestCase):
    def refused(self, script, *argv, want="", named=True):
        rc, lines = run(script, *argv)
        self.assertEqual(rc, 2, lines)
        self.assertEqual(len(lines), 1, lines)
        self.assertTrue(lines[0].startswith(f"loom: {script}: " if named else "loom: "), lines)
        self.assertIn(want, lines[0])

    def test_inputs(self):
        with tempfile.TemporaryDirectory() as d:
            bad = os.path.join(d, "x.csv.gz")
            with open(bad, "wb") as f:
                f.write(b"not gzip\n")
            cut = os.path.join(d, "cut.csv.gz")
            with open(cut, "wb") as f:
                f.write(gzip.compress(b"shape,config,m\n" + b"x,y,1\n" * 400)[:30])
            self.refused("compact-cublaslt-sweep.py", bad, os.path.join(d, "o.gz"), want="x.csv.gz")
            self.refused("compact-cublaslt-sweep.py", cut, os.path.join(d, "o.gz"), want="cut")
            self.refused("compact-cublaslt-sweep.py", bad, d, want="is a folder")
            self.refused("compact-cublaslt-sweep.py", want="usage")
            self.refused("hf-decode-split.py", d, want="hf_eager.lct.gz")
            self.refused("hf-decode-split.py", "--stepz", d, want="--stepz")

    def test_binaries_and_flags(self):
        self.refused("tune-choices.py", "--loom", "/nonexistent/loom", want="--loom /nonexistent/loom")
        self.refused("tune-choices.py", "--loom", "/bin/true", "--random", "-1", want="--random")
        self.refused("tune-choices.py", "--loom", "/bin/true", "--jobs", "x", want="--jobs")
        self.refused("gemm-split-agreement.py", "--loom", "/nonexistent/loom", "x", want="not an executable")
        self.refused("gemm-heldout-breakdown.py", "--loom", "/nonexistent/loom", want="not an executable")
        self.refused("collective_sweep.py", "--loom", "/nonexistent/loom", want="not an executable")
        self.refused("calibrate-check.py", "/nonexistent/loom", want="not an executable")
        self.refused("predict_diff.py", "--before", "x", "--after", "y", "--rows", "x", want="--rows", named=False)


if __name__ == "__main__":
    unittest.main()
