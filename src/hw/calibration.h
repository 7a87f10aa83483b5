// Calibration results -> GPU YAML overlays (`loom calibrate`, docs/calibrate.md). A result is the JSON that
// scripts/torch/calibrate.py writes on the chip (schema loom.calibration/1). The overlay `extends:` the catalogue
// entry and sets, each sourced "calibrated DATE on HOST (device, file)":
//   clock.tensor_load, sustained_load.tensor_slowdown, sustained_load.onset: measured directly
//     (--clock sustained|auto);
//   dram.bandwidth: the measured read bandwidth divided by the achievable fraction calibrate.py measures on the
//     catalogue's HBM GPUs, i.e. the datasheet figure the chip behaves like, only when it differs from the entry's
//     by more than 5% (the learned model was trained on datasheet bandwidths: a raw achievable number in its place
//     makes every memory-bound prediction slower), and never for a partition (fewer SMs read less);
//   sms: the partition size when the run used a green-context partition.
// The measured tensor rates and launch costs are kept as comments (FLOP/clk are architectural).
#pragma once

#include <algorithm>
#include <string>

#include "hw/gpu_spec.h"

namespace loom {

/// Host time a launch of scripts/torch/host_cost.py's tiny eager forward on the reference host (host.cpu_speed 1: the
/// lent H200 node's, where the serving profiles' host costs were measured), median of 6 runs
/// (traces/checks/host/speed). A host's cpu_speed is this over its own figure (`loom calibrate`; the host probes of
/// `loom validate --e2e`).
inline constexpr double kReferenceHostUsPerLaunch = 12.72;

/// The catalogue's range of host.cpu_speed (hw/gpu_schema.cpp): a probe implying a speed outside it is refused.
inline constexpr double kMinHostCpuSpeed = 0.05;
inline constexpr double kMaxHostCpuSpeed = 20.0;

/// host.cpu_speed of a host whose host_cost.py probe took `us_per_launch` (clamped to the catalogue's 0.05-20; the
/// readers refuse a probe outside kReferenceHostUsPerLaunch / 20 .. / 0.05 first, so the clamp only rounds).
inline double cpu_speed_of_probe(double us_per_launch) {
  return std::clamp(kReferenceHostUsPerLaunch / us_per_launch, kMinHostCpuSpeed, kMaxHostCpuSpeed);
}

struct CalibrationOverlay {
  std::string yaml;    ///< the overlay file's text
  std::string device;  ///< the device name the result records (e.g. "NVIDIA H100 80GB HBM3")
  std::string device_where;  ///< FILE:LINE of that name ('device.gpu'), for messages about it
};

/// The overlay for catalogue entry `key` (`base`) from the result text `body` read from `file`. `reference` is the
/// catalogue's h200 entry: its measured graph_gap is scaled by this chip's graph replay over the H200's.
/// Throws InputError(file[:line], ...) for anything malformed, missing, duplicated or implausible.
CalibrationOverlay calibration_overlay(const std::string& body, const std::string& file, const std::string& key,
                                       const GpuSpec& base, const GpuSpec& reference);

}  // namespace loom
