// Writes and reads the packed GPU catalogue (hw/catalog_pack.h): length-prefixed strings, no YAML at load.
#include "hw/catalog_pack.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>

#include "hw/gpu_yaml.h"
#include "learned/packed.h"

namespace loom {

namespace fs = std::filesystem;

namespace {

constexpr char kHeader[] = "loom-packed-catalog 1\n";

uint64_t fnv1a(const std::string& bytes) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : bytes) h = (h ^ c) * 1099511628211ull;
  return h;
}

bool read_all(const std::string& path, std::string& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  out.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return !in.bad();
}

void put_u64(std::string& o, uint64_t v) { o.append(reinterpret_cast<const char*>(&v), sizeof v); }
void put(std::string& o, const std::string& s) { put_u64(o, s.size()), o += s; }

struct Reader {
  const std::string& in;
  size_t pos = 0;
  uint64_t u64() {
    uint64_t v;
    if (in.size() - pos < sizeof v) throw std::runtime_error("truncated");
    std::memcpy(&v, in.data() + pos, sizeof v);
    pos += sizeof v;
    return v;
  }
  std::string str() {
    const uint64_t n = u64();
    if (n > in.size() - pos) throw std::runtime_error("truncated");
    std::string s = in.substr(pos, n);
    pos += n;
    return s;
  }
};

}  // namespace

std::string catalog_pack_path() {
  const std::string dir = packed_model_dir();
  return dir.empty() ? "" : dir + "/catalog.lcp";
}

std::string pack_catalog(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_regular_file() && e.path().extension() == ".yaml") names.push_back(e.path().stem().string());
  std::sort(names.begin(), names.end());
  std::string body;
  uint64_t count = 0;
  for (const auto& n : names) {
    std::vector<std::string> files;
    RawSpec raw;
    try {  // as Catalog::load reads it: the same path, label and catalogue directory
      raw = read_gpu_file((fs::path(dir) / (n + ".yaml")).string(), (fs::path(dir).filename() / (n + ".yaml")).string(),
                          dir, &files);
    } catch (const std::exception&) {
      continue;
    }
    ++count;
    put(body, n);
    put_u64(body, files.size());
    for (const auto& f : files) {
      std::string bytes;
      if (!read_all(f, bytes)) throw std::runtime_error(f + ": cannot read");
      put(body, f), put_u64(body, fnv1a(bytes));
    }
    put_u64(body, raw.values.size());
    for (const auto& [k, v] : raw.values) put(body, k), put(body, v.text), put(body, v.where), put(body, v.comment);
    put_u64(body, raw.group_where.size());
    for (const auto& [k, w] : raw.group_where) put(body, k), put(body, w);
  }
  std::string out = kHeader;
  put(out, dir);
  put_u64(out, count);
  return out + body;
}

std::map<std::string, PackedGpu> load_catalog_pack(const std::string& path, const std::string& dir) {
  std::string bytes;
  if (path.empty() || !read_all(path, bytes) || bytes.compare(0, sizeof kHeader - 1, kHeader) != 0) return {};
  std::map<std::string, PackedGpu> out;
  try {
    Reader r{bytes, sizeof kHeader - 1};
    if (r.str() != dir) return {};
    for (uint64_t n = r.u64(), i = 0; i < n; ++i) {
      const std::string name = r.str();
      PackedGpu g;
      for (uint64_t k = r.u64(), j = 0; j < k; ++j) {
        std::string f = r.str();
        g.files.emplace_back(std::move(f), r.u64());
      }
      for (uint64_t k = r.u64(), j = 0; j < k; ++j) {
        std::string key = r.str();
        RawValue& v = g.raw.values[key];
        v.text = r.str(), v.where = r.str(), v.comment = r.str();
      }
      for (uint64_t k = r.u64(), j = 0; j < k; ++j) {
        std::string key = r.str();
        g.raw.group_where[key] = r.str();
      }
      out.emplace(name, std::move(g));
    }
    if (r.pos != bytes.size()) return {};
  } catch (const std::exception&) {
    return {};  // a damaged pack: the YAML is the source of truth
  }
  return out;
}

bool packed_gpu_current(const PackedGpu& g, std::map<std::string, uint64_t>& hashes) {
  if (g.files.empty()) return false;
  for (const auto& [path, hash] : g.files) {
    auto [it, fresh] = hashes.try_emplace(path, 0);
    if (fresh) {
      std::string bytes;
      if (read_all(path, bytes)) it->second = fnv1a(bytes);
    }
    if (it->second == 0 || it->second != hash) return false;
  }
  return true;
}

}  // namespace loom
