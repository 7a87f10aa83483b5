// Measured collectives (all_reduce, all_gather, reduce_scatter, send_recv): the Vidur/PipeWeave collective importer and
// the alpha-beta fits (hand-checked numbers).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>

#include "core/error.h"
#include "core/file_io.h"
#include "hw/catalog.h"
#include "learned/collectives.h"
#include "trace/import_public.h"
#include "scratch_dir.h"

namespace loom {
namespace {

const char* kHeader =
    ",time_stats.all_reduce.min,time_stats.all_reduce.max,time_stats.all_reduce.mean,time_stats.all_reduce.median,"
    "time_stats.all_reduce.std,rank,num_workers,size,collective,devices_per_node,max_devices_per_node\n";

TEST(Collectives, ImportsSingleNodeRowsInMicroseconds) {
  const std::string text = std::string(kHeader) +
                           "0,0.01,0.03,0.02,0.02,0.001,0,8,2048,all_reduce,8,8\n"
                           "1,0.1,0.3,0.2,0.25,0.01,0,16,1048576,all_reduce,8,8\n";  // two nodes: skipped
  PublicImport imp = import_public_text("pipeweave", text, "dataset/collective/H800/all_reduce.csv", {});
  ASSERT_EQ(imp.by_gpu.size(), 1u);
  const Corpus& c = imp.by_gpu.at("h800");
  ASSERT_EQ(c.rows.size(), 1u);
  EXPECT_EQ(c.rows[0].spec, "all_reduce bytes=2048 gpus=8");
  EXPECT_DOUBLE_EQ(c.rows[0].median_us, 20.0);  // 0.02 ms
  EXPECT_DOUBLE_EQ(c.rows[0].p10_us, 10.0);
  EXPECT_EQ(c.meta.at("topology"), "nvswitch");
  EXPECT_EQ(imp.skipped.at("all_reduce across nodes (loom models one node)"), 1);
}

TEST(Collectives, BadFieldNamesFileLineAndField) {
  const std::string text = std::string(kHeader) + "0,0.01,0.03,0.02,0.02,0.001,0,8,-5,all_reduce,8,8\n";
  try {
    import_public_text("vidur", text, "network/a100_dgx/all_reduce.csv", {});
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("all_reduce.csv:2"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("size '-5'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(import_public_text("vidur", std::string(kHeader) + "0,0.01,0.03,0.02,0.02,0.001,0,8,64,all_reduce,8,8\n",
                                  "elsewhere/all_reduce.csv", {}),
               InputError);  // no GPU in the path, no --gpu
}

TEST(Collectives, FitRecoversBothRegimes) {
  // Synthetic ring: below 1 MiB 10 us + bus/50 GB/s, from it 30 us + bus/200 GB/s.
  std::vector<CollectivePoint> pts;
  for (double b = 4096; b <= 1 << 30; b *= 1.09) {
    const int64_t bytes = int64_t(b);
    const double bus = 2.0 * 3 / 4 * double(bytes);
    pts.push_back({bytes, 4, bytes < (1 << 20) ? 10 + bus / 50e9 * 1e6 : 30 + bus / 200e9 * 1e6});
  }
  const CollectiveFit f = fit_collective(pts, 4);
  EXPECT_NEAR(f.large.busbw_bytes_per_s / 1e9, 200, 2);
  EXPECT_NEAR(f.large.alpha_us, 30, 1);
  EXPECT_NEAR(f.small.alpha_us, 10, 1);
  EXPECT_LT(f.mape_large, 1.0);
  EXPECT_LT(f.mape_small, 5.0);  // the break falls within a quarter octave of 1 MiB
}

TEST(Collectives, EstimateFlagsWhatItExtrapolates) {
  const Catalog cat = Catalog::load();
  CollectiveFit f;
  f.gpu_key = "h100-sxm", f.architecture = "hopper", f.topology = "nvswitch", f.link = "nvlink",
  f.link_bytes_per_s = 450e9, f.gpus = 8;
  f.small = {20, 100e9}, f.large = {40, 360e9}, f.break_bytes = 1 << 20;
  CollectiveModel m{{f}};
  const int64_t bytes = 64 << 20;
  auto own = estimate_all_reduce(m, cat.get("h100-sxm"), 8, bytes);
  ASSERT_TRUE(own);
  EXPECT_NEAR(own->latency_us, 40 + 2.0 * 7 / 8 * bytes / 360e9 * 1e6, 1e-6);
  EXPECT_TRUE(own->extrapolation.empty());
  auto other_count = estimate_all_reduce(m, cat.get("h100-sxm"), 4, bytes);
  EXPECT_NE(other_count->extrapolation.find("gpus=4"), std::string::npos);
  // H800: 200 GB/s NVLink x the fitted efficiency 360/450 = 0.8 -> 160 GB/s busbw.
  auto h800 = estimate_all_reduce(m, cat.get("h800"), 8, bytes);
  EXPECT_NEAR(h800->latency_us, 40 + 2.0 * 7 / 8 * bytes / 160e9 * 1e6, 1e-3);
  EXPECT_NE(h800->extrapolation.find("no measured all_reduce on h800"), std::string::npos);
  EXPECT_FALSE(estimate_all_reduce(m, cat.get("h800"), 1, bytes));  // one GPU: nothing to reduce
}

TEST(Collectives, LoomSweepImportsNcclAndFasterCustomPerSize) {
  // A slice of the committed H200 2-GPU sweep (scripts/torch/collectives.py).
  PublicImportContext ctx;
  ctx.gpu_override = "h200";
  ctx.sms_for = [](const std::string&) { return int64_t(132); };
  const std::string file = std::string(LOOM_TEST_DATA) + "/public/collective/loom-h200-2gpu.csv";
  PublicImport imp = import_public_file("loom", file, ctx);
  const Corpus& c = imp.by_gpu.at("h200");
  std::map<std::string, const CorpusRow*> by_spec;
  for (const auto& r : c.rows) by_spec[r.spec] = &r;
  ASSERT_EQ(c.rows.size(), 6u);  // 2 NCCL sizes + 3 custom sizes + 1 all_gather
  EXPECT_DOUBLE_EQ(by_spec.at("all_reduce bytes=2097152 gpus=2")->median_us, 25.472);  // median of the 3 runs
  // Custom: the faster of one-shot (19.07 us) and two-shot (12.93 us) at 2 MiB.
  const CorpusRow* two = by_spec.at("all_reduce bytes=2097152 gpus=2 impl=custom");
  EXPECT_DOUBLE_EQ(two->median_us, 12.928);
  EXPECT_NE(two->kernels.find("two_shot"), std::string::npos);
  EXPECT_EQ(two->impl, "custom");
  EXPECT_DOUBLE_EQ(by_spec.at("all_gather bytes=4096 gpus=2")->median_us, 4.256);
  EXPECT_EQ(by_spec.at("all_gather bytes=4096 gpus=2")->family, "all_gather");
  EXPECT_EQ(imp.stem, "collectives-2gpu");
  EXPECT_THROW(import_public_file("loom", file, PublicImportContext{}), InputError);  // no --gpu
}

TEST(Collectives, CustomFitsServeOnlyImplCustom) {
  const Catalog cat = Catalog::load();
  CollectiveFit n, c;
  n.gpu_key = c.gpu_key = "h200", n.architecture = c.architecture = "hopper", n.topology = c.topology = "nvswitch";
  n.link = c.link = "nvlink", n.link_bytes_per_s = c.link_bytes_per_s = 450e9, n.gpus = c.gpus = 2;
  n.small = n.large = {5, 300e9};
  c.impl = "custom", c.small = c.large = {7, 330e9};
  CollectiveModel only_nccl{{n}}, both{{n, c}};
  const int64_t b = 1 << 20;
  EXPECT_FALSE(estimate_all_reduce(only_nccl, cat.get("h200"), 2, b, "custom"));  // -> the analytical model
  EXPECT_NEAR(estimate_all_reduce(both, cat.get("h200"), 2, b)->latency_us, 5 + b / 300e9 * 1e6, 1e-9);
  auto cu = estimate_all_reduce(both, cat.get("h200"), 2, b, "custom");
  ASSERT_TRUE(cu);
  EXPECT_NEAR(cu->latency_us, 7 + b / 330e9 * 1e6, 1e-9);
  EXPECT_TRUE(cu->extrapolation.empty());
  auto h100 = estimate_all_reduce(both, cat.get("h100-sxm"), 2, b, "custom");  // calibrated from H200's custom fit
  ASSERT_TRUE(h100);
  EXPECT_NE(h100->extrapolation.find("no measured custom all_reduce on h100-sxm"), std::string::npos);
  // Round trip through the JSON file keeps the impl.
  const test::ScratchDir scratch;
  const std::string path = scratch.file("collectives_impl.json");
  both.save(path);
  const CollectiveModel back = CollectiveModel::load(path);
  ASSERT_EQ(back.fits.size(), 2u);
  EXPECT_EQ(back.fits[1].impl, "custom");
}

TEST(Collectives, SendRecvImportsIntraNodeRowsWithoutGpus) {
  std::string h = kHeader;
  for (size_t p; (p = h.find("all_reduce")) != std::string::npos;) h.replace(p, 10, "send_recv");
  const std::string text = h + "0,0.004,0.006,0.005,0.005,0.0001,0,2,2048,send_recv,2,4\n"
                               "1,0.01,0.03,0.02,0.02,0.001,0,2,4096,send_recv,1,8\n";  // one GPU per node: skipped
  PublicImport imp = import_public_text("vidur", text, "network/h100_dgx/send_recv.csv", {});
  const Corpus& c = imp.by_gpu.at("h100-sxm");
  ASSERT_EQ(c.rows.size(), 1u);
  EXPECT_EQ(c.rows[0].spec, "send_recv bytes=2048");
  EXPECT_EQ(c.rows[0].family, "send_recv");
  EXPECT_DOUBLE_EQ(c.rows[0].median_us, 5.0);
  EXPECT_EQ(imp.skipped.at("send_recv across nodes (loom models one node)"), 1);
  EXPECT_THROW(import_public_text("vidur", h + "0,0.004,0.006,0.005,0.005,0.0001,0,4,2048,send_recv,4,4\n",
                                  "network/h100_dgx/send_recv.csv", {}),
               InputError);  // send_recv is two ranks
}

TEST(Collectives, LoomSendRecvRowsImportWithoutGpus) {
  const std::string text =
      "op,impl,dtype,bytes,gpus,rank,run1_us,run2_us,run3_us,kernel\n"
      "send_recv,nccl,bfloat16,4096,2,0,6.0,5.0,7.0,ncclDevKernel_SendRecv\n"
      "reduce_scatter,nccl,bfloat16,8192,2,0,4.0,4.5,5.0,ncclDevKernel_ReduceScatter\n";
  PublicImportContext ctx;
  ctx.gpu_override = "h200";
  ctx.sms_for = [](const std::string&) { return int64_t(132); };
  PublicImport imp = import_public_text("loom", text, "rank0.csv", ctx);
  const Corpus& c = imp.by_gpu.at("h200");
  ASSERT_EQ(c.rows.size(), 2u);
  EXPECT_EQ(c.rows[0].spec, "send_recv bytes=4096");
  EXPECT_DOUBLE_EQ(c.rows[0].median_us, 6.0);
  EXPECT_EQ(c.rows[1].spec, "reduce_scatter bytes=8192 gpus=2");
  EXPECT_EQ(c.rows[1].family, "reduce_scatter");
}

TEST(Collectives, FitsAreKeptApartByOp) {
  EXPECT_DOUBLE_EQ(collective_bus_bytes("all_reduce", 800, 4), 1200);
  EXPECT_DOUBLE_EQ(collective_bus_bytes("all_gather", 800, 4), 600);
  EXPECT_DOUBLE_EQ(collective_bus_bytes("reduce_scatter", 800, 4), 600);
  EXPECT_DOUBLE_EQ(collective_bus_bytes("send_recv", 800, 2), 800);
  const Catalog cat = Catalog::load();
  CollectiveFit sr;
  sr.op = "send_recv", sr.gpu_key = "h100-sxm", sr.architecture = "hopper", sr.topology = "nvswitch",
  sr.link = "nvlink";
  sr.link_bytes_per_s = 450e9, sr.gpus = 2, sr.small = sr.large = {8, 360e9};
  CollectiveModel m{{sr}};
  const int64_t b = 64 << 20;
  EXPECT_FALSE(estimate_all_reduce(m, cat.get("h100-sxm"), 2, b));  // no all_reduce fit: the analytical ring
  auto own = estimate_collective(m, cat.get("h100-sxm"), "send_recv", 2, b);
  ASSERT_TRUE(own);
  EXPECT_NEAR(own->latency_us, 8 + b / 360e9 * 1e6, 1e-6);
  EXPECT_TRUE(own->extrapolation.empty());
  auto h800 = estimate_collective(m, cat.get("h800"), "send_recv", 2, b);  // 200 GB/s x 0.8
  ASSERT_TRUE(h800);
  EXPECT_NEAR(h800->latency_us, 8 + b / 160e9 * 1e6, 1e-3);
  EXPECT_NE(h800->extrapolation.find("no measured send_recv on h800"), std::string::npos);
  const test::ScratchDir scratch;
  const std::string path = scratch.file("collectives_op.json");
  m.save(path);
  EXPECT_EQ(CollectiveModel::load(path).fits.at(0).op, "send_recv");
  const std::string bad = scratch.file("collectives_bad_op.json");
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  text.replace(text.find("\"send_recv\""), 11, "\"broadcast\"");
  write_file(bad, text);
  EXPECT_THROW(CollectiveModel::load(bad), InputError);
}

// Efficiency is pooled by transport: a PCIe ring with peer access (the pairwise-NVLink node's PCIe hops) takes the
// NVLink fits' efficiency of its architecture, a PCIe-only node (through host memory) the host-staged fits' of any
// GPU count; alphas follow the GPU count.
TEST(Collectives, CalibrationPoolsByTransport) {
  auto fit = [](const std::string& gpu, const std::string& arch, const std::string& link, int g, double eff,
                double alpha) {
    CollectiveFit f;
    f.gpu_key = gpu, f.architecture = arch, f.link = link, f.gpus = g, f.link_bytes_per_s = 100e9;
    f.small = {alpha, eff * 50e9}, f.large = {2 * alpha, eff * 100e9}, f.break_bytes = 1 << 20;
    return f;
  };
  const std::vector<CollectiveFit> fits = {
      fit("a", "ampere", "nvlink", 8, 0.7, 40), fit("h", "hopper", "nvlink", 4, 0.8, 10),
      fit("r", "ada", "pcie", 2, 0.35, 5), fit("s", "blackwell", "pcie", 4, 0.45, 30)};
  const CollectiveFit p2p = calibrated_fit(fits, "ampere", "pcie-p2p", 32e9, 4);
  EXPECT_NEAR(p2p.large.busbw_bytes_per_s, 0.7 * 32e9, 1);  // the Ampere NVLink ring's efficiency
  // Latency from the 4-GPU p2p fit (the Hopper one), its large alpha carried from NVLink to PCIe steps by NCCL's ring
  // model: 8.4 us + 6 steps x 5.7 (PCIe) against x 3.4 (NVLink).
  EXPECT_NEAR(p2p.large.alpha_us, 20 * (8.4 + 6 * 5.7) / (8.4 + 6 * 3.4), 1e-9);
  EXPECT_NEAR(p2p.small.alpha_us, 10, 1e-9);
  // The break carried by NCCL's LL -> Simple latency gap (4.8 us + 6 steps x 4.7 us on PCIe, x 2.93 on NVLink) and
  // the link bandwidth (32 against 100 GB/s).
  EXPECT_NEAR(double(p2p.break_bytes), (1 << 20) * (4.8 + 6 * 4.7) / (4.8 + 6 * 2.93) * 0.32, 1);
  const CollectiveFit host = calibrated_fit(fits, "ampere", "pcie", 32e9, 4);
  EXPECT_NEAR(host.large.busbw_bytes_per_s, 0.4 * 32e9, 1);  // both host-staged fits, 2 and 4 GPUs
  EXPECT_NEAR(host.small.alpha_us, 30, 1e-9);                // the 4-GPU host fit's alpha
}

// An H200 measured with NCCL's P2P off (through host memory) is no own fit for an H200 node (NVLink in its YAML);
// the importer marks that sweep by its folder.
TEST(Collectives, NoP2pSweepIsNotAnOwnFit) {
  const Catalog cat = Catalog::load();
  CollectiveFit nv, host;
  nv.gpu_key = host.gpu_key = "h200", nv.architecture = host.architecture = "hopper", nv.gpus = 2, host.gpus = 4;
  nv.topology = "nvswitch", nv.link = "nvlink", nv.link_bytes_per_s = 450e9, nv.small = nv.large = {5, 300e9};
  host.topology = "pcie-nop2p", host.link = "pcie", host.link_bytes_per_s = 64e9, host.small = host.large = {20, 25e9};
  const int64_t b = 64 << 20;
  auto e = estimate_all_reduce(CollectiveModel{{nv, host}}, cat.get("h200"), 4, b);
  ASSERT_TRUE(e);
  EXPECT_NEAR(e->latency_us, 5 + 1.5 * b / 300e9 * 1e6, 1e-6);  // the NVLink fit at 2 GPUs, not the P2P-off one at 4
  EXPECT_NE(e->basis.find("nvswitch gpus=2"), std::string::npos) << e->basis;
  PublicImportContext ctx;
  ctx.gpu_override = "h200";
  ctx.sms_for = [](const std::string&) { return int64_t(132); };
  const std::string text = "op,impl,dtype,bytes,gpus,rank,run1_us,run2_us,run3_us,kernel\n"
                           "all_reduce,nccl,float16,1048576,2,0,40,41,42,ncclDevKernel_AllReduce_Sum_f16_RING_LL\n";
  PublicImport imp = import_public_text("loom", text, "raw/h200-2gpu-nop2p/rank0.csv", ctx);
  EXPECT_EQ(imp.by_gpu.at("h200").meta.at("topology"), "pcie-nop2p");
  EXPECT_EQ(imp.stem, "collectives-2gpu-nop2p");
}

// NVLS (the NVSwitch reducing in the fabric) runs on Hopper and later NVSwitch nodes of more than 2 GPUs: a ring-only
// GPU (Ampere, or an NVSwitch node with NVLS off) takes its large-message efficiency, alpha and break from ring fits,
// an NVLS-capable one from NVLS fits; small-message latency is pooled as before.
TEST(Collectives, CalibrationPoolsNvlsApart) {
  auto fit = [](const std::string& gpu, const std::string& arch, const std::string& topo, int g, double eff,
                double alpha) {
    CollectiveFit f;
    f.gpu_key = gpu, f.architecture = arch, f.topology = topo, f.link = "nvlink", f.gpus = g,
    f.link_bytes_per_s = 100e9;
    f.small = {5, eff * 50e9}, f.large = {alpha, eff * 100e9}, f.break_bytes = int64_t(alpha) << 20;
    return f;
  };
  const std::vector<CollectiveFit> fits = {fit("h20", "hopper", "nvswitch", 8, 1.05, 80),
                                           fit("h200", "hopper", "nvswitch-nvls-off", 8, 0.75, 40),
                                           fit("a", "ampere", "nvswitch", 4, 0.7, 20)};
  const CollectiveFit a100 = calibrated_fit(fits, "ampere", "nvlink", 300e9, 8);
  EXPECT_NEAR(a100.large.busbw_bytes_per_s, 0.7 * 300e9, 1);  // its architecture's ring, not the Hopper NVLS fit
  EXPECT_NEAR(a100.large.alpha_us, 40, 1e-9);                 // the 8-GPU ring fit (NVLS off)
  // Its break, where NCCL's LL hands over to Simple, moves with the algorithm bandwidth: x 300 / 100 GB/s here.
  EXPECT_EQ(a100.break_bytes, int64_t(120) << 20);
  EXPECT_NEAR(a100.small.alpha_us, 5, 1e-9);
  const CollectiveFit hopper = calibrated_fit(fits, "hopper", "nvlink", 450e9, 8);
  EXPECT_NEAR(hopper.large.busbw_bytes_per_s, 1.05 * 450e9, 1);
  EXPECT_NEAR(hopper.large.alpha_us, 80, 1e-9);
  const CollectiveFit off = calibrated_fit(fits, "hopper", "nvlink", 450e9, 8, "nvswitch-nvls-off");
  EXPECT_NEAR(off.large.busbw_bytes_per_s, 0.75 * 450e9, 1);
  const CollectiveFit two = calibrated_fit(fits, "hopper", "nvlink", 450e9, 2);  // no NVLS at 2 GPUs: ring fits
  EXPECT_NEAR(two.large.busbw_bytes_per_s, 0.75 * 450e9, 1);
}

// A 2-way NVLink bridge (interconnect.nvlink_gpus: 2) joins a pair: a ring over more GPUs crosses PCIe between the
// pairs, so it takes the PCIe peer-to-peer efficiency on the YAML PCIe bandwidth, not NVLink's.
TEST(Collectives, BridgedPairsRideNvlinkOnlyWithinThePair) {
  const Catalog cat = Catalog::load();
  const GpuSpec& a40 = cat.get("a40");
  ASSERT_EQ(a40.nvlink_gpus, 2);
  CollectiveFit nv, p2p;
  nv.gpu_key = "a100-sxm4-80gb", p2p.gpu_key = "a100-pcie-80gb", nv.architecture = p2p.architecture = "ampere";
  nv.topology = "nvswitch", nv.link = "nvlink", nv.link_bytes_per_s = 300e9, nv.gpus = 4;
  p2p.topology = "pairwise-nvlink", p2p.link = "pcie-p2p", p2p.link_bytes_per_s = 32e9, p2p.gpus = 4;
  nv.small = nv.large = {20, 0.7 * 300e9}, p2p.small = p2p.large = {50, 0.5 * 32e9};
  const CollectiveModel m{{nv, p2p}};
  const int64_t b = 64 << 20;
  auto four = estimate_all_reduce(m, a40, 4, b), two = estimate_all_reduce(m, a40, 2, b);
  ASSERT_TRUE(four && two);
  EXPECT_NE(four->basis.find("pcie-p2p"), std::string::npos) << four->basis;
  // The two p2p fits' median efficiency and large-message alpha (the NVLink one's carried to PCIe steps).
  const double alpha = (20 * (8.4 + 6 * 5.7) / (8.4 + 6 * 3.4) + 50) / 2;
  EXPECT_NEAR(four->latency_us, alpha + 1.5 * b / (0.6 * 32e9) * 1e6, 1e-3);
  EXPECT_NE(two->basis.find("nvlink"), std::string::npos) << two->basis;
}

// The importer reads NCCL's log beside loom's rank files: a sweep with NVLS turned off is "nvswitch-nvls-off".
TEST(Collectives, LoomSweepWithNvlsOffIsMarked) {
  const test::ScratchDir scratch;
  const std::string dir = scratch.file("h200-4gpu-nvls/");
  std::filesystem::create_directories(dir);
  const std::string text = "op,impl,dtype,bytes,gpus,rank,run1_us,run2_us,run3_us,kernel\n"
                           "all_reduce,nccl,float16,1048576,4,0,40,41,42,ncclDevKernel_AllReduce_Sum_f16_RING_LL\n";
  PublicImportContext ctx;
  ctx.gpu_override = "h200";
  ctx.sms_for = [](const std::string&) { return int64_t(132); };
  std::filesystem::remove(dir + "nccl-info.txt");
  EXPECT_EQ(import_public_text("loom", text, dir + "rank0.csv", ctx).by_gpu.at("h200").meta.at("topology"), "nvswitch");
  write_file(dir + "nccl-info.txt", "vm:1:1 [0] NCCL INFO NCCL_NVLS_ENABLE set by environment to 0.\n");
  EXPECT_EQ(import_public_text("loom", text, dir + "rank0.csv", ctx).by_gpu.at("h200").meta.at("topology"),
            "nvswitch-nvls-off");
}

}  // namespace
}  // namespace loom
