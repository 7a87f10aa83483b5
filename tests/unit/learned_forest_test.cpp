// The fast forest paths against the reference ones on the committed models and corpus rows: the batched evaluator
// and the packed binary form against the JSON forest walked row by row (bit-identical), that against XGBoost
// itself, and Predictor::predict_many against Predictor::predict.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <optional>

#include <zlib.h>

#include "analytical/features.h"
#include "hw/catalog.h"
#include "learned/corpus.h"
#include "learned/dataset.h"
#include "learned/forest.h"
#include "learned/model.h"
#include "learned/packed.h"
#include "learned/predictor.h"
#include "learned/xgb.h"
#include "scratch_dir.h"

namespace fs = std::filesystem;

namespace {

std::string gunzip(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  EXPECT_NE(f, nullptr) << path;
  std::string out;
  char buf[1 << 16];
  int n;
  while ((n = gzread(f, buf, sizeof buf)) > 0) out.append(buf, n);
  gzclose(f);
  return out;
}

// Every 9th row of the committed H200 corpus (about 3,600 kernels over every family), analysed once.
const loom::Dataset& corpus_sample() {
  static const loom::Dataset ds = [] {
    auto ms = loom::load_measurements(loom::data_dir() + "/traces/h200");
    std::vector<loom::Measurement> rows;
    for (size_t i = 0; i < ms.rows.size(); i += 9) rows.push_back(ms.rows[i]);
    return loom::build_dataset(rows, loom::Catalog::load());
  }();
  return ds;
}

// The GPU constants masked for forests of fewer than three GPUs must be real feature names (a typo would mask nothing).
TEST(LearnedForest, GpuConstantFeaturesAreFeatures) {
  const auto& names = loom::analysis_feature_names();
  for (const auto& c : loom::gpu_constant_feature_names())
    EXPECT_NE(std::find(names.begin(), names.end(), c), names.end()) << c;
}

TEST(LearnedForest, BatchedPackedAndXgboostAgreeOnCommittedModels) {
  const std::string dir = loom::default_model_dir();
  ASSERT_TRUE(fs::exists(dir + "/model.json"));
  const auto& ds = corpus_sample();
  ASSERT_GT(ds.samples.size(), 1000u);
  const size_t cols = ds.feature_names.size();
  std::map<std::string, std::vector<float>> x_by_family;
  for (const auto& s : ds.samples)
    x_by_family[s.m.family].insert(x_by_family[s.m.family].end(), s.x.begin(), s.x.end());
  size_t checked = 0;
  for (const auto& [family, x] : x_by_family) {
    for (const char* suffix : {".xgb.json.gz", ".q.xgb.json.gz"}) {
      const std::string file = dir + "/" + family + suffix;
      if (!fs::exists(file)) continue;
      const std::string json = gunzip(file);
      const loom::Forest f = loom::Forest::from_json(json);
      const loom::Forest packed = loom::Forest::from_binary(f.to_binary());
      ASSERT_EQ(f.num_features(), cols);
      const size_t n = x.size() / cols;
      const std::vector<float> ref = loom::xgb_predict(json, x, n, cols);
      // Pass 0: the trees as they are (a forest's first kLayoutFrom rows); pass 1: the SIMD walk's layout.
      for (int pass : {0, 1}) {
        SCOPED_TRACE(pass ? "SIMD layout" : "tree walk");
        if (pass) f.prepare_batch_layout(), packed.prepare_batch_layout();
        std::vector<float> batch(n), batch_packed(n);
        f.predict_batch(x.data(), n, cols, batch.data());
        packed.predict_batch(x.data(), n, cols, batch_packed.data());
        for (size_t r = 0; r < n; ++r) {
          const float one = f.predict(&x[r * cols]);
          ASSERT_EQ(one, batch[r]) << file << " row " << r;          // bit-identical
          ASSERT_EQ(one, batch_packed[r]) << file << " row " << r;   // the binary form loses nothing
          // XGBoost adds the same leaves (margin; identity link for these objectives), within float rounding.
          ASSERT_NEAR(one, ref[r], 1e-5 * (1 + std::fabs(ref[r]))) << file << " row " << r;
          ++checked;
        }
        // Batches whose last rows walk as a padded SIMD chunk (or scalar, below 12 rows): every row as predict().
        // Also AVX-512 blocks of four chunks, whole and cut short (128, 200, 256, 320, 575 rows).
        for (size_t m : {1, 11, 12, 13, 31, 33, 45, 63, 77, 108, 128, 200, 256, 320, 575}) {
          if (m > n) continue;
          std::vector<float> part(m);
          f.predict_batch(x.data() + (n - m) * cols, m, cols, part.data());
          for (size_t r = 0; r < m; ++r)
            ASSERT_EQ(batch[n - m + r], part[r]) << file << " last " << m << " row " << r;
        }
      }
    }
  }
  EXPECT_GT(checked, 2000u);
}

// Missing values (NaN: each split's default direction) and values on thresholds, through every walk (the AVX-512
// walk's column-wise top levels included): the batch equals predict() row by row.
TEST(LearnedForest, BatchWithMissingValuesEqualsPredict) {
  const std::string dir = loom::default_model_dir();
  ASSERT_TRUE(fs::exists(dir + "/model.json"));
  const auto& ds = corpus_sample();
  const size_t cols = ds.feature_names.size();
  for (const char* name : {"gemm", "attention_prefill", "rms_norm"}) {
    const loom::Forest f = loom::Forest::from_json(gunzip(dir + "/" + name + ".xgb.json.gz"));
    std::vector<float> x;
    for (const auto& s : ds.samples)
      if (s.m.family == name) x.insert(x.end(), s.x.begin(), s.x.end());
    uint32_t seed = 12345;
    for (float& v : x) {
      seed = seed * 1664525u + 1013904223u;
      if ((seed >> 24) < 40) v = std::numeric_limits<float>::quiet_NaN();  // ~16% missing
    }
    const size_t n = x.size() / cols;
    ASSERT_GT(n, 128u) << name;
    for (int pass : {0, 1}) {  // the trees as they are, then the SIMD walk's layout
      if (pass) f.prepare_batch_layout();
      std::vector<float> batch(n);
      f.predict_batch(x.data(), n, cols, batch.data());
      for (size_t r = 0; r < n; ++r) ASSERT_EQ(f.predict(&x[r * cols]), batch[r]) << name << " row " << r;
    }
  }
}

// A synthetic forest whose splits default left or right at random, with leaves at every level (pass-left slots in
// the top levels too), on rows with missing values and values equal to thresholds: every walk equals predict().
// Depth 6, and depth 10 (the levels the AVX-512 walk permutes from registers, 6-8, and gathers, 9) over several
// blocks of chunks and a tail.
TEST(LearnedForest, SyntheticDefaultsAndShallowLeavesEqualPredict) {
  for (const int max_depth : {6, 10}) {
    SCOPED_TRACE(max_depth);
    uint32_t seed = 7;
    auto next = [&seed] { return seed = seed * 1664525u + 1013904223u, seed >> 8; };
    const int cols = 9;
    std::string trees;
    for (int t = 0; t < 60; ++t) {
      std::vector<int> left, right, feat, defl;
      std::vector<float> cond;
      std::vector<int> depth_of;
      // Breadth-first random tree of depth <= max_depth: a node splits with probability 3/4 (always at the root).
      left.push_back(-1), right.push_back(-1), feat.push_back(0), defl.push_back(0), cond.push_back(0),
          depth_of.push_back(0);
      for (size_t i = 0; i < left.size(); ++i) {
        if (depth_of[i] >= max_depth || (i > 0 && next() % 4 == 0)) {
          cond[i] = float(int(next() % 2001) - 1000) / 100.0f;  // leaf value
          continue;
        }
        feat[i] = int(next() % cols), defl[i] = int(next() % 2), cond[i] = float(int(next() % 21) - 10);
        for (int c = 0; c < 2; ++c) {
          (c == 0 ? left[i] : right[i]) = int(left.size());
          left.push_back(-1), right.push_back(-1), feat.push_back(0), defl.push_back(0), cond.push_back(0),
              depth_of.push_back(depth_of[i] + 1);
        }
      }
      auto arr = [](const auto& v) {
        std::string a = "[";
        for (size_t i = 0; i < v.size(); ++i) a += (i ? "," : "") + std::to_string(v[i]);
        return a + "]";
      };
      trees += std::string(t ? "," : "") + "{\"left_children\":" + arr(left) + ",\"right_children\":" + arr(right) +
               ",\"split_indices\":" + arr(feat) + ",\"split_conditions\":" + arr(cond) +
               ",\"default_left\":" + arr(defl) + "}";
    }
    const std::string json = "{\"learner\":{\"learner_model_param\":{\"base_score\":\"0.5\",\"num_feature\":\"" +
                             std::to_string(cols) + "\"},\"gradient_booster\":{\"model\":{\"trees\":[" + trees +
                             "]}}}}";
    const loom::Forest f = loom::Forest::from_json(json);
    const size_t n = max_depth == 6 ? 300 : 700;
    std::vector<float> x(n * cols);
    for (float& v : x) {
      const uint32_t r = next();
      v = r % 5 == 0 ? std::numeric_limits<float>::quiet_NaN() : float(int(r % 25) - 12);  // on thresholds, often
    }
    for (int pass : {0, 1}) {  // the trees as they are, then the SIMD walk's layout
      if (pass) f.prepare_batch_layout();
      std::vector<float> batch(n);
      f.predict_batch(x.data(), n, cols, batch.data());
      for (size_t r = 0; r < n; ++r) ASSERT_EQ(f.predict(&x[r * cols]), batch[r]) << "row " << r;
    }
  }
}

TEST(LearnedForest, PredictManyEqualsPredictRowByRow) {
  const loom::Predictor predictor("learned");
  ASSERT_TRUE(predictor.learned());
  const loom::Catalog catalog = loom::Catalog::load();
  const auto& ds = corpus_sample();
  std::map<std::string, loom::GpuSpec> gpus;
  std::vector<const loom::GpuSpec*> gp;
  std::vector<loom::KernelSpec> specs;
  for (size_t i = 0; i < ds.samples.size(); i += 3) {
    const auto& m = ds.samples[i].m;
    const std::string key = m.gpu_key + ":" + std::to_string(m.sms);
    if (!gpus.count(key)) gpus.emplace(key, loom::measurement_gpu(catalog, m.gpu_key, m.sms));
    gp.push_back(&gpus.at(key));
    specs.push_back(loom::parse_kernel_spec(m.spec));
  }
  // Rows repeated later in the batch (same GPU and spec) are copied from their first occurrence: still predict()'s.
  const size_t distinct = specs.size();
  for (size_t i = 0; i < distinct; i += 2) gp.push_back(gp[i]), specs.push_back(specs[i]);
  std::vector<loom::Prediction> many;
  // On one thread and on three (phase 1's rows in chunks, phase 2's forests cut into pieces of >= 256 rows and
  // walked concurrently, several forests loading at once): the same predictions.
  size_t most_of_a_family = 0;
  for (const auto& s : specs)
    most_of_a_family = std::max<size_t>(
        most_of_a_family, std::count_if(specs.begin(), specs.end(), [&](const auto& o) { return o.family == s.family; }));
  ASSERT_GE(most_of_a_family, 512u) << "no family has rows enough to be cut into pieces";
  for (int threads : {1, 3})
  for (bool ach : {false, true}) {
    SCOPED_TRACE(threads);
    predictor.clear_memo();  // else the second pass is served by the memo
    predictor.predict_many(gp, specs, ach, many, threads);
    ASSERT_EQ(many.size(), specs.size());
    for (size_t i = 0; i < specs.size(); ++i) {
      const loom::Prediction one = predictor.predict(*gp[i], specs[i], ach);
      ASSERT_EQ(one.latency_us, many[i].latency_us) << specs[i].family;
      ASSERT_EQ(one.model, many[i].model);
      ASSERT_EQ(one.analysis->config, many[i].analysis->config);
      ASSERT_EQ(one.analysis->ceiling_us, many[i].analysis->ceiling_us);
      ASSERT_EQ(one.achievable_us.has_value(), many[i].achievable_us.has_value());
      if (one.achievable_us) ASSERT_EQ(*one.achievable_us, *many[i].achievable_us);
    }
  }
}

TEST(LearnedForest, BinaryFormRefusesDamage) {
  const std::string json = gunzip(loom::default_model_dir() + "/rms_norm.xgb.json.gz");
  const std::string bin = loom::Forest::from_json(json).to_binary();
  EXPECT_THROW(loom::Forest::from_binary(bin.substr(0, bin.size() - 3)), std::runtime_error);
  std::string magic = bin;
  magic[7] = '0';  // another version
  EXPECT_THROW(loom::Forest::from_binary(magic), std::runtime_error);
  std::string bad = bin;
  bad[bad.size() - 8] ^= 0x40;  // a child index in the last node
  EXPECT_THROW(loom::Forest::from_binary(bad), std::runtime_error);
  // A packed file built from another JSON (hash or .gz size differs) is not used.
  const loom::test::ScratchDir scratch;
  const std::string tmp = scratch.file("forest.lfb");
  { std::ofstream(tmp, std::ios::binary) << loom::pack_forest(loom::Forest::from_json(json), "abc", 10); }
  EXPECT_TRUE(loom::load_packed(tmp, "abc", 10).has_value());
  EXPECT_FALSE(loom::load_packed(tmp, "abd", 10).has_value());
  EXPECT_FALSE(loom::load_packed(tmp, "abc", 11).has_value());
  // A damaged packed file (a child index in its last node) is not used either: the JSON is read instead.
  {
    std::string packed = loom::pack_forest(loom::Forest::from_json(json), "abc", 10);
    packed[packed.size() - 8] ^= 0x40;
    std::ofstream(tmp, std::ios::binary | std::ios::trunc) << packed;
  }
  EXPECT_FALSE(loom::load_packed(tmp, "abc", 10).has_value());
}

TEST(LearnedForest, InPlaceAndCopiedBinaryFormsPredictAsTheJson) {
  // The packed file's forest walks its arrays in the mapping (load_packed); from_binary_in_place copies arrays that
  // are not 4-byte aligned; from_binary always copies. All three predict exactly what the JSON forest predicts,
  // and a copy of the in-place forest outlives the one it was copied from.
  const std::string json = gunzip(loom::default_model_dir() + "/gemm.xgb.json.gz");
  const loom::Forest ref = loom::Forest::from_json(json);
  const std::string bin = ref.to_binary();
  const loom::test::ScratchDir scratch;
  const std::string tmp = scratch.file("gemm.lfb");
  { std::ofstream(tmp, std::ios::binary) << loom::pack_forest(ref, "h", 1); }
  std::optional<loom::Forest> packed = loom::load_packed(tmp, "h", 1);
  ASSERT_TRUE(packed.has_value());
  const loom::Forest kept = *packed;  // shares the mapping
  packed.reset();
  std::string shifted = "x" + bin;  // the arrays one byte off alignment in this buffer
  const auto unaligned = loom::Forest::from_binary_in_place(std::string_view(shifted).substr(1), std::make_shared<int>(0));
  const auto copied = loom::Forest::from_binary(bin);
  const size_t cols = ref.num_features(), n = 300;
  std::vector<float> x(n * cols);
  uint32_t state = 12345;
  for (float& v : x) state = state * 1664525u + 1013904223u, v = float(int(state >> 20) % 4000 - 1000) / 7.0f;
  std::vector<float> a(n), b(n), c(n);
  kept.predict_batch(x.data(), n, cols, a.data());
  unaligned.predict_batch(x.data(), n, cols, b.data());
  copied.predict_batch(x.data(), n, cols, c.data());
  for (size_t r = 0; r < n; ++r) {
    const float want = ref.predict(&x[r * cols]);
    ASSERT_EQ(a[r], want) << r;
    ASSERT_EQ(b[r], want) << r;
    ASSERT_EQ(c[r], want) << r;
  }
  EXPECT_EQ(kept.num_trees(), ref.num_trees());
}

}  // namespace
