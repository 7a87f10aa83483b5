"""Tests of the Python module (run by ctest, label python): same numbers as the library, arrays out, ValueError in."""
import os
import unittest

import loom

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data")


class LoomModuleTest(unittest.TestCase):
    def test_gpus(self):
        names = loom.gpus()
        self.assertIn("h200", names)
        self.assertGreaterEqual(len(names), 10)

    def test_predict_and_batch_agree(self):
        one = loom.predict("h200", "gemm m=4096 n=4096 k=4096 dtype=bf16")
        self.assertEqual(one["model"], "learned")
        self.assertGreater(one["latency_us"], one["ceiling_us"] * 0.5)
        rows = [{"family": "gemm", "m": 4096, "n": 4096, "k": 4096, "dtype": "bf16"},
                {"family": "rms_norm", "rows": 4096, "cols": 8192, "dtype": "bf16"}]
        out = loom.predict_batch("h200", rows)
        self.assertEqual(len(out["latency_us"]), 2)
        self.assertEqual(out["latency_us"][0], one["latency_us"])  # the same path, bit for bit
        self.assertTrue(all(out["learned"]))

    def test_numpy_structured_array(self):  # NumPy is required (install-deps.sh): a skip here could not fail
        import numpy as np
        arr = np.array([("rms_norm", 4096, 8192, "bf16"), ("softmax", 1024, 32000, "fp32")],
                       dtype=[("family", "U16"), ("rows", "i8"), ("cols", "i8"), ("dtype", "U8")])
        out = loom.predict_batch("h200", arr)
        ref = loom.predict("h200", "softmax rows=1024 cols=32000 dtype=fp32")
        self.assertEqual(out["latency_us"][1], ref["latency_us"])

    def test_errors_are_value_errors(self):
        with self.assertRaisesRegex(ValueError, "unknown GPU 'nope'"):
            loom.predict("nope", "gemm m=1 n=1 k=1 dtype=bf16")
        with self.assertRaises(ValueError):
            loom.predict("h200", "gemm m=-1 n=1 k=1 dtype=bf16")
        with self.assertRaisesRegex(ValueError, "family"):
            loom.predict_batch("h200", [{"m": 1}])
        with self.assertRaisesRegex(ValueError, "more than the .* GB of DRAM"):  # operands beyond the GPU's memory
            loom.predict("h200", "gemm m=1000000 n=1000000 k=1000 dtype=bf16")
        with self.assertRaisesRegex(ValueError, "more than the .* GB of DRAM"):
            loom.predict_batch("h200", [{"family": "gemm", "m": 1000000, "n": 1000000, "k": 1000, "dtype": "bf16"}])

    def test_bad_inputs_are_one_line_value_errors(self):  # issue 17: the CLI's checks and one-line messages
        with self.assertRaisesRegex(ValueError, "context: must be >= 0"):  # was silently replaced by seq
            loom.e2e("h200", "llama-3-8b", "decode", batch=1, context=-5)
        with self.assertRaisesRegex(ValueError, "above loom's limit"):  # was MemoryError (std::bad_alloc)
            loom.e2e("h200", "llama-3-8b", "decode", batch=10**12, context=5)
        with self.assertRaises(ValueError) as cm:  # control bytes from the input do not break the line
            loom.predict("h2\x1b00\n0", "gemm m=64 n=64 k=64 dtype=bf16")
        self.assertNotIn("\n", str(cm.exception))
        self.assertIn("'h2?00?0'", str(cm.exception))

    def test_review_bad_inputs(self):  # issue 17, second probe: each was another exception or silently taken
        row = {"family": "gemm", "m": 64, "n": 64, "k": 64, "dtype": "bf16"}
        for threads in (0, -3, 10**6):  # ran on one thread / as given
            with self.assertRaisesRegex(ValueError, "threads: .* from 1 to 256"):
                loom.predict_batch("h200", [row], threads=threads)
        with self.assertRaisesRegex(ValueError, r"rows\[0\]: m=1000000000000000000000000000000"):  # RuntimeError
            loom.predict_batch("h200", [dict(row, m=10**30)])
        for rows in (5, None):  # TypeError from the iteration
            with self.assertRaisesRegex(ValueError, "rows: must be a list of dicts"):
                loom.predict_batch("h200", rows)
        with self.assertRaisesRegex(ValueError, "^kernel_model: "):  # named --model, which is e2e's LLM argument
            loom.e2e("h200", "llama-3-8b", "decode", kernel_model="foo")
        with self.assertRaisesRegex(ValueError, "^gpu: .* catalogue key"):  # a path built from a YAML file name
            loom.tune(os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../gpus/h200.yaml"),
                      "gemm m=4096 n=4096 k=4096 dtype=bf16")
        # Arguments of the wrong type: pybind11's TypeError becomes one ValueError line naming the expected signature.
        for call in (lambda: loom.e2e("h200", "llama-3-8b", "decode", batch=1.5),
                     lambda: loom.e2e("h200", "llama-3-8b", "decode", context=10**30),
                     lambda: loom.predict(None, "gemm m=1 n=1 k=1 dtype=bf16"),
                     lambda: loom.diagnose("h200", 42)):
            with self.assertRaisesRegex(ValueError,
                                        r"^\w+\(\): incompatible function arguments; expected \(gpu: str") as cm:
                call()
            self.assertNotIn("\n", str(cm.exception))

    def test_round3_bad_inputs(self):  # issue 17, third probe: each was silently taken or named the wrong thing
        row = dict(family="gemm", m=64, n=64, k=64, dtype="bf16")
        for call, name in ((lambda: loom.e2e("h200", "llama-3-8b", "decode", batch=True, context=64), "batch"),
                           (lambda: loom.e2e("h200", "llama-3-8b", "decode", True), "batch"),
                           (lambda: loom.predict_batch("h200", [row], threads=True), "threads"),
                           (lambda: loom.e2e("h200", "llama-3-8b", "decode", seq=5, context=64), "seq"),
                           (lambda: loom.e2e("h200", "llama-3-8b", "decode", context=2**40), "context"),
                           (lambda: loom.e2e("h200", "llama-3-8b", "prefill", batch=100000, seq=100000), "batch x seq"),
                           (lambda: loom.tune("h200", "gemm m=3000 n=6144 k=4096 dtype=bf16 batch=8"), "batch=8"),
                           (lambda: loom.tune("h200", "gemm m=1000000000 n=1000000000 k=1000000000 dtype=bf16"),
                            "DRAM")):
            with self.assertRaises(ValueError) as cm:
                call()
            self.assertIn(name, str(cm.exception))
            self.assertNotIn("\n", str(cm.exception))

    def test_round4_keyword_names(self):  # issue 17, fourth probe: messages named the CLI's --tp, --gpu, --model
        for call, name in ((lambda: loom.e2e("h200", "llama-3-8b", "decode", tp=3, context=64), "tp: "),
                           (lambda: loom.e2e("h200", "llama-3-8b", "decode", batch=0, context=64), "batch: "),
                           (lambda: loom.e2e("h200", "nosuch", "decode", context=64), "model: "),
                           (lambda: loom.e2e("h200", "llama-3-8b", "decode", profile="nosuch", context=64),
                            "profile: "),
                           (lambda: loom.e2e("h999", "llama-3-8b", "decode", context=64), "gpu: "),
                           (lambda: loom.predict("h200", "gemm m=64 n=64 k=64 dtype=bf16", model=""), "model: "),
                           (lambda: loom.tune("h999", "gemm m=3000 n=6144 k=4096 dtype=bf16"), "gpu: ")):
            with self.assertRaises(ValueError) as cm:
                call()
            self.assertTrue(str(cm.exception).startswith(name), str(cm.exception))
            self.assertNotIn("--", str(cm.exception).split(";")[0])
        # A GPU YAML file whose name holds a comma is one GPU (an existing file wins over the comma list).
        p = loom.predict(os.path.join(DATA, "gpus_comma", "h200,lab.yaml"), "gemm m=64 n=64 k=64 dtype=bf16")
        self.assertGreater(p["latency_us"], 0)

    def test_diagnose_e2e_tune(self):
        d = loom.diagnose("h200", "gemm m=8 n=14336 k=4096 dtype=bf16")
        self.assertTrue(any(p["pipe"] == d["bottleneck"] for p in d["pipelines"]))
        s = loom.e2e("h200", "llama-3-8b", "decode", batch=16, context=2048, mode="graph")
        self.assertGreater(s["wall_time_us"], s["gpu_time_us"] * 0.5)
        t = loom.tune("h200", "gemm m=3000 n=6144 k=4096 dtype=bf16")
        self.assertIn("x", t["config"])
        # impl=triton decides from the Triton tables (configs carry GROUP_SIZE_M: _g<N>), as `loom tune --kernel`
        # does; it was decided from loom-bench's tables of the family.
        t = loom.tune("h200", "moe tokens=256 experts=64 topk=8 hidden=2048 inter=1408 dtype=bf16 impl=triton")
        self.assertRegex(t["config"], r"_g[0-9]+$")
        untuned = loom.tune("h200", "moe tokens=256 experts=64 topk=8 hidden=2048 inter=1408 dtype=bf16")
        self.assertNotRegex(untuned["config"], r"_g[0-9]+$")

    # issue 17, eighth probe: answered kernels no GPU holds, impl= of another family, no warnings
    def test_round8(self):
        for call, name in ((lambda: loom.diagnose("h200", "gemm m=1000000 n=1000000 k=1000000 dtype=bf16"), "spec: "),
                           (lambda: loom.predict("h200", "softmax rows=64 cols=64 dtype=bf16 impl=cutlass"), "impl"),
                           (lambda: loom.predict_batch("h200", [dict(family="all_reduce", bytes=1 << 20, gpus=8,
                                                                     impl="torch")]), "rows[0]")):
            with self.assertRaises(ValueError) as cm:
                call()
            self.assertIn(name, str(cm.exception))
        # The CLI's warnings: a context beyond max_position_embeddings, attention past a sliding window, a step that
        # does not fit in GPU memory; none for a plain step.
        self.assertIn("max_position_embeddings",
                      " ".join(loom.e2e("h200", "llama-3-8b", "decode", context=100000)["warnings"]))
        self.assertIn("sliding_window", " ".join(loom.e2e("h200", "mistral-7b", "decode", context=30000)["warnings"]))
        big = loom.e2e("h100-sxm", "llama-3-70b", "decode", context=100)
        self.assertFalse(big["memory"]["fits"])
        self.assertIn("DOES NOT FIT", " ".join(big["warnings"]))
        ok = loom.e2e("h200", "llama-3-8b", "decode", context=64)
        self.assertEqual(ok["warnings"], [])
        self.assertTrue(ok["memory"]["fits"])

    def test_comma_decimal_locale(self):
        # Probe round 19: a host's setlocale(LC_ALL, "de_DE.UTF-8") wrote "17,1 GB" in notes (and made a JSON-loaded
        # forest's base_score 8); every call runs in the C locale now.
        import locale
        before = loom.e2e("h200", "llama-3-8b", "decode", batch=8, context=1024)
        try:
            locale.setlocale(locale.LC_ALL, "de_DE.UTF-8")
        except locale.Error:
            self.skipTest("no de_DE.UTF-8 locale")
        try:
            after = loom.e2e("h200", "llama-3-8b", "decode", batch=8, context=1024)
        finally:
            locale.setlocale(locale.LC_ALL, "C")
        self.assertEqual(before, after)
        self.assertIn(".", after["memory"]["note"])

    def test_row_not_a_dict_is_named(self):
        import types
        row = {"family": "gemm", "m": 64, "n": 64, "k": 64, "dtype": "bf16"}
        with self.assertRaises(ValueError) as cm:
            loom.predict_batch("h200", [row, types.MappingProxyType(row)])
        self.assertIn("rows[1]", str(cm.exception))


if __name__ == "__main__":
    unittest.main()
