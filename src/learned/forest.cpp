// Parses XGBoost 1.7 JSON models into flat node arrays (breadth-first, sibling children adjacent), reads and writes
// their compact binary form, and walks them one row at a time or in blocks of rows.
#include "learned/forest.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <mutex>
#include <stdexcept>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include <nlohmann/json.hpp>

namespace loom {

namespace {

// Binary form: magic, endianness marker, then the header fields and the three arrays, all 4-byte little-endian
// words (the node struct is three 4-byte words, no padding). Version bumps change the magic.
constexpr char kMagic[8] = {'L', 'O', 'O', 'M', 'F', 'S', 'T', '1'};
constexpr uint32_t kEndian = 0x01020304u;

template <class T>
void put(std::string& out, const T& v) {
  out.append(reinterpret_cast<const char*>(&v), sizeof v);
}

template <class T>
void get(std::string_view in, size_t& pos, T* v, size_t n = 1) {
  if (n > (in.size() - pos) / sizeof(T)) throw std::runtime_error("truncated binary forest");
  std::memcpy(static_cast<void*>(v), in.data() + pos, n * sizeof(T));
  pos += n * sizeof(T);
}

}  // namespace

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
      const size_t n = left.size();
      if (n == 0 || right.size() != n || feat.size() != n || cond.size() != n || defl.size() != n)
        throw std::runtime_error("tree arrays of different lengths");
      // Breadth-first relayout: a split's children are allocated as a pair, so right = left + 1, and every child
      // sits after its parent (walks terminate; validate() checks the same on binary input).
      const int32_t offset = static_cast<int32_t>(f.nodes_.size());
      std::vector<int32_t> order{0}, depth{0};
      std::vector<char> seen(n, 0);
      seen[0] = 1;
      f.nodes_.resize(offset + n);
      int32_t max_depth = 0;
      for (size_t q = 0; q < order.size(); ++q) {
        const int32_t old = order[q];
        const int32_t me = offset + static_cast<int32_t>(q);
        const int32_t l = left[old].get<int32_t>(), r = right[old].get<int32_t>();
        Node& node = f.nodes_[me];
        node.value = cond[old].get<float>();
        if (l < 0) {
          node.left = me;
          node.meta = 0;
          max_depth = std::max(max_depth, depth[q]);
          continue;
        }
        if (r < 0 || static_cast<size_t>(l) >= n || static_cast<size_t>(r) >= n || seen[l] || seen[r])
          throw std::runtime_error("tree children out of range or shared");
        const int32_t fi = feat[old].get<int32_t>();
        if (fi < 0 || static_cast<uint32_t>(fi) > kFeature) throw std::runtime_error("split feature out of range");
        seen[l] = seen[r] = 1;
        node.left = offset + static_cast<int32_t>(order.size());
        node.meta = static_cast<uint32_t>(fi) | (defl[old].get<int>() != 0 ? kDefaultLeft : 0) | kSplit;
        order.push_back(l);
        order.push_back(r);
        depth.push_back(depth[q] + 1);
        depth.push_back(depth[q] + 1);
      }
      if (order.size() != n) throw std::runtime_error("tree has unreachable nodes");
      f.roots_.push_back(offset);
      f.depth_.push_back(max_depth);
    }
    f.validate();
    f.perfect_ = std::make_shared<PerfectOnce>();
  } catch (const std::exception& e) {
    throw std::runtime_error(std::string("malformed XGBoost JSON model: ") + e.what());
  }
  return f;
}

void Forest::validate() const {
  const size_t n = nodes_.size();
  if (depth_.size() != roots_.size()) throw std::runtime_error("depth table does not match the trees");
  for (size_t t = 0; t < roots_.size(); ++t) {
    const int64_t begin = roots_[t], end = t + 1 < roots_.size() ? roots_[t + 1] : static_cast<int64_t>(n);
    if (begin < 0 || begin >= end || end > static_cast<int64_t>(n)) throw std::runtime_error("tree roots out of order");
    if (depth_[t] < 0 || depth_[t] > 64) throw std::runtime_error("tree depth out of range");
    std::vector<int32_t> level(end - begin, -1);
    level[0] = 0;
    for (int64_t i = begin; i < end; ++i) {
      const Node& node = nodes_[i];
      if (level[i - begin] < 0) throw std::runtime_error("unreachable node");
      if (!(node.meta & kSplit)) {
        if (node.left != i || (node.meta & ~kSplit) != 0 || level[i - begin] > depth_[t])
          throw std::runtime_error("bad leaf");
        continue;
      }
      if (node.left <= i || node.left + 1 >= end || (node.meta & kFeature) >= num_features_)
        throw std::runtime_error("split child or feature out of range");
      for (int32_t c : {node.left, node.left + 1}) {
        if (level[c - begin] >= 0) throw std::runtime_error("shared child");
        level[c - begin] = level[i - begin] + 1;
      }
    }
  }
}

struct Forest::PerfectOnce {
  std::once_flag once;
  Perfect perfect;
};

const Forest::Perfect& Forest::perfect() const {
  static const Perfect none;
  if (!perfect_) return none;
  std::call_once(perfect_->once, [this] { perfect_->perfect = build_perfect(); });
  return perfect_->perfect;
}

Forest::Perfect Forest::build_perfect() const {
  Perfect p;
  int32_t depth = 0;
  for (int32_t d : depth_) depth = std::max(depth, d);
  if (depth < 1 || depth > 8 || num_features_ >= kPassLeft) return p;
  const size_t inner = (size_t(1) << depth) - 1, leaves = size_t(1) << depth, nt = roots_.size();
  // 32 words of padding: the walk loads 8 words from offsets 7, 15 and 23 of a tree, past the end of a shallow
  // last one (levels it does not walk; the words are never used).
  p.threshold.assign(nt * inner + 32, 0.0f);
  p.word.assign(nt * inner + 32, kPassLeft);
  p.leaf.assign(nt * leaves, 0.0f);
  for (size_t t = 0; t < nt; ++t) {
    float* thr = p.threshold.data() + t * inner;
    uint32_t* word = p.word.data() + t * inner;
    float* leaf = p.leaf.data() + t * leaves;
    std::vector<std::pair<int32_t, size_t>> todo{{roots_[t], 0}};  // (node, slot in the perfect tree)
    while (!todo.empty()) {
      auto [i, slot] = todo.back();
      todo.pop_back();
      const Node& nd = nodes_[i];
      if (nd.meta & kSplit) {
        thr[slot] = nd.value;
        word[slot] = (nd.meta & kFeature) | (nd.meta & kDefaultLeft);
        todo.push_back({nd.left, 2 * slot + 1});
        todo.push_back({nd.left + 1, 2 * slot + 2});
        continue;
      }
      while (slot < inner) slot = 2 * slot + 1;  // pass-left slots (the default) down to the leftmost leaf slot
      leaf[slot - inner] = nd.value;
    }
  }
  p.depth = depth;
  return p;
}

std::string Forest::to_binary() const {
  std::string out(kMagic, sizeof kMagic);
  put(out, kEndian);
  put(out, static_cast<uint32_t>(num_features_));
  put(out, base_score_);
  put(out, static_cast<uint32_t>(roots_.size()));
  put(out, static_cast<uint32_t>(nodes_.size()));
  out.append(reinterpret_cast<const char*>(roots_.data()), roots_.size() * sizeof(int32_t));
  out.append(reinterpret_cast<const char*>(depth_.data()), depth_.size() * sizeof(int32_t));
  out.append(reinterpret_cast<const char*>(nodes_.data()), nodes_.size() * sizeof(Node));
  return out;
}

Forest Forest::from_binary(std::string_view bytes) {
  static_assert(sizeof(Node) == 12, "Node must be three packed 4-byte words");
  Forest f;
  size_t pos = 0;
  char magic[8];
  get(bytes, pos, magic, 8);
  if (std::memcmp(magic, kMagic, 8) != 0) throw std::runtime_error("not a loom binary forest (bad magic)");
  uint32_t endian = 0, nf = 0, nt = 0, nn = 0;
  get(bytes, pos, &endian);
  if (endian != kEndian) throw std::runtime_error("binary forest of another byte order");
  get(bytes, pos, &nf);
  get(bytes, pos, &f.base_score_);
  get(bytes, pos, &nt);
  get(bytes, pos, &nn);
  if (nf == 0 || nf > (1u << 20) || nt > (1u << 24) || nn > (1u << 28)) throw std::runtime_error("binary forest header out of range");
  // The counts must account for the rest of the file exactly, before anything is allocated from them (a header
  // claiming 2^28 nodes in a short file must not allocate 3 GB).
  const uint64_t body = uint64_t(nt) * (sizeof(int32_t) + sizeof(int32_t)) + uint64_t(nn) * sizeof(Node);
  if (bytes.size() < pos || bytes.size() - pos != body)
    throw std::runtime_error("binary forest is truncated or has trailing bytes (header counts disagree with its size)");
  f.num_features_ = nf;
  f.roots_.resize(nt);
  f.depth_.resize(nt);
  f.nodes_.resize(nn);
  get(bytes, pos, f.roots_.data(), nt);
  get(bytes, pos, f.depth_.data(), nt);
  get(bytes, pos, f.nodes_.data(), nn);
  if (pos != bytes.size() || !std::isfinite(f.base_score_)) throw std::runtime_error("binary forest has trailing bytes or a bad base score");
  f.validate();
  f.perfect_ = std::make_shared<PerfectOnce>();
  return f;
}

float Forest::predict(const float* x) const {
  // Eight trees walk in lock-step for the deepest one's depth (a leaf points at itself), so eight dependent load
  // chains overlap; their leaves are then added in tree order: the same float sums as a tree-at-a-time walk.
  constexpr size_t kLanes = 8;
  float sum = base_score_;
  const Node* nodes = nodes_.data();
  const size_t nt = roots_.size();
  size_t t = 0;
  for (; t + kLanes <= nt; t += kLanes) {
    int32_t idx[kLanes];
    int32_t depth = 0;
    for (size_t j = 0; j < kLanes; ++j) idx[j] = roots_[t + j], depth = std::max(depth, depth_[t + j]);
    for (int32_t d = 0; d < depth; ++d)
      for (size_t j = 0; j < kLanes; ++j) {
        const Node& nd = nodes[idx[j]];
        const float v = x[nd.meta & kFeature];
        const int32_t right = std::isnan(v) ? !(nd.meta & kDefaultLeft) : !(v < nd.value);
        idx[j] = nd.left + (right & static_cast<int32_t>(nd.meta >> 31));
      }
    for (size_t j = 0; j < kLanes; ++j) sum += nodes[idx[j]].value;
  }
  for (; t < nt; ++t) {
    const Node* n = &nodes[roots_[t]];
    while (n->meta & kSplit) {
      const float v = x[n->meta & kFeature];
      const bool right = std::isnan(v) ? !(n->meta & kDefaultLeft) : !(v < n->value);
      n = &nodes[n->left + right];
    }
    sum += n->value;
  }
  return sum;
}

namespace {

#if defined(__x86_64__) && defined(__GNUC__)
#define LOOM_FOREST_AVX2 1
// Rows walked by the AVX2 evaluator per tree: four vectors of eight, so four independent gather chains overlap.
constexpr size_t kVecRows = 8, kVecGroups = 4, kVecChunk = kVecRows * kVecGroups;

bool cpu_has_avx2() {
  static const bool has = __builtin_cpu_supports("avx2");
  return has;
}

// Rows [0, n - n % 32) of predict_batch, eight rows per 256-bit vector, over the perfect-tree arrays (forest.h):
// `inner` = 2^depth - 1 slots per tree. A lane at slot i goes to 2i+1 (left) or 2i+2 (right), right exactly when
// the scalar walk goes right (NaN: !default_left, else !(v < threshold)); pass-left slots below a leaf always go
// left, to the slot holding that leaf's value. The first four levels (15 slots) take their thresholds and words
// from two 8-slot loads by an in-register permute, the fifth (16 slots) from two more and a blend; deeper levels
// gather them; every level gathers the rows' feature
// values. Each lane adds its tree's leaf to its own accumulator in tree order from base_score: the scalar walk's
// float additions in its order (no FMA, no reassociation). Returns the rows done.
__attribute__((target("avx2"))) size_t walk_avx2(const float* thresholds, const uint32_t* words_u, const float* leaves,
                                                 int32_t depth, size_t trees, float base_score, const float* x,
                                                 size_t n, size_t stride, uint32_t feature_bits,
                                                 uint32_t default_left_bit, uint32_t pass_left_bit, float* out) {
  const int32_t* words = reinterpret_cast<const int32_t*>(words_u);
  const size_t inner = (size_t(1) << depth) - 1, leaf_count = size_t(1) << depth;
  const __m256i row_off = _mm256_mullo_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7),
                                             _mm256_set1_epi32(static_cast<int>(stride)));
  const __m256i feature_mask = _mm256_set1_epi32(static_cast<int>(feature_bits));
  const __m256i default_left = _mm256_set1_epi32(static_cast<int>(default_left_bit));
  const __m256i pass_left = _mm256_set1_epi32(static_cast<int>(pass_left_bit));
  const __m256i one = _mm256_set1_epi32(1);
  const __m256i inner_v = _mm256_set1_epi32(static_cast<int>(inner));
  const __m256i fifteen = _mm256_set1_epi32(15);
  size_t r = 0;
  for (; r + kVecChunk <= n; r += kVecChunk) {
    __m256 acc[kVecGroups];
    for (size_t g = 0; g < kVecGroups; ++g) acc[g] = _mm256_set1_ps(base_score);
    for (size_t t = 0; t < trees; ++t) {
      const float* thr = thresholds + t * inner;
      const int32_t* word = words + t * inner;
      // Slots 0-7 (levels 0-2, and slot 7) and 7-14 (level 3) in registers.
      const __m256 thr_lo = _mm256_loadu_ps(thr), thr_hi = _mm256_loadu_ps(thr + 7);
      const __m256i word_lo = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(word));
      const __m256i word_hi = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(word + 7));
      __m256i slot[kVecGroups];
      for (size_t g = 0; g < kVecGroups; ++g) slot[g] = _mm256_setzero_si256();
      for (int32_t d = 0; d < depth; ++d)
        for (size_t g = 0; g < kVecGroups; ++g) {
          __m256 threshold;
          __m256i w;
          if (d < 3) {
            threshold = _mm256_permutevar8x32_ps(thr_lo, slot[g]);
            w = _mm256_permutevar8x32_epi32(word_lo, slot[g]);
          } else if (d == 3) {  // slots 7-14: (slot + 1) mod 8 indexes the registers loaded from slot 7
            const __m256i k = _mm256_add_epi32(slot[g], one);
            threshold = _mm256_permutevar8x32_ps(thr_hi, k);
            w = _mm256_permutevar8x32_epi32(word_hi, k);
          } else if (d == 4) {  // slots 15-30: two 8-slot loads each, permuted, the upper half chosen by bit 3
            const __m256i k = _mm256_sub_epi32(slot[g], fifteen);
            const __m256i upper = _mm256_slli_epi32(k, 28);  // bit 3 to the sign bit
            threshold = _mm256_blendv_ps(_mm256_permutevar8x32_ps(_mm256_loadu_ps(thr + 15), k),
                                         _mm256_permutevar8x32_ps(_mm256_loadu_ps(thr + 23), k),
                                         _mm256_castsi256_ps(upper));
            w = _mm256_castps_si256(_mm256_blendv_ps(
                _mm256_castsi256_ps(_mm256_permutevar8x32_epi32(
                    _mm256_loadu_si256(reinterpret_cast<const __m256i*>(word + 15)), k)),
                _mm256_castsi256_ps(_mm256_permutevar8x32_epi32(
                    _mm256_loadu_si256(reinterpret_cast<const __m256i*>(word + 23)), k)),
                _mm256_castsi256_ps(upper)));
          } else {
            threshold = _mm256_i32gather_ps(thr, slot[g], 4);
            w = _mm256_i32gather_epi32(word, slot[g], 4);
          }
          const float* rows = x + (r + g * kVecRows) * stride;
          const __m256 v = _mm256_i32gather_ps(rows, _mm256_add_epi32(row_off, _mm256_and_si256(w, feature_mask)), 4);
          const __m256i lt = _mm256_castps_si256(_mm256_cmp_ps(v, threshold, _CMP_LT_OQ));
          const __m256i nan = _mm256_castps_si256(_mm256_cmp_ps(v, v, _CMP_UNORD_Q));
          const __m256i defl = _mm256_cmpeq_epi32(_mm256_and_si256(w, default_left), default_left);
          const __m256i pass = _mm256_cmpeq_epi32(_mm256_and_si256(w, pass_left), pass_left);
          const __m256i go_left = _mm256_or_si256(_mm256_or_si256(lt, pass), _mm256_and_si256(nan, defl));
          const __m256i right = _mm256_andnot_si256(go_left, one);
          slot[g] = _mm256_add_epi32(_mm256_add_epi32(slot[g], slot[g]), _mm256_add_epi32(one, right));
        }
      const float* leaf = leaves + t * leaf_count;
      for (size_t g = 0; g < kVecGroups; ++g)
        acc[g] = _mm256_add_ps(acc[g], _mm256_i32gather_ps(leaf, _mm256_sub_epi32(slot[g], inner_v), 4));
    }
    for (size_t g = 0; g < kVecGroups; ++g) _mm256_storeu_ps(out + r + g * kVecRows, acc[g]);
  }
  return r;
}
#endif

}  // namespace

void Forest::predict_batch(const float* x, size_t n, size_t stride, float* out) const {
  size_t done = 0;
#ifdef LOOM_FOREST_AVX2
  // Where the CPU has AVX2 (chosen at run time; the build stays baseline x86-64) and offsets fit 32-bit lanes.
  if (n >= kVecChunk && stride < (size_t(1) << 24) && cpu_has_avx2()) {
    const Perfect& p = perfect();
    if (p.depth > 0)
      done = walk_avx2(p.threshold.data(), p.word.data(), p.leaf.data(), p.depth, roots_.size(), base_score_, x, n,
                       stride, kPassLeft - 1, kDefaultLeft, kPassLeft, out);
  }
#endif
  // The rest (all rows without AVX2): the same walk, scalar.
  x += done * stride, out += done, n -= done;
  // Rows in chunks whose features stay in L1; within a chunk, trees outermost (one tree's nodes stay in L1 while
  // the chunk walks it); eight rows walk in lock-step for exactly the tree's depth, a leaf pointing at itself, so
  // the eight dependent load chains overlap. Per row the leaves are still added in tree order from base_score: the
  // same float sums as predict().
  constexpr size_t kLanes = 8, kChunk = 32;
  for (size_t r = 0; r < n; ++r) out[r] = base_score_;
  const Node* nodes = nodes_.data();
  for (size_t c0 = 0; c0 < n; c0 += kChunk) {
    const size_t c1 = std::min(n, c0 + kChunk);
    for (size_t t = 0; t < roots_.size(); ++t) {
      const int32_t root = roots_[t], depth = depth_[t];
      size_t r = c0;
      for (; r + kLanes <= c1; r += kLanes) {
        int32_t idx[kLanes];
        for (size_t j = 0; j < kLanes; ++j) idx[j] = root;
        for (int32_t d = 0; d < depth; ++d)
          for (size_t j = 0; j < kLanes; ++j) {
            const Node& nd = nodes[idx[j]];
            const float v = x[(r + j) * stride + (nd.meta & kFeature)];
            const int32_t right = std::isnan(v) ? !(nd.meta & kDefaultLeft) : !(v < nd.value);
            idx[j] = nd.left + (right & static_cast<int32_t>(nd.meta >> 31));
          }
        for (size_t j = 0; j < kLanes; ++j) out[r + j] += nodes[idx[j]].value;
      }
      for (; r < c1; ++r) {
        const Node* nd = &nodes[root];
        const float* row = x + r * stride;
        while (nd->meta & kSplit) {
          const float v = row[nd->meta & kFeature];
          const bool right = std::isnan(v) ? !(nd->meta & kDefaultLeft) : !(v < nd->value);
          nd = &nodes[nd->left + right];
        }
        out[r] += nd->value;
      }
    }
  }
}

}  // namespace loom
