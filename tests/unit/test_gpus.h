// Hand-built GpuSpecs for unit tests (independent of the gpus/*.yaml catalogue).
#pragma once

#include "hw/gpu_spec.h"

namespace loom::test {

/// H100 SXM5 80GB. Sustained clock 1830 MHz, chosen so that bf16 dense = 132 * 1830e6 * 4096 = 989.4 TFLOPS, the
/// datasheet figure. fp64 tensor: 256 FLOP/clk/SM (132 * 1980e6 * 256 = 66.9 TF at boost, the datasheet's 67 TF;
/// 128 would give only half). L2 5.5 TB/s and the other figures as given in the analytical helper's brief.
inline GpuSpec test_h100() {
  GpuSpec g;
  g.name = "test-h100-sxm";
  g.full_name = "NVIDIA H100 SXM5 80GB (unit-test copy)";
  g.architecture = "hopper";
  g.compute_capability = 90;
  g.sms = 132;
  g.boost_clock_mhz = 1980;
  g.sustained_clock_mhz = 1830;
  auto set = [&](Dtype d, double v) { g.tensor_flops_per_clk_per_sm[static_cast<int>(d)] = v; };
  set(Dtype::fp16, 4096), set(Dtype::bf16, 4096), set(Dtype::fp8, 8192), set(Dtype::int8, 8192);
  set(Dtype::tf32, 2048), set(Dtype::fp64, 256);
  g.fp32_flops_per_clk_per_sm = 256;
  g.fp64_flops_per_clk_per_sm = 128;
  g.sfu_ops_per_clk_per_sm = 16;
  g.int_ops_per_clk_per_sm = 64;
  g.smem_bytes_per_clk_per_sm = 128;
  g.regs_per_sm = 65536;
  g.max_regs_per_thread = 255;
  g.smem_per_sm_bytes = 228 * 1024;
  g.smem_per_block_bytes = 227 * 1024;
  g.max_threads_per_sm = 2048;
  g.max_warps_per_sm = 64;
  g.max_ctas_per_sm = 32;
  g.max_threads_per_block = 1024;
  g.l1_bytes_per_sm = 256 * 1024;
  g.l2_bytes = 50LL * 1024 * 1024;
  g.l2_bytes_per_s = 5.5e12;
  g.l2_bytes_per_clk_per_sm = 64;
  g.dram_bytes = 80LL * 1024 * 1024 * 1024;
  g.dram_bytes_per_s = 3.35e12;
  g.launch_overhead_us = 4;
  g.nvlink_bytes_per_s = 450e9;  // NVLink 4: 900 GB/s bidirectional per GPU
  g.topology = "nvswitch";       // HGX H100 8-GPU board
  g.pcie_bytes_per_s = 64e9;     // PCIe Gen5 x16 per direction
  g.gpus_per_node = 8;
  return g;
}

/// A100 SXM4 80GB: bf16 312 TF = 108 * 1410e6 * 2048; no fp8 tensor path.
inline GpuSpec test_a100() {
  GpuSpec g = test_h100();
  g.name = "a100-sxm4-80gb";
  g.full_name = "NVIDIA A100 SXM4 80GB (unit-test copy)";
  g.architecture = "ampere";
  g.compute_capability = 80;
  g.sms = 108;
  g.boost_clock_mhz = 1410;
  g.sustained_clock_mhz = 1410;
  g.tensor_flops_per_clk_per_sm = {};
  auto set = [&](Dtype d, double v) { g.tensor_flops_per_clk_per_sm[static_cast<int>(d)] = v; };
  set(Dtype::fp16, 2048), set(Dtype::bf16, 2048), set(Dtype::int8, 4096), set(Dtype::tf32, 1024);
  set(Dtype::fp64, 128);
  g.fp32_flops_per_clk_per_sm = 128;
  g.fp64_flops_per_clk_per_sm = 64;
  g.smem_per_sm_bytes = 164 * 1024;
  g.smem_per_block_bytes = 163 * 1024;
  g.l1_bytes_per_sm = 192 * 1024;
  g.l2_bytes = 40LL * 1024 * 1024;
  g.l2_bytes_per_s = 5120.0 * 1410e6;  // A100 whitepaper: 5120 B/clk L2 read bandwidth
  g.dram_bytes_per_s = 2.039e12;
  g.nvlink_bytes_per_s = 300e9;
  g.pcie_bytes_per_s = 32e9;
  return g;
}

/// The same H100 seen as a 16-SM green-context partition: DRAM and L2 stay chip-wide.
inline GpuSpec test_h100_partition(int sms) {
  GpuSpec g = test_h100();
  g.name = "test-h100-sxm-" + std::to_string(sms) + "sm";
  g.sms = sms;
  return g;
}

}  // namespace loom::test
