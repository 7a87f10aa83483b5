// XGBoost C API wrapper: DMatrix/Booster lifetimes, parameters, a pinball-loss custom objective, JSON export.
#include "learned/xgb.h"

#include <xgboost/c_api.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>

namespace loom {

namespace {

void check(int rc, const char* what) {
  if (rc != 0) throw std::runtime_error(std::string("xgboost: ") + what + ": " + XGBGetLastError());
}

struct DMatrix {
  DMatrixHandle h = nullptr;
  DMatrix(const std::vector<float>& x, size_t rows, size_t cols) {
    check(XGDMatrixCreateFromMat(x.data(), rows, cols, NAN, &h), "DMatrixCreateFromMat");
  }
  ~DMatrix() { XGDMatrixFree(h); }
  DMatrix(const DMatrix&) = delete;
  DMatrix& operator=(const DMatrix&) = delete;
};

struct Booster {
  BoosterHandle h = nullptr;
  explicit Booster(DMatrixHandle* dm, size_t n) { check(XGBoosterCreate(dm, n, &h), "BoosterCreate"); }
  ~Booster() { XGBoosterFree(h); }
  void set(const char* k, const std::string& v) { check(XGBoosterSetParam(h, k, v.c_str()), k); }
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
  check(XGDMatrixSetFloatInfo(train.h, "label", y.data(), rows), "SetFloatInfo(label)");
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
      check(XGBoosterUpdateOneIter(b.h, it, train.h), "UpdateOneIter");
      continue;
    }
    // Pinball loss L = max(q*(y-f), (q-1)*(y-f)): gradient -q below the label, 1-q above; unit hessian.
    bst_ulong n = 0;
    const float* margin = nullptr;
    check(XGBoosterPredict(b.h, train.h, /*output_margin*/ 1, 0, /*training*/ 1, &n, &margin), "Predict");
    for (size_t i = 0; i < rows; ++i)
      grad[i] = margin[i] < y[i] ? static_cast<float>(-p.quantile) : static_cast<float>(1.0 - p.quantile);
    check(XGBoosterBoostOneIter(b.h, train.h, grad.data(), hess.data(), rows), "BoostOneIter");
  }
  bst_ulong len = 0;
  const char* buf = nullptr;
  check(XGBoosterSaveModelToBuffer(b.h, R"({"format": "json"})", &len, &buf), "SaveModelToBuffer");
  return std::string(buf, len);
}

std::vector<float> xgb_predict(const std::string& model_json, const std::vector<float>& x, size_t rows,
                               size_t cols) {
  DMatrix dm(x, rows, cols);
  Booster b(nullptr, 0);
  check(XGBoosterLoadModelFromBuffer(b.h, model_json.data(), model_json.size()), "LoadModelFromBuffer");
  bst_ulong n = 0;
  const float* out = nullptr;
  check(XGBoosterPredict(b.h, dm.h, 0, 0, 0, &n, &out), "Predict");
  return std::vector<float>(out, out + n);
}

}  // namespace loom
