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


    def write(self, d, name, data):
        path = os.path.join(d, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data if isinstance(data, bytes) else data.encode())
        return path

    def test_traces_round18(self):  # a corrupt gzip was a traceback; bad records were taken or named no file
        head, rng = "#loom-cupti 1\n", "R\t100\t900\t0\tloom.case=0\nR\t200\t800\t0\tloom.rep\n"
        good = head + rng + "K\t300\t400\t0\tgemm\n#end records=3 dropped=0\n"
        with tempfile.TemporaryDirectory() as d:
            corrupt = bytearray(gzip.compress((good * 40).encode(), mtime=0))
            corrupt[30:40] = b"\x00" * 10
            out = os.path.join(d, "o.lct.gz")
            self.refused("trim-lct.py", self.write(d, "c.lct.gz", bytes(corrupt)), out, want="c.lct.gz", named=False)
            back = self.write(d, "b.lct", head + "R\t900\t100\t0\tloom.case=0\n#end records=1\n")
            self.refused("trim-lct.py", back, out, want="after its end", named=False)
            self.refused("trim-lct.py", self.write(d, "e.lct", head + rng + "#end records=x\n"), out,
                         want="e.lct:4", named=False)
            g = self.write(d, "g.lct", good)
            self.refused("trim-lct.py", g, g, want="is also the input", named=False)
            self.assertEqual(open(g).read(), good)
            hf = "#loom-cupti 1\nR\t0\t10000\t0\tloom.case=0\nR\t100\t9000\t0\tloom.phase=decode\n"
            cases = "case_id,x,spec\n0,0,e2e_decode batch=1 context=128\n"
            for n, body, want in (("one", hf + "K\t200\t300\t0\tgemm\nK\t400\t500\t0\tflash\n", "1 attention"),
                                  ("short", hf + "K\t200\n", "hf_eager.lct.gz:4"),
                                  ("case", hf.replace("case=0", "case=7"), "names no case")):
                self.write(d, f"{n}/hf_eager.lct.gz", gzip.compress(body.encode()))
                self.write(d, f"{n}/hf_eager.cases.csv", cases)
                self.refused("hf-decode-split.py", os.path.join(d, n), want=want)
            self.write(d, "cs/hf_eager.lct.gz", gzip.compress(hf.encode()))
            self.write(d, "cs/hf_eager.cases.csv", "case_id,x,spec\n0\n")
            self.refused("hf-decode-split.py", os.path.join(d, "cs"), want="hf_eager.cases.csv: row 2")

if __name__ == "__main__":
    unittest.main()
