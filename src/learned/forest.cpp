// Parses XGBoost 1.7 JSON models into flat node arrays (breadth-first, sibling children adjacent), reads and writes
// their compact binary form, and walks them one row at a time or in blocks of rows.
#include "learned/forest.h"
#include "learned/forest_simd.h"

#include <charconv>
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <stdexcept>

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
  if (n == 0) return;  // an empty vector's data() may be null, and memcpy from/to null is undefined even for 0 bytes
  std::memcpy(static_cast<void*>(v), in.data() + pos, n * sizeof(T));
  pos += n * sizeof(T);
}

}  // namespace

void Forest::adopt(std::shared_ptr<const Store> store) {
  store_ = std::move(store);
  nodes_ = store_->nodes, roots_ = store_->roots, depth_ = store_->depth;
}

Forest Forest::from_json(const std::string& json) {
  Forest f;
  auto st = std::make_shared<Store>();
  try {
    auto j = nlohmann::json::parse(json);
    const auto& learner = j.at("learner");
    // from_chars, not stof: strtof reads the C locale's decimal point, and a host program's
    // setlocale(LC_ALL, "de_DE.UTF-8") made "8.23773E-1" 8 (every prediction of a JSON-loaded forest wrong).
    const std::string bs = learner.at("learner_model_param").at("base_score").get<std::string>();
    const auto [bs_end, bs_ec] = std::from_chars(bs.data(), bs.data() + bs.size(), f.base_score_);
    if (bs_ec != std::errc() || bs_end != bs.data() + bs.size()) throw std::invalid_argument("base_score '" + bs + "'");
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
      const int32_t offset = static_cast<int32_t>(st->nodes.size());
      std::vector<int32_t> order{0}, depth{0};
      std::vector<char> seen(n, 0);
      seen[0] = 1;
      st->nodes.resize(offset + n);
      int32_t max_depth = 0;
      for (size_t q = 0; q < order.size(); ++q) {
        const int32_t old = order[q];
        const int32_t me = offset + static_cast<int32_t>(q);
        const int32_t l = left[old].get<int32_t>(), r = right[old].get<int32_t>();
        Node& node = st->nodes[me];
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
      st->roots.push_back(offset);
      st->depth.push_back(max_depth);
    }
    f.adopt(std::move(st));
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
  // Each node's level (-1: not reached yet), one buffer for every tree (a forest holds hundreds of trees, loaded
  // at start-up: no allocation per tree).
  std::vector<int32_t> level;
  for (size_t t = 0; t < roots_.size(); ++t) {
    const int64_t begin = roots_[t], end = t + 1 < roots_.size() ? roots_[t + 1] : static_cast<int64_t>(n);
    if (begin < 0 || begin >= end || end > static_cast<int64_t>(n)) throw std::runtime_error("tree roots out of order");
    if (depth_[t] < 0 || depth_[t] > 64) throw std::runtime_error("tree depth out of range");
    level.assign(static_cast<size_t>(end - begin), -1);
    int32_t* const lv = level.data() - begin;  // lv[i] for node i of this tree
    const int32_t max_depth = depth_[t];
    lv[begin] = 0;
    for (int64_t i = begin; i < end; ++i) {
      const Node& node = nodes_[i];
      const int32_t li = lv[i];
      if (li < 0) throw std::runtime_error("unreachable node");
      if (!(node.meta & kSplit)) {
        if (node.left != i || (node.meta & ~kSplit) != 0 || li > max_depth) throw std::runtime_error("bad leaf");
        continue;
      }
      const int64_t c = node.left;
      if (c <= i || c + 1 >= end || (node.meta & kFeature) >= num_features_)
        throw std::runtime_error("split child or feature out of range");
      if ((lv[c] & lv[c + 1]) >= 0) throw std::runtime_error("shared child");  // both must still be -1
      lv[c] = lv[c + 1] = li + 1;
    }
  }
}

struct Forest::PerfectOnce {
  std::once_flag once;
  Perfect perfect;
  std::atomic<bool> ready{false};  ///< perfect is built
  std::atomic<size_t> rows{0};     ///< rows predict_batch has walked (counted until the layout is built)
};

const Forest::Perfect& Forest::perfect() const {
  static const Perfect none;
  if (!perfect_) return none;
  std::call_once(perfect_->once, [this] {
    perfect_->perfect = build_perfect();
    perfect_->ready.store(true, std::memory_order_release);
  });
  return perfect_->perfect;
}

Forest::Perfect Forest::build_perfect() const {
  Perfect p;
  int32_t depth = 0;
  for (int32_t d : depth_) depth = std::max(depth, d);
  // Up to 10 levels (the committed GEMM forests: 400 trees x 1,023 slots, ~4.9 MB of arrays per forest; deeper
  // forests keep the scalar walk rather than lay out 2^depth slots a tree).
  if (depth < 1 || depth > 10 || num_features_ >= kPassLeft) return p;
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

Forest Forest::from_binary(std::string_view bytes) { return read_binary(bytes, nullptr); }

Forest Forest::from_binary_in_place(std::string_view bytes, std::shared_ptr<const void> keep) {
  return read_binary(bytes, std::move(keep));  // copied when keep is null
}

Forest Forest::read_binary(std::string_view bytes, std::shared_ptr<const void> keep) {
  static_assert(sizeof(Node) == 12 && alignof(Node) == 4, "Node must be three packed 4-byte words");
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
  if (nf == 0 || nf > (1u << 20) || nt > (1u << 24) || nn > (1u << 28))
    throw std::runtime_error("binary forest header out of range");
  // The counts must account for the rest of the file exactly, before anything is allocated from them (a header
  // claiming 2^28 nodes in a short file must not allocate 3 GB).
  const uint64_t body = uint64_t(nt) * (sizeof(int32_t) + sizeof(int32_t)) + uint64_t(nn) * sizeof(Node);
  if (bytes.size() < pos || bytes.size() - pos != body)
    throw std::runtime_error("binary forest is truncated or has trailing bytes (header counts disagree with its size)");
  if (!std::isfinite(f.base_score_)) throw std::runtime_error("binary forest has a bad base score");
  f.num_features_ = nf;
  const char* arrays = bytes.data() + pos;
  auto st = std::make_shared<Store>();
  if (keep && reinterpret_cast<uintptr_t>(arrays) % alignof(int32_t) == 0) {
    // In place: the arrays are read where they lie (the roots, the depths, then the nodes, each 4-byte words).
    st->keep = std::move(keep);
    f.store_ = std::move(st);
    f.roots_ = {reinterpret_cast<const int32_t*>(arrays), nt};
    f.depth_ = {reinterpret_cast<const int32_t*>(arrays) + nt, nt};
    f.nodes_ = {reinterpret_cast<const Node*>(arrays + size_t(nt) * 2 * sizeof(int32_t)), nn};
  } else {
    st->roots.resize(nt);
    st->depth.resize(nt);
    st->nodes.resize(nn);
    get(bytes, pos, st->roots.data(), nt);
    get(bytes, pos, st->depth.data(), nt);
    get(bytes, pos, st->nodes.data(), nn);
    f.adopt(std::move(st));
  }
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

void Forest::predict_batch(const float* x, size_t n, size_t stride, float* out) const {
#ifdef LOOM_FOREST_SIMD
  // Where the CPU has AVX-512 and/or AVX2 (chosen at run time; the build stays baseline x86-64) and offsets fit
  // 32-bit lanes: 64-row chunks with AVX-512, then 32-row chunks with AVX2 (forest_simd.h).
  using namespace forest_simd;
  // The last rows (fewer than an AVX2 chunk) walk as a whole chunk, padded with copies of the last row (a lane's sum
  // is its own row's): the scalar walk's dependent node loads miss the cache, so on an AVX-512 host even one row
  // took longer than a padded chunk (perf: 5x an AVX-512 row; instructions alone favour it below ~11 rows).
  constexpr size_t kPadFrom = 1;
  // The perfect-tree layout costs about as much to build (once a process: up to ~4.9 MB of arrays a forest, most
  // of it page faults) as the SIMD walk saves on a couple of thousand rows: it is built once the forest has walked
  // kLayoutFrom rows, so a process that asks for a few hundred (a what-if table's kernels of a family) never pays it.
  const bool layout = perfect_ && (perfect_->ready.load(std::memory_order_acquire) ||
                                   perfect_->rows.fetch_add(n, std::memory_order_relaxed) + n >= kLayoutFrom);
  if (layout && n >= kPadFrom && stride < (size_t(1) << 24) && cpu_has_avx2()) {
    const Perfect& p = perfect();
    if (p.depth > 0) {
      size_t done = 0;
      if (n >= kAvx512Chunk && cpu_has_avx512())
        done = walk_avx512(p.threshold.data(), p.word.data(), p.leaf.data(), p.depth, roots_.size(), base_score_, x,
                           n, stride, kPassLeft - 1, kDefaultLeft, kPassLeft, out);
      x += done * stride, out += done, n -= done;
      done = walk_avx2(p.threshold.data(), p.word.data(), p.leaf.data(), p.depth, roots_.size(), base_score_, x, n,
                       stride, kPassLeft - 1, kDefaultLeft, kPassLeft, out);
      x += done * stride, out += done, n -= done;
      if (n >= kPadFrom) {
        thread_local std::vector<float> pad;
        pad.resize(kAvx2Chunk * stride);
        for (size_t r = 0; r < kAvx2Chunk; ++r) std::copy_n(x + std::min(r, n - 1) * stride, stride, &pad[r * stride]);
        float sums[kAvx2Chunk];
        walk_avx2(p.threshold.data(), p.word.data(), p.leaf.data(), p.depth, roots_.size(), base_score_, pad.data(),
                  kAvx2Chunk, stride, kPassLeft - 1, kDefaultLeft, kPassLeft, sums);
        std::copy_n(sums, n, out);
        x += n * stride, out += n, n = 0;
      }
    }
  }
#endif
  // The rest (all rows without SIMD): the same walk, scalar.
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
