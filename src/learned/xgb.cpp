// XGBoost C API wrapper: DMatrix/Booster lifetimes, parameters, a pinball-loss custom objective, JSON export.
// libxgboost is opened on first use (dlopen), not linked: only training and the reference predictor need it, and
// loading it (with libdmlc and libgomp) cost every loom process ~3 ms of start-up.
#include "learned/xgb.h"

#include <dlfcn.h>
#include <xgboost/c_api.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <mutex>
#include <stdexcept>

#ifndef LOOM_XGBOOST_LIBRARY
#define LOOM_XGBOOST_LIBRARY "libxgboost.so"
#endif

namespace loom {

namespace {

/// The C API functions loom calls, resolved from libxgboost on first use. Throws std::runtime_error if the
/// library or a function is missing.
struct Api {
#define LOOM_XGB_FN(name) decltype(&::name) name = nullptr;
#define LOOM_XGB_ALL                                                                                             \
  LOOM_XGB_FN(XGBGetLastError) LOOM_XGB_FN(XGDMatrixCreateFromMat) LOOM_XGB_FN(XGDMatrixFree)                     \
  LOOM_XGB_FN(XGDMatrixSetFloatInfo) LOOM_XGB_FN(XGBoosterCreate) LOOM_XGB_FN(XGBoosterFree)                      \
  LOOM_XGB_FN(XGBoosterSetParam) LOOM_XGB_FN(XGBoosterUpdateOneIter) LOOM_XGB_FN(XGBoosterBoostOneIter)           \
  LOOM_XGB_FN(XGBoosterPredict) LOOM_XGB_FN(XGBoosterSaveModelToBuffer) LOOM_XGB_FN(XGBoosterLoadModelFromBuffer)
  LOOM_XGB_ALL
#undef LOOM_XGB_FN
};

const Api& xgb() {
  static Api api;
  static std::once_flag once;
  static std::string error;
  std::call_once(once, [] {
    void* lib = nullptr;
    for (const char* name : {LOOM_XGBOOST_LIBRARY, "libxgboost.so.0", "libxgboost.so"})
      if ((lib = ::dlopen(name, RTLD_NOW | RTLD_LOCAL))) break;
    if (!lib) {
      error = std::string("cannot load libxgboost (needed to train): ") + ::dlerror();
      return;
    }
#define LOOM_XGB_FN(name)                                                     \
  api.name = reinterpret_cast<decltype(&::name)>(::dlsym(lib, #name));        \
  if (!api.name && error.empty()) error = "libxgboost has no function " #name;
    LOOM_XGB_ALL
#undef LOOM_XGB_FN
  });
  if (!error.empty()) throw std::runtime_error("xgboost: " + error);
  return api;
}
#undef LOOM_XGB_ALL

void check(int rc, const char* what) {
  if (rc != 0) throw std::runtime_error(std::string("xgboost: ") + what + ": " + xgb().XGBGetLastError());
}

struct DMatrix {
  DMatrixHandle h = nullptr;
  DMatrix(const std::vector<float>& x, size_t rows, size_t cols) {
    check(xgb().XGDMatrixCreateFromMat(x.data(), rows, cols, NAN, &h), "DMatrixCreateFromMat");
  }
  ~DMatrix() { xgb().XGDMatrixFree(h); }
  DMatrix(const DMatrix&) = delete;
  DMatrix& operator=(const DMatrix&) = delete;
};

struct Booster {
  BoosterHandle h = nullptr;
  explicit Booster(DMatrixHandle* dm, size_t n) { check(xgb().XGBoosterCreate(dm, n, &h), "BoosterCreate"); }
  ~Booster() { xgb().XGBoosterFree(h); }
  void set(const char* k, const std::string& v) { check(xgb().XGBoosterSetParam(h, k, v.c_str()), k); }
  Booster(const Booster&) = delete;
  Booster& operator=(const Booster&) = delete;
};

double median(std::vector<float> v) {
  if (v.empty()) return 0;
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

}  // namespace

std::string xgb_train(const std::vector<float>& x, size_t rows, size_t cols, const std::vector<float>& y,
                      const XgbParams& p) {
  if (rows == 0 || y.size() != rows || x.size() != rows * cols)
    throw std::runtime_error("xgboost: training matrix and labels disagree in size (or are empty)");
  DMatrix train(x, rows, cols);
  check(xgb().XGDMatrixSetFloatInfo(train.h, "label", y.data(), rows), "SetFloatInfo(label)");
  Booster b(&train.h, 1);
  b.set("tree_method", "hist");
  b.set("objective", "reg:squarederror");
  b.set("max_depth", std::to_string(p.max_depth));
  b.set("eta", std::to_string(p.eta));
  b.set("subsample", std::to_string(p.subsample));
  b.set("colsample_bytree", std::to_string(p.colsample_bytree));
  b.set("min_child_weight", std::to_string(p.min_child_weight));
  b.set("lambda", std::to_string(p.lambda));
  b.set("nthread", std::to_string(p.nthread));
  b.set("seed", std::to_string(p.seed));
  // Starting from the label median makes both objectives converge faster than XGBoost's default 0.5.
  b.set("base_score", std::to_string(median(y)));
  b.set("verbosity", "0");

  std::vector<float> grad(rows), hess(rows, 1.0f);
  for (int it = 0; it < p.rounds; ++it) {
    if (p.quantile <= 0) {
      check(xgb().XGBoosterUpdateOneIter(b.h, it, train.h), "UpdateOneIter");
      continue;
    }
    // Pinball loss L = max(q*(y-f), (q-1)*(y-f)): gradient -q below the label, 1-q above; unit hessian.
    bst_ulong n = 0;
    const float* margin = nullptr;
    check(xgb().XGBoosterPredict(b.h, train.h, /*output_margin*/ 1, 0, /*training*/ 1, &n, &margin), "Predict");
    for (size_t i = 0; i < rows; ++i)
      grad[i] = margin[i] < y[i] ? static_cast<float>(-p.quantile) : static_cast<float>(1.0 - p.quantile);
    check(xgb().XGBoosterBoostOneIter(b.h, train.h, grad.data(), hess.data(), rows), "BoostOneIter");
  }
  bst_ulong len = 0;
  const char* buf = nullptr;
  check(xgb().XGBoosterSaveModelToBuffer(b.h, R"({"format": "json"})", &len, &buf), "SaveModelToBuffer");
  return std::string(buf, len);
}

std::vector<float> xgb_predict(const std::string& model_json, const std::vector<float>& x, size_t rows,
                               size_t cols) {
  DMatrix dm(x, rows, cols);
  Booster b(nullptr, 0);
  check(xgb().XGBoosterLoadModelFromBuffer(b.h, model_json.data(), model_json.size()), "LoadModelFromBuffer");
  bst_ulong n = 0;
  const float* out = nullptr;
  check(xgb().XGBoosterPredict(b.h, dm.h, 0, 0, 0, &n, &out), "Predict");
  return std::vector<float>(out, out + n);
}

}  // namespace loom
