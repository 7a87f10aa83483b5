// interconnect.topology (nvswitch | nvlink-mesh | nvlink-bridge | pcie): the parser (values, did-you-mean, the
// inferred default, consistency with the NVLink keys, --set) and the collective models that follow it (the NVLS
// ceiling only on a Hopper/Blackwell NVSwitch node; an NVLink mesh splits a GPU's links over its peers).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "analytical/analysis.h"
#include "core/error.h"
#include "hw/catalog.h"
#include "kernels/shape.h"
#include "learned/predictor.h"
#include "scratch_dir.h"

namespace loom {
namespace {

constexpr double kGiB = 1073741824.0;

class Topology : public ::testing::Test {
 protected:
  std::string write(const std::string& file, const std::string& text) {
    const std::string p = (scratch_.path() / file).string();
    std::ofstream(p) << text;
    return p;
  }
  GpuSpec get(const std::string& gpu, const std::vector<std::string>& sets = {}) { return cat_.get(gpu, sets); }
  InputError error(const std::string& gpu, const std::vector<std::string>& sets = {}) {
    try {
      cat_.get(gpu, sets);
    } catch (const InputError& e) {
      return e;
    }
    ADD_FAILURE() << "no error for " << gpu;
    return InputError("", "");
  }
  double ceiling(const GpuSpec& g, const std::string& spec) {
    return analyze(g, parse_kernel_spec(spec, "test")).ceiling_us;
  }
  const Catalog cat_ = Catalog::load();
  const test::ScratchDir scratch_;
};

#define EXPECT_HAS(text, part) EXPECT_NE(std::string(text).find(part), std::string::npos) << (text)

TEST_F(Topology, CatalogueEntriesSayTheirNode) {
  for (const char* g : {"h100-sxm", "h200", "h800", "h20", "b200", "a100-sxm4-80gb"}) {
    EXPECT_EQ(get(g).topology, "nvswitch") << g;
    EXPECT_HAS(get(g).key_sources.at("interconnect.topology"), "gpus/");
  }
  EXPECT_EQ(get("a40").topology, "nvlink-bridge");
  EXPECT_EQ(get("rtx-a6000").topology, "nvlink-bridge");
  // The PCIe A100s extend the SXM entry (an NVSwitch board) and say pcie themselves.
  for (const char* g : {"a100-pcie-80gb", "a100-pcie-40gb", "v100-pcie-32gb", "l4", "rtx-pro-6000-blackwell-server"})
    EXPECT_EQ(get(g).topology, "pcie") << g;
  // v100 (DGX-1 hybrid cube-mesh) does not say: the inferred default, named as such.
  EXPECT_EQ(get("v100").topology, "nvswitch");
  EXPECT_EQ(get("v100").key_sources.at("interconnect.topology"), "default");
}

TEST_F(Topology, AbsentOrNoneIsTheOldInference) {
  EXPECT_EQ(infer_topology(0, 0), "pcie");
  EXPECT_EQ(infer_topology(0, 2), "pcie");
  EXPECT_EQ(infer_topology(56.25e9, 2), "nvlink-bridge");
  EXPECT_EQ(infer_topology(450e9, 0), "nvswitch");
  EXPECT_EQ(infer_topology(450e9, 4), "nvswitch");  // a 4-GPU NVLink domain: NVLS at 3-4 GPUs, as before
  const GpuSpec none = get(write("none.yaml", "extends: h100-sxm\ninterconnect:\n  topology: none\n"));
  EXPECT_EQ(none.topology, "nvswitch");
  const GpuSpec bridged =
      get(write("bridged.yaml", "extends: h100-sxm\ninterconnect:\n  topology: none\n  nvlink_gpus: 2\n"));
  EXPECT_EQ(bridged.topology, "nvlink-bridge");
  // A hand-built spec without the field: node_topology() infers it the same way.
  GpuSpec hand;
  hand.nvlink_bytes_per_s = 450e9, hand.architecture = "hopper";
  EXPECT_EQ(hand.node_topology(), "nvswitch");
  EXPECT_TRUE(hand.nvls_switch());
}

TEST_F(Topology, UnknownValueNamesFileLineAndField) {
  const auto e = error(write("typo.yaml", "extends: h100-sxm\ninterconnect:\n  topology: nvswtich\n"));
  EXPECT_TRUE(e.where().ends_with("typo.yaml:3")) << e.where();
  EXPECT_HAS(e.detail(), "unknown interconnect.topology 'nvswtich' (did you mean 'nvswitch'?)");
  EXPECT_HAS(e.detail(), "nvswitch, nvlink-mesh, nvlink-bridge, pcie");
  const auto s = error("h100-sxm", {"interconnect.topology=nvlink_mesh"});
  EXPECT_EQ(s.where(), "--set interconnect.topology");
  EXPECT_HAS(s.detail(), "did you mean 'nvlink-mesh'?");
  // A quantity in a text field is text, so a number is just an unknown name.
  EXPECT_HAS(error("h100-sxm", {"interconnect.topology=8"}).detail(), "unknown interconnect.topology '8'");
}

TEST_F(Topology, InconsistentCombinationsAreRefused) {
  // NVSwitch without NVLink: blamed on the value given last (the --set), naming both.
  auto e = error("h100-sxm", {"interconnect.nvlink=0GB/s"});
  EXPECT_EQ(e.where(), "--set interconnect.nvlink");
  EXPECT_HAS(e.detail(), "interconnect.topology nvswitch (gpus/h100-sxm.yaml:");
  EXPECT_HAS(e.detail(), "set interconnect.topology=pcie");
  e = error("l4", {"interconnect.topology=nvswitch"});
  EXPECT_EQ(e.where(), "--set interconnect.topology");
  EXPECT_HAS(e.detail(), "interconnect.nvlink is 0 or absent");
  // A bridge needs its domain; a PCIe node has neither NVLink nor a domain.
  EXPECT_HAS(error("h100-sxm", {"interconnect.topology=nvlink-bridge"}).detail(), "needs interconnect.nvlink_gpus");
  EXPECT_HAS(error("h100-sxm", {"interconnect.topology=pcie"}).detail(), "has no NVLink, but interconnect.nvlink");
  EXPECT_HAS(error("a40", {"interconnect.topology=pcie", "interconnect.nvlink=0GB/s"}).detail(),
             "interconnect.nvlink_gpus is given");
  e = error(write("pcie_nvlink.yaml", "extends: l4\ninterconnect:\n  nvlink: 100 GB/s\n"));
  EXPECT_TRUE(e.where().ends_with("pcie_nvlink.yaml:3")) << e.where();  // the user's file, not the catalogue line
  // Consistent edits pass.
  EXPECT_EQ(get("h100-sxm", {"interconnect.nvlink=0GB/s", "interconnect.topology=pcie"}).topology, "pcie");
  EXPECT_EQ(get("h100-sxm", {"interconnect.nvlink_gpus=2", "interconnect.topology=nvlink-bridge"}).topology,
            "nvlink-bridge");
  EXPECT_EQ(get("l4", {"interconnect.nvlink=100GB/s", "interconnect.topology=nvswitch"}).topology, "nvswitch");
}

TEST_F(Topology, ATopologyEditAloneKeepsTheGpuAsMeasured) {
  const GpuSpec mesh = get("h100-sxm", {"interconnect.topology=nvlink-mesh"});
  EXPECT_EQ(mesh.topology, "nvlink-mesh");
  EXPECT_EQ(mesh.key_sources.at("interconnect.topology"), "--set interconnect.topology");
  EXPECT_EQ(mesh.anchor, nullptr);  // no kernel moves: predicted as itself
  // With a hardware edit, the anchor takes the topology too where its NVLink keys allow it...
  const GpuSpec slow = get("h100-sxm", {"interconnect.topology=nvlink-mesh", "interconnect.nvlink=100GB/s"});
  ASSERT_NE(slow.anchor, nullptr);
  EXPECT_EQ(slow.anchor->topology, "nvlink-mesh");
  // ... and keeps its own where they do not (a PCIe card given NVLink: the anchor has none).
  const GpuSpec l4 = get("l4", {"interconnect.nvlink=100GB/s", "interconnect.topology=nvswitch"});
  ASSERT_NE(l4.anchor, nullptr);
  EXPECT_EQ(l4.anchor->topology, "pcie");
}

TEST_F(Topology, TheNvlsCeilingFollowsTheField) {
  const std::string ar8 = "all_reduce bytes=1073741824 gpus=8", ar4 = "all_reduce bytes=1073741824 gpus=4";
  const GpuSpec h100 = get("h100-sxm"), mesh = get("h100-sxm", {"interconnect.topology=nvlink-mesh"});
  const double bw = h100.nvlink_bytes_per_s;
  const double nvls8 = kGiB / bw * 1e6 + 2, ring8 = 2.0 * 7 / 8 * kGiB / bw * 1e6 + 14;
  EXPECT_NEAR(ceiling(h100, ar8), nvls8, 1e-6);
  EXPECT_NEAR(ceiling(mesh, ar8), ring8, 1e-6);  // no switch, no NVLS: the ring over the whole mesh
  // On the 8-GPU mesh, 4 GPUs reach 3 of their 7 peers' links.
  EXPECT_NEAR(ceiling(mesh, ar4), 2.0 * 3 / 4 * kGiB / (bw * 3 / 7) * 1e6 + 6, 1e-6);
  EXPECT_NEAR(ceiling(h100, ar4), kGiB / bw * 1e6 + 2, 1e-6);
  // Back to nvswitch from a file that said mesh.
  const std::string f = write("mesh.yaml", "extends: h100-sxm\ninterconnect:\n  topology: nvlink-mesh\n");
  EXPECT_NEAR(ceiling(get(f), ar8), ring8, 1e-6);
  EXPECT_NEAR(ceiling(get(f, {"interconnect.topology=nvswitch"}), ar8), nvls8, 1e-6);
  // NVLS needs a Hopper/Blackwell switch: the HGX A100's NVSwitch does not reduce.
  const GpuSpec a100 = get("a100-sxm4-80gb");
  EXPECT_NEAR(ceiling(a100, ar8), 2.0 * 7 / 8 * kGiB / a100.nvlink_bytes_per_s * 1e6 + 14, 1e-6);
  // A PCIe Blackwell card given NVLink and a switch gets it; given a mesh it does not.
  const std::vector<std::string> nvl = {"interconnect.nvlink=100GB/s", "interconnect.topology=nvswitch"};
  EXPECT_NEAR(ceiling(get("rtx-pro-6000-blackwell-server", nvl), ar8), kGiB / 100e9 * 1e6 + 2, 1e-6);
  EXPECT_GT(ceiling(get("rtx-pro-6000-blackwell-server", {"interconnect.nvlink=100GB/s",
                                                          "interconnect.topology=nvlink-mesh"}), ar8),
            1.75 * kGiB / 100e9 * 1e6);  // the ring's 2(g-1)/g of the buffer
}

TEST_F(Topology, LearnedCollectivesLeaveNvlsFitsOffAMesh) {
  const Predictor predictor("learned");
  const GpuSpec h100 = get("h100-sxm"), mesh = get("h100-sxm", {"interconnect.topology=nvlink-mesh"});
  const KernelSpec k = parse_kernel_spec("all_reduce bytes=1073741824 gpus=8", "test");
  const Prediction sw = predictor.predict(h100, k), me = predictor.predict(mesh, k);
  ASSERT_TRUE(sw.collective && me.collective);
  EXPECT_HAS(sw.collective->basis, "nvswitch gpus=8");  // the NVLS fit of the DGX H100
  EXPECT_HAS(me.collective->basis, "nvlink-4gpu");      // the 4-GPU mesh's own ring fit, carried to 8
  EXPECT_GE(me.latency_us, me.ceiling_us());
  EXPECT_GT(me.latency_us, sw.latency_us);
}


TEST_F(Topology, EnginesCustomAllReduceOnlyWhereVllmRunsIt) {
  // vLLM / SGLang: world sizes 2, 4, 6, 8, 16; above 2 GPUs only when every pair is NVLink-connected.
  const GpuSpec h100 = get("h100-sxm"), l40 = get("l40"), a40 = get("a40");
  EXPECT_TRUE(engines_run_custom_all_reduce(h100, 2) && engines_run_custom_all_reduce(h100, 8));
  EXPECT_FALSE(engines_run_custom_all_reduce(h100, 3));
  EXPECT_TRUE(engines_run_custom_all_reduce(l40, 2));   // two PCIe GPUs: kept (peer access taken as working)
  EXPECT_FALSE(engines_run_custom_all_reduce(l40, 4));  // more than two PCIe-only GPUs: NCCL
  EXPECT_TRUE(engines_run_custom_all_reduce(a40, 2));
  EXPECT_FALSE(engines_run_custom_all_reduce(a40, 4));  // 2-way bridges are not a full mesh
  const GpuSpec mesh4 = get("h100-sxm", {"interconnect.topology=nvlink-mesh", "interconnect.nvlink_gpus=4"});
  EXPECT_TRUE(engines_run_custom_all_reduce(mesh4, 4));
  EXPECT_FALSE(engines_run_custom_all_reduce(mesh4, 8));  // past the mesh's 4 GPUs: not every pair linked
  EXPECT_TRUE(engines_run_custom_all_reduce(h100, 6));
  EXPECT_FALSE(engines_run_custom_all_reduce(h100, 5));
  // impl=custom on such a node is predicted as the NCCL all-reduce it falls back to, and says so.
  const KernelSpec custom = parse_kernel_spec("all_reduce gpus=4 bytes=16384 impl=custom", "test");
  const KernelSpec nccl = parse_kernel_spec("all_reduce gpus=4 bytes=16384 impl=nccl", "test");
  const Predictor pred("learned");
  const Prediction pc = pred.predict(l40, custom), pn = pred.predict(l40, nccl);
  EXPECT_DOUBLE_EQ(pc.latency_us, pn.latency_us);
  bool said = false;
  for (const auto& n : pc.analysis->notes) said = said || n.find("fall back to NCCL") != std::string::npos;
  EXPECT_TRUE(said);
  EXPECT_LT(pred.predict(h100, custom).latency_us, pred.predict(h100, nccl).latency_us);
}

}  // namespace
}  // namespace loom
