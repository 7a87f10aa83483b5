// Which tensor-core instruction path a GPU's compute capability uses: the one table behind the config space's
// tcgen05 tiles (kernels/config_space.cpp) and the learned model's `tensor_path` feature (analytical/features.cpp).
#pragma once

namespace loom {

/// Tensor-core instruction path (CUDA C++ Programming Guide; PTX ISA). The values are the `tensor_path` feature's
/// codes, which trained models depend on: never renumber.
enum class TensorPath : int {
  none = 0,      ///< no tensor cores (before sm_70: Pascal)
  mma_sync = 1,  ///< warp-level mma.sync: sm_70-sm_89, and sm_120/121 (GeForce / RTX PRO Blackwell)
  wgmma = 2,     ///< warpgroup wgmma: sm_90
  tcgen05 = 3,   ///< tcgen05.mma with accumulators in tensor memory: sm_100, sm_101, sm_103 (B200, B300)
};

/// The path of compute capability `cc` (major * 10 + minor, as GpuSpec::compute_capability).
constexpr TensorPath tensor_path_of(int cc) {
  if (cc < 70) return TensorPath::none;
  if (cc == 90) return TensorPath::wgmma;
  if (cc == 100 || cc == 101 || cc == 103) return TensorPath::tcgen05;
  return TensorPath::mma_sync;
}

/// Rows of a tcgen05.mma tile held by one tensor-memory slice: the SM's 128 TMEM lanes (PTX ISA "Tensor Memory"). A CTA
/// tile of BM rows takes ceil(BM / 128) slices, each its own columns; FA4 reads K and V once per slice.
constexpr int kTcgen05SliceRows = 128;
/// ceil(bm / 128): the tensor-memory slices (and, in attention, the K/V passes) of a BM-row tcgen05 tile.
constexpr int tcgen05_slices(int bm) { return (bm + kTcgen05SliceRows - 1) / kTcgen05SliceRows; }

}  // namespace loom
