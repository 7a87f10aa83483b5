// Turns measured kernels (corpus rows) into the learned model's training rows: analytical features of the kernel
// on the GPU (partition) it ran on, and the target log(measured / ceiling).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "analytical/analysis.h"
#include "hw/catalog.h"

namespace loom {

/// One measured kernel, whatever file it came from.
struct Measurement {
  std::string gpu_key;   ///< catalogue key, e.g. "h200"
  int sms = 0;           ///< SMs in use (green-context partition); 0 = whole chip
  std::string family;
  std::string spec;      ///< loom vocabulary, with config= when known
  std::string impl;      ///< "cublaslt", "loom", "torch", ...
  double median_us = 0;
  double spread_pct = 0;
  std::string source;    ///< "FILE:LINE"
  std::string dataset;        ///< a public data set with its own protocol (corpus `#dataset=`), "" for loom's own
  std::string dataset_split;  ///< "train" | "test" within that data set
};

struct Sample {
  Measurement m;
  std::vector<float> x;      ///< features, in Dataset::feature_names order
  double target = 0;         ///< log(measured_us / ceiling_us)
  double ceiling_us = 0;
  double analytical_us = 0;  ///< pure analytical prediction
  double roofline_us = 0;    ///< classic roofline: max(FLOP / peak, compulsory bytes / DRAM bandwidth)
  uint64_t shape_group = 0;  ///< hash of family + shape without config: all configs of a shape share a split side
  std::string architecture;  ///< the measured GPU's architecture (cross-architecture splits, coverage)
};

struct Dataset {
  std::vector<std::string> feature_names;
  std::vector<Sample> samples;
  std::map<std::string, int> skipped;  ///< reason -> count (rows loom cannot analyse, e.g. unknown GPU)
};

/// The GPU a measurement ran on: the catalogue entry with sms overridden for partitions.
GpuSpec measurement_gpu(const Catalog& catalog, const std::string& gpu_key, int sms);

/// Analyses every measurement. Rows that fail analysis are counted in `skipped`, never fatal.
/// `progress(done, total)` is called now and then.
Dataset build_dataset(const std::vector<Measurement>& rows, const Catalog& catalog,
                      const std::function<void(size_t, size_t)>& progress = {});

/// Implementation class of a corpus `impl` ("cublaslt", "cublaslt_algo3" -> "library"; "torch"; "loom").
std::string impl_class(const std::string& impl);
/// What runs a family when the spec says no impl=: the production path a serving stack would take.
std::string default_impl(const std::string& family);
/// The learned model that predicts a kernel: its family's, except for implementations measured only in public data
/// sets with their own protocol (impl class "cutlass": vLLM's fp8 GEMM), which get a model of their own
/// ("gemm@cutlass") so they neither shift nor borrow from the family model of loom's own traces.
std::string model_key(const std::string& family, const std::string& impl_class);
/// Names of the implementation one-hot features appended to the analytical features.
const std::vector<std::string>& impl_feature_names();

/// Features and baselines for one kernel (shared by training and prediction); `impl` is an impl_class().
Sample make_sample(const Analysis& a, const GpuSpec& gpu, const std::string& impl);

/// Shape key: family + every parameter except config (so configs of one shape stay together).
uint64_t shape_group(const KernelSpec& spec);

}  // namespace loom
