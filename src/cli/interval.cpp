// Band predictors behind `loom e2e --interval` (see interval.h).
#include "cli/interval.h"

#include "learned/predictor.h"
#include "learned/uncertainty.h"

namespace loom::cli {

BandPredictors band_predictors(const Args& args) {
  auto predictor = std::make_shared<Predictor>(args.get("--kernel-model", "learned"));
  predictor->set_clock(parse_clock_mode(args.get("--clock", "boost")));
  std::shared_ptr<const Coverage> cov;
  if (predictor->learned()) cov = std::make_shared<const Coverage>(Coverage::load(default_model_dir()));
  BandPredictors b;
  b.notes = std::make_shared<std::set<std::string>>();
  auto bound = [predictor, cov, notes = b.notes](bool upper) {
    return [predictor, cov, notes, upper](const GpuSpec& g, const KernelSpec& s) {
      const Prediction p = predictor->predict(g, s, false);
      const Uncertainty u = assess_prediction(cov.get(), p, g, s);
      for (const auto& r : u.reasons) notes->insert(r);
      return upper ? u.hi_us : u.lo_us;
    };
  };
  b.lo = bound(false);
  b.hi = bound(true);
  return b;
}

}  // namespace loom::cli
