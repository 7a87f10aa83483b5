"""loom.predict_batch on NumPy structured arrays and pandas DataFrames (issue 17, probe round 18): the same numbers as
the equivalent list of dicts, or one ValueError naming the row and column. NumPy and pandas are required
(scripts/install-deps.sh installs both; ctest runs this with the interpreter the module was built for)."""
import unittest
import warnings

import numpy as np
import pandas as pd

import loom

ROW = {"family": "gemm", "m": 64, "n": 64, "k": 64, "dtype": "bf16"}
GEMM = [("family", "U16"), ("m", "i8"), ("n", "i8"), ("k", "i8"), ("dtype", "U8")]


def flat(out):
    return {k: [repr(v) for v in list(out[k])] for k in sorted(out)}


class ArraysTest(unittest.TestCase):
    def same(self, rows, dicts):
        self.assertEqual(flat(loom.predict_batch("h200", rows)), flat(loom.predict_batch("h200", dicts)))

    def refused(self, rows, *names):
        with self.assertRaises(ValueError) as cm:
            loom.predict_batch("h200", rows)
        msg = str(cm.exception)
        self.assertNotIn("\n", msg)
        for n in names:
            self.assertIn(n, msg)
        return msg

    def test_numpy_scalars_are_their_python_values(self):  # np.float32(64.0) was "64.0", refused
        self.same([dict(ROW, m=np.float32(64.0), n=np.float16(64.0), k=np.int64(64))], [ROW])
        self.same([dict(ROW, m=np.array(64))], [ROW])
        obj = np.array([("gemm", np.float32(64.0), 64, 64, "bf16")], dtype=[("family", "U8"), ("m", "O")] + GEMM[2:])
        self.same(obj, [ROW])
        self.refused([dict(ROW, m=np.float32("nan"))], "rows[0]", "m=")  # absent, as NaN: "gemm needs m="
        self.refused([dict(ROW, m=np.bool_(True))], "rows[0]", "m=True is a bool")

    def test_text_that_is_not_utf8_names_row_and_column(self):  # an empty ValueError / a RuntimeError before
        arr = np.array([("gemm", 64, 64, 64, b"\xff\xfe")], dtype=GEMM[:4] + [("dtype", "S8")])
        self.assertIn("rows[0]: dtype holds bytes that are not UTF-8", self.refused(arr))
        self.assertIn("rows[0]: dtype holds text that is not UTF-8", self.refused([dict(ROW, dtype="\udcff")]))
        self.assertIn("rows[1]: dtype", self.refused(pd.DataFrame([ROW, dict(ROW, dtype=b"\xff")])))
        with self.assertRaisesRegex(ValueError, r"^gpu: unknown GPU 'h2\ufffd00'"):  # bytes as the GPU name
            loom.predict(b"h2\xff00", "gemm m=1 n=1 k=1 dtype=bf16")

    def test_pandas_missing_values_are_absent(self):  # pd.NA in a gpu column was the GPU '<NA>'
        df = pd.DataFrame([ROW, ROW]).assign(gpu=pd.array(["h100-sxm", None], dtype="string"))
        self.same(df, [dict(ROW, gpu="h100-sxm"), ROW])
        self.same(pd.DataFrame([ROW, ROW]).assign(gpu=["h100-sxm", float("nan")]), [dict(ROW, gpu="h100-sxm"), ROW])
        self.refused(pd.DataFrame([ROW, ROW]).assign(m=pd.array([64, None], dtype="Int64")), "rows[1]: gemm needs m=")
        self.refused(pd.DataFrame([ROW]).assign(m=[pd.NaT]), "rows[0]: gemm needs m=")

    def test_frame_columns_checked(self):  # a second `m` column was dropped with a warning only
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            self.refused(pd.concat([pd.DataFrame([ROW]), pd.DataFrame({"m": [4096]})], axis=1),
                         "column 'm' appears twice")
        self.refused(pd.DataFrame([list(ROW.values())]), "column 0 (int) is not a name")
        self.refused(pd.DataFrame([list(ROW.values())], columns=pd.MultiIndex.from_tuples([(k, "x") for k in ROW])),
                     "MultiIndex")

    def test_frame_rows_named_by_position_and_label(self):
        df = pd.DataFrame([ROW, ROW, dict(ROW, m=0)]).set_axis(["a", "b", "c"])
        self.refused(df, "rows[2] (index 'c'): m=0")
        self.refused(pd.DataFrame([ROW, dict(ROW, m=0)]), "rows[1]: m=0")  # 0..N-1: no label
        self.same(pd.DataFrame([ROW, ROW]).set_axis([7, 7]), [ROW, ROW])

    def test_frame_column_kinds(self):
        df = pd.DataFrame([ROW, dict(ROW, m=128)])
        dicts = [ROW, dict(ROW, m=128)]
        self.same(df.astype({"family": "category", "m": "category"}), dicts)
        self.same(df.astype({"m": "float32"}), dicts)
        self.same(df.astype({"m": pd.SparseDtype("int64", 0)}), dicts)
        self.same(pd.DataFrame(columns=list(ROW)), [])
        self.same(pd.DataFrame(), [])
        self.refused(df.assign(m=[True, False]), "rows[0]: m=True is a bool")
        self.refused(df.assign(m=[64.0, float("inf")]), "rows[1]: m=inf")

    def test_arrays_without_records(self):
        for rows in (np.arange(3), np.zeros((2, 5)), np.array(3.0), np.array(tuple(ROW.values()), dtype=GEMM),
                     pd.Series([1, 2])):
            self.refused(rows, "rows: ")
        self.same(np.array([ROW, ROW], dtype=object), [ROW, ROW])
        self.same(np.zeros(0, dtype=GEMM), [])
        masked = np.ma.array(np.array([tuple(ROW.values())], dtype=GEMM), mask=[(False, True, False, False, False)])
        self.refused(masked, "rows[0]: gemm needs m=")


if __name__ == "__main__":
    unittest.main()
