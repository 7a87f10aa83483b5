"""scripts/torch/tune/moe_sweep.py checks --tokens before it touches the GPU: a bad batch list is one `loom:` line and
exit 2, not a traceback after minutes of Triton compiles (round 16 left it unprobed: the script needs torch, which
this machine lacks; torch and the kernel modules are stubbed here, parse_tokens needs neither)."""

import contextlib
import io
import os
import sys
import types
import unittest

TUNE = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "scripts", "torch", "tune"))


def load():
    stubs = {m: types.ModuleType(m) for m in ("torch", "loom_torch", "fused_moe_triton") if m not in sys.modules}
    sys.modules.update(stubs)
    sys.path.insert(0, TUNE)
    try:
        import moe_sweep
        return moe_sweep
    finally:
        sys.path.remove(TUNE)
        for m in stubs:
            del sys.modules[m]


class TokensTest(unittest.TestCase):
    ms = load()

    def refused(self, text):
        err = io.StringIO()
        with contextlib.redirect_stderr(err), self.assertRaises(SystemExit) as cm:
            self.ms.parse_tokens(text)
        self.assertEqual(cm.exception.code, 2, text)
        line = err.getvalue()
        self.assertEqual(line.count("\n"), 1, line)
        self.assertTrue(line.startswith("loom: moe_sweep.py: --tokens: "), line)

    def test_good(self):
        self.assertEqual(self.ms.parse_tokens("3,6,12"), [3, 6, 12])
        self.assertEqual(self.ms.parse_tokens(" 1, 65536"), [1, 65536])

    def test_bad(self):
        for text in ("x", "3,,6", "0", "-1", "1.5", "3,3", "65537", "99999999", "\u00b2", "0x10", "1e3", ","):
            self.refused(text)


if __name__ == "__main__":
    unittest.main()
