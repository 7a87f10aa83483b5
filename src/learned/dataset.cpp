// Dataset building: analysis per measured kernel, features, target, baselines, shape groups.
#include "learned/dataset.h"
#include "learned/transfer.h"

#include <algorithm>
#include <cmath>

#include "analytical/features.h"
#include "core/error.h"

namespace loom {

GpuSpec measurement_gpu(const Catalog& catalog, const std::string& gpu_key, int sms) {
  std::vector<std::string> overrides;
  GpuSpec full = catalog.get(gpu_key);
  if (sms > 0 && sms != full.sms) overrides.push_back("sms=" + std::to_string(sms));
  return overrides.empty() ? full : catalog.get(gpu_key, overrides);
}

uint64_t shape_group(const KernelSpec& spec) {
  // FNV-1a over the canonical text without config=.
  uint64_t h = 1469598103934665603ull;
  auto mix = [&](const std::string& s) {
    for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
    h = (h ^ ' ') * 1099511628211ull;
  };
  mix(spec.family);
  for (const auto& [k, v] : spec.params)
    if (k != "config") mix(k + "=" + v);
  return h;
}

std::string impl_class(const std::string& impl) {
  if (impl.rfind("cublas", 0) == 0 || impl == "library") return "library";
  if (impl == "torch" || impl == "loom" || impl == "cutlass" || impl == "fused" || impl == "paged") return impl;
  return "library";
}

std::string default_impl(const std::string& family) {
  if (family == "gemm") return "library";  // cuBLAS(Lt)
  if (family == "moe") return "loom";      // no library grouped GEMM in the corpus; loom's fused-MoE kernel
  return "torch";                          // SDPA / PyTorch native kernels
}

std::string model_key(const std::string& family, const std::string& impl_class) {
  // Implementations with their own forest: vLLM's CUTLASS fp8 GEMM, the serving engines' fused kernels, paged decode.
  return impl_class == "cutlass" || impl_class == "fused" || impl_class == "paged" ? family + "@" + impl_class : family;
}

const std::vector<std::string>& impl_feature_names() {
  static const std::vector<std::string> names = {"impl_library", "impl_torch", "impl_loom"};
  return names;
}

Sample make_sample(const Analysis& a, const GpuSpec& gpu, const std::string& impl) {
  Sample s;
  for (const auto& [name, value] : analysis_features(a, gpu)) s.x.push_back(static_cast<float>(value));
  for (const auto& name : impl_feature_names()) s.x.push_back(name == "impl_" + impl ? 1.0f : 0.0f);
  s.ceiling_us = a.ceiling_us;
  s.analytical_us = a.latency_us;
  double compute_peak = gpu.fp32_flops_per_s();
  for (const auto& p : a.pipes)
    if (p.pipe == "tensor" && p.total > 0 && p.time_us > 0) compute_peak = p.total / (p.time_us * 1e-6);
  double compute_us = compute_peak > 0 ? a.flops / compute_peak * 1e6 : 0;
  double memory_us = gpu.dram_bytes_per_s > 0 ? a.min_dram_bytes / gpu.effective_dram_bytes_per_s() * 1e6 : 0;
  s.roofline_us = std::max({compute_us, memory_us, 1e-3});
  return s;
}

Dataset build_dataset(const std::vector<Measurement>& rows, const Catalog& catalog,
                      const std::function<void(size_t, size_t)>& progress) {
  Dataset ds;
  std::map<std::pair<std::string, int>, GpuSpec> gpus;
  for (size_t i = 0; i < rows.size(); ++i) {
    if (progress && (i % 2000 == 0)) progress(i, rows.size());
    const Measurement& m = rows[i];
    if (!(m.median_us > 0)) {
      ++ds.skipped["non-positive measured time"];
      continue;
    }
    try {
      auto key = std::make_pair(m.gpu_key, m.sms);
      auto it = gpus.find(key);
      if (it == gpus.end()) it = gpus.emplace(key, measurement_gpu(catalog, m.gpu_key, m.sms)).first;
      KernelSpec spec = parse_kernel_spec(m.spec, m.source);
      Analysis a = analyze(it->second, spec);
      if (ds.feature_names.empty()) {
        for (const auto& [name, value] : analysis_features(a, it->second)) ds.feature_names.push_back(name);
        for (const auto& name : impl_feature_names()) ds.feature_names.push_back(name);
      }
      Sample s = make_sample(a, it->second, impl_class(m.impl));
      if (!(s.ceiling_us > 0)) {
        ++ds.skipped["zero ceiling"];
        continue;
      }
      s.m = m;
      s.target = std::log(m.median_us / s.ceiling_us);
      s.shape_group = shape_group(spec);
      s.architecture = measured_architecture(m.family, it->second);  // B200 tensor families: blackwell-tcgen05
      ds.samples.push_back(std::move(s));
    } catch (const InputError& e) {
      ++ds.skipped[e.detail().substr(0, 80)];
    }
  }
  if (progress) progress(rows.size(), rows.size());
  return ds;
}

}  // namespace loom
