// Parses XGBoost 1.7 JSON models into flat node arrays and walks them.
#include "learned/forest.h"

#include <cmath>
#include <stdexcept>

#include <nlohmann/json.hpp>

namespace loom {

Forest Forest::from_json(const std::string& json) {
  Forest f;
  try {
    auto j = nlohmann::json::parse(json);
    const auto& learner = j.at("learner");
    f.base_score_ = std::stof(learner.at("learner_model_param").at("base_score").get<std::string>());
    f.num_features_ = std::stoul(learner.at("learner_model_param").at("num_feature").get<std::string>());
    for (const auto& t : learner.at("gradient_booster").at("model").at("trees")) {
      const auto& left = t.at("left_children");
      const auto& right = t.at("right_children");
      const auto& feat = t.at("split_indices");
      const auto& cond = t.at("split_conditions");
      const auto& defl = t.at("default_left");
      const int32_t offset = static_cast<int32_t>(f.nodes_.size());
      f.roots_.push_back(offset);
      for (size_t i = 0; i < left.size(); ++i) {
        int32_t l = left[i].get<int32_t>(), r = right[i].get<int32_t>();
        f.nodes_.push_back({l < 0 ? -1 : l + offset, r < 0 ? -1 : r + offset, feat[i].get<int32_t>(),
                            cond[i].get<float>(), defl[i].get<int>() != 0});
      }
    }
  } catch (const std::exception& e) {
    throw std::runtime_error(std::string("malformed XGBoost JSON model: ") + e.what());
  }
  return f;
}

float Forest::predict(const float* x) const {
  float sum = base_score_;
  for (int32_t root : roots_) {
    const Node* n = &nodes_[root];
    while (n->left >= 0) {
      float v = x[n->feature];
      int32_t next = std::isnan(v) ? (n->default_left ? n->left : n->right) : (v < n->value ? n->left : n->right);
      n = &nodes_[next];
    }
    sum += n->value;
  }
  return sum;
}

}  // namespace loom
