"""The fused-MoE config files loom exports (models/tune/engine/<gpu>/) read exactly as vLLM and SGLang read theirs:
the file name the engines build from (E, N, device name, dtype), json.load, every key an int batch size, the entry
nearest to the run's M, its values passed as the Triton kernel's keyword arguments. Plus what makes such a file
usable: every config is a measured config of the sweep's grid, its knobs are legal, and E/N match the model's MoE
layers at the TP degree. Written from the engines' documented behaviour, not their code."""

import glob
import json
import os
import re
import sys
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
KNOBS = {"BLOCK_SIZE_M", "BLOCK_SIZE_N", "BLOCK_SIZE_K", "GROUP_SIZE_M", "num_warps", "num_stages"}
NAME = re.compile(r"^E=(\d+),N=(\d+),device_name=([A-Za-z0-9_\-]+)(,dtype=fp8_w8a8)?\.json$")
DEVICE = {"h200": "NVIDIA_H200", "h100-sxm": "NVIDIA_H100_80GB_HBM3"}


def engine_file_name(e, n, device_name, dtype):
    """The engines' get_config_file_name: spaces in the CUDA device name become underscores."""
    sel = "" if dtype is None else ",dtype=%s" % dtype
    return "E=%d,N=%d,device_name=%s%s.json" % (e, n, device_name.replace(" ", "_"), sel)


def engine_load(path):
    """The engines' get_moe_configs: {int(key): config}."""
    with open(path) as f:
        return {int(key): val for key, val in json.load(f).items()}


def engine_pick(configs, m):
    return configs[min(configs.keys(), key=lambda x: abs(x - m))]


class EngineFiles(unittest.TestCase):
    def files(self):
        out = sorted(glob.glob(os.path.join(ROOT, "models", "tune", "engine", "*", "E=*.json")))
        self.assertTrue(out, "no exported engine files under models/tune/engine/")
        return out

    def test_names_parse_as_the_engines_build_them(self):
        for path in self.files():
            gpu = os.path.basename(os.path.dirname(path))
            m = NAME.match(os.path.basename(path))
            self.assertIsNotNone(m, path)
            e, n, dev, fp8 = int(m.group(1)), int(m.group(2)), m.group(3), m.group(4)
            self.assertEqual(dev, DEVICE[gpu], path)
            want = engine_file_name(e, n, dev.replace("_", " "), "fp8_w8a8" if fp8 else None)
            self.assertEqual(os.path.basename(path), want)

    def test_loads_and_picks_like_the_engines(self):
        for path in self.files():
            configs = engine_load(path)
            self.assertGreaterEqual(len(configs), 10, path)
            for m in (1, 3, 100, 700, 5000, 65536):
                cfg = engine_pick(configs, m)
                self.assertEqual(set(cfg), KNOBS, path)
                self.assertTrue(all(isinstance(v, int) and not isinstance(v, bool) for v in cfg.values()), path)

    def test_configs_are_measured_and_legal(self):
        for path in self.files():
            gpu = os.path.basename(os.path.dirname(path))
            fp8 = "fp8_w8a8" in path
            with open(os.path.join(ROOT, "models", "tune", "%s-moe-triton%s.json" % (gpu, "-fp8" if fp8 else ""))) as f:
                grid = {c["name"] for c in json.load(f)["configs"]}
            for m, c in engine_load(path).items():
                name = "%dx%dx%d_s%d_w%d_g%d" % (c["BLOCK_SIZE_M"], c["BLOCK_SIZE_N"], c["BLOCK_SIZE_K"],
                                                 c["num_stages"], c["num_warps"], c["GROUP_SIZE_M"])
                self.assertIn(name, grid, "%s M=%d" % (path, m))
                for k in ("BLOCK_SIZE_M", "BLOCK_SIZE_N", "BLOCK_SIZE_K"):
                    self.assertEqual(c[k] & (c[k] - 1), 0, "%s M=%d %s not a power of two" % (path, m, k))
                self.assertIn(c["num_warps"], (4, 8))

    def test_shapes_match_the_models(self):
        prov = glob.glob(os.path.join(ROOT, "models", "tune", "engine", "*", "loom-moe-configs*.json"))
        self.assertTrue(prov)
        for p in prov:
            with open(p) as f:
                d = json.load(f)
            with open(os.path.join(ROOT, "models", "presets", d["model"] + ".json")) as f:
                cfg = json.load(f)
            experts = cfg.get("num_local_experts", cfg.get("num_experts"))
            inter = cfg.get("moe_intermediate_size", cfg.get("intermediate_size"))
            for entry in d["files"]:
                self.assertEqual(entry["E"], experts, p)
                self.assertEqual(entry["N"] * entry["tp"], inter, p)
                self.assertTrue(os.path.exists(os.path.join(os.path.dirname(p), entry["file"])), entry["file"])


if __name__ == "__main__":
    sys.exit(unittest.main())
