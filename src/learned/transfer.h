// How far to trust a family's learned correction on an architecture that family was never measured on (issue 11).
//
// Held out a whole architecture at a time (the `arch:` splits), a forest's correction transfers for some families
// (MoE: 2-9% where the analytical model is 11-36% off) and not for others (GEMMs: 32-40% where the analytical
// model is 9-30% off on the same kernels): its trees extrapolate from derived times no training GPU had. So a
// prediction of family f on an architecture f's corpus lacks is the geometric blend
//     learned^w_f x analytical^(1 - w_f),
// with w_f chosen per family from the arch: splits (the weight, of 0, 1/4, 1/2, 3/4, 1, with the lowest MAPE
// averaged over the held-out architectures). Kernels of a measured architecture keep the learned prediction.
// `loom train` writes the weights to <model dir>/transfer.json; each arch: split is reported with weights chosen
// without that architecture (leave-one-out over the choice), so the split stays an honest estimate.
#pragma once

#include <map>
#include <set>
#include <string>
#include <string_view>

#include "hw/gpu_spec.h"
#include "learned/validate.h"

namespace loom {

struct TransferWeights {
  std::map<std::string, double> weight;                        ///< family -> w in [0, 1] (absent: 1)
  std::map<std::string, std::set<std::string>> architectures;  ///< family -> architectures its corpus measured

  /// The learned model's weight for `family` on a GPU of `architecture`: 1 where that architecture was measured
  /// for the family (or nothing is known), else the family's chosen weight.
  double weight_for(const std::string& family, const std::string& architecture) const;
  /// weight_for, except that a family measured on a single architecture (no held-out architecture to choose its
  /// weight from) gets 0.5, the middle of the grid, on an architecture it was not measured on.
  double weight_or_prior(const std::string& family, const std::string& architecture) const;
  /// Reads <dir>/transfer.json; a directory without one (a model from before this file) gives every weight 1.
  /// Throws InputError(FILE, ...) when the file is malformed.
  static TransferWeights load(const std::string& dir);
  /// The same for transfer.json's text (`path` names it in messages).
  static TransferWeights from_text(const std::string& text, const std::string& path);
  void save(const std::string& dir) const;
};

/// The architecture a family's kernels on `gpu` count as for transfer weights and uncertainty: gpu.architecture,
/// except the tensor-core families (gemm, moe, attention_prefill) on sm_100/sm_103, whose tcgen05 instruction path
/// no "blackwell" corpus row ran (those are sm_120 RTX PRO 6000 kernels, mma.sync): "blackwell-tcgen05".
std::string measured_architecture(const std::string& family, const GpuSpec& gpu);
/// The suffix measured_architecture adds on sm_100 (transfer.json and coverage.json may list "<arch>-tcgen05").
inline constexpr std::string_view kTcgen05ArchSuffix = "-tcgen05";

/// The weight grid's best weight per family over the arch: split points of `rep` (each architecture counted
/// once, not by kernel count), leaving out the architecture `except` ("" = none). Families seen in fewer than one
/// other architecture get no entry (weight 1).
std::map<std::string, double> choose_transfer_weights(const ValidationReport& rep, const std::string& except = "");

/// Rewrites every arch: split of `rep` as loom predicts an unseen architecture: each point's learned latency
/// becomes the blend with the weight chosen without its own architecture; the split's and its groups' learned
/// statistics and the worst list are recomputed from the points. Returns the weights chosen over every
/// architecture (what `loom train` saves).
std::map<std::string, double> blend_unseen_architectures(ValidationReport& rep);

}  // namespace loom
