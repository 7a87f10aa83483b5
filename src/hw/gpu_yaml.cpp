// GPU YAML -> RawSpec: strict keys, FILE:LINE on every value, source comments kept, `extends:` chains merged.
#include "hw/gpu_yaml.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <vector>

#include "core/error.h"
#include "core/file_io.h"
#include "core/strict_yaml.h"

namespace loom {

namespace fs = std::filesystem;

namespace {

// One document being read: its text lines (for comments) and its name in messages.
struct Doc {
  std::string label;
  std::vector<std::string> lines;
};

// Longest `extends:` chain accepted (a catalogue variant is 1-2 deep); bounds the work a crafted chain can cause.
constexpr size_t kMaxExtendsDepth = 16;

// The chain of files being read, outermost first, to detect `extends:` cycles.
struct Chain {
  std::vector<std::string> ids;     // canonical paths (or "<label>" for in-memory text)
  std::vector<std::string> labels;  // as shown in messages
};

std::string join(const std::vector<std::string>& items, const char* sep = ", ") {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : sep) + s;
  return out;
}

std::string at(const Doc& doc, const YAML::Mark& mark) {
  return mark.line < 0 ? doc.label : doc.label + ":" + std::to_string(mark.line + 1);
}

// The "# ..." comment on a 1-based line, outside quotes; empty if none.
std::string comment_on(const Doc& doc, int line0) {
  if (line0 < 0 || static_cast<size_t>(line0) >= doc.lines.size()) return "";
  const std::string& l = doc.lines[line0];
  char quote = 0;
  for (size_t i = 0; i < l.size(); ++i) {
    const char c = l[i];
    if (quote) {
      if (c == quote) quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '#' && (i == 0 || l[i - 1] == ' ' || l[i - 1] == '\t')) {
      std::string s = l.substr(i);
      while (!s.empty() && (s.back() == ' ' || s.back() == '\r')) s.pop_back();
      return s;
    }
  }
  return "";
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::stringstream ss(text);
  for (std::string l; std::getline(ss, l);) lines.push_back(l);
  return lines;
}

std::string valid_keys(const std::string& group) {
  std::vector<std::string> keys = gpu_spec_children(group);
  if (group.empty()) keys.insert(keys.begin(), "extends");
  return join(keys);
}

struct Extends {
  std::string value;
  std::string where;
};

void flatten(const YAML::Node& map, const std::string& group, const std::string& group_comment, const Doc& doc,
             RawSpec& out, Extends& extends) {
  for (auto it = map.begin(); it != map.end(); ++it) {
    const YAML::Node k = it->first;  // copies: it-> returns a temporary proxy (references would dangle)
    const YAML::Node v = it->second;
    const std::string kwhere = at(doc, k.Mark());
    if (!k.IsScalar()) throw InputError(kwhere, "keys must be plain names; see gpus/README.md for the schema");
    const std::string key = k.Scalar();
    const std::string full = group.empty() ? key : group + "." + key;
    if (group.empty() && key == "extends") {
      if (!v.IsScalar() || v.Scalar().empty())
        throw InputError(kwhere, "extends takes one catalogue key or file path, e.g. `extends: h100-sxm`");
      extends = {v.Scalar(), at(doc, v.Mark().line < 0 ? k.Mark() : v.Mark())};
      continue;
    }
    if (is_gpu_spec_group(full)) {
      if (!v.IsMap())
        throw InputError(kwhere, "'" + full + "' is a group; write it as a map of: " + valid_keys(full));
      out.group_where[full] = kwhere;
      std::string c = comment_on(doc, k.Mark().line);
      flatten(v, full, c.empty() ? group_comment : c, doc, out, extends);
      continue;
    }
    if (!is_gpu_spec_leaf(full))
      throw InputError(kwhere, "unknown key '" + full + "'; valid keys" + (group.empty() ? "" : " in " + group) +
                                   ": " + valid_keys(group));
    if (out.values.count(full)) throw InputError(kwhere, "duplicate key '" + full + "'; give it once");
    if (v.IsNull()) throw InputError(kwhere, "no value for '" + full + "'; give one (see gpus/README.md)");
    if (!v.IsScalar()) throw InputError(kwhere, "'" + full + "' takes a single value, not a list or map");
    // A quoted value is a string in YAML ("132" is not 132): a number or quantity is written bare, as every other
    // reader of loom's YAML (profiles, kernels/) requires. Quotes stay fine on text (name, dram.type).
    if (v.Tag() == "!" && !is_gpu_spec_text(full))
      throw InputError(at(doc, v.Mark()), "'" + full +
                                              "' is a number (with its unit); write it without quotes, e.g. `" +
                                              full.substr(full.rfind('.') + 1) + ": " + v.Scalar().substr(0, 40) + "`");
    const int line0 = v.Mark().line < 0 ? k.Mark().line : v.Mark().line;
    std::string c = comment_on(doc, line0);
    out.values[full] = RawValue{v.Scalar(), doc.label + ":" + std::to_string(line0 + 1), c.empty() ? group_comment : c};
  }
}

bool looks_like_path(const std::string& s) {
  auto ends = [&](const char* suf) {
    const std::string x(suf);
    return s.size() >= x.size() && s.compare(s.size() - x.size(), x.size(), x) == 0;
  };
  return s.find('/') != std::string::npos || ends(".yaml") || ends(".yml");
}

std::string read_text(const std::string& path, const std::string& label) {
  return read_input_file(path, "cannot read this file; check the path", label);
}

std::string catalogue_keys(const std::string& dir) {
  std::vector<std::string> keys;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.path().extension() == ".yaml") keys.push_back(e.path().stem().string());
  std::sort(keys.begin(), keys.end());
  return join(keys);
}

RawSpec read_doc(const std::string& text, const Doc& doc, const std::string& id, const std::string& base_dir,
                 const std::string& catalog_dir, Chain chain, std::vector<std::string>* files_read = nullptr,
                 std::string* own_extends = nullptr) {
  chain.ids.push_back(id);
  chain.labels.push_back(doc.label);
  const YAML::Node root = load_one_yaml(text, doc.label);  // one document, no key given twice
  if (root.IsNull()) throw InputError(doc.label + ":1", "empty GPU description; see gpus/README.md for the keys");
  if (!root.IsMap())
    throw InputError(at(doc, root.Mark()), "a GPU description is a map of keys; see gpus/README.md");

  RawSpec own;
  own.group_where[""] = doc.label + ":1";  // a missing top-level key has no line of its own
  Extends extends;
  flatten(root, "", "", doc, own, extends);
  if (own_extends) *own_extends = extends.value;
  if (extends.value.empty()) return own;

  // Resolve the parent: a catalogue key, or a path relative to this file.
  std::string parent_path, parent_label;
  if (looks_like_path(extends.value)) {
    parent_path = (fs::path(base_dir) / extends.value).lexically_normal().string();
    parent_label = (fs::path(doc.label).parent_path() / extends.value).lexically_normal().string();
  } else {
    parent_path = (fs::path(catalog_dir) / (extends.value + ".yaml")).string();
    parent_label = (fs::path(catalog_dir).filename() / (extends.value + ".yaml")).string();
  }
  std::error_code ec;
  if (!fs::is_regular_file(parent_path, ec))
    throw InputError(extends.where, "extends: unknown GPU '" + extends.value +
                                        "'; give a catalogue key (" + catalogue_keys(catalog_dir) + ") or a file path");
  const std::string parent_id = fs::weakly_canonical(parent_path, ec).string();
  if (chain.ids.size() >= kMaxExtendsDepth)
    throw InputError(extends.where, "extends chain deeper than " + std::to_string(kMaxExtendsDepth) + " files (" +
                                        join(chain.labels, " -> ") + " -> ...); extend a catalogue GPU directly");
  for (const auto& seen : chain.ids)
    if (seen == parent_id)
      throw InputError(extends.where, "circular extends: " + join(chain.labels, " -> ") + " -> " + parent_label +
                                          "; remove one of these `extends:` lines");
  const std::string parent_text = read_text(parent_path, parent_label);
  if (files_read) files_read->push_back(parent_path);
  RawSpec merged = read_doc(parent_text, Doc{parent_label, split_lines(parent_text)}, parent_id,
                            fs::path(parent_path).parent_path().string(), catalog_dir, chain, files_read);
  for (auto& [k, v] : own.values) merged.values[k] = v;
  for (auto& [k, w] : own.group_where) merged.group_where[k] = w;
  return merged;
}

}  // namespace

RawSpec read_gpu_text(const std::string& text, const std::string& label, const std::string& catalog_dir) {
  return read_doc(text, Doc{label, split_lines(text)}, "<" + label + ">", ".", catalog_dir, Chain{});
}

RawSpec read_gpu_file(const std::string& path, const std::string& label, const std::string& catalog_dir,
                      std::vector<std::string>* files_read, std::string* extends) {
  const std::string text = read_text(path, label);
  if (files_read) files_read->push_back(path);
  std::error_code ec;
  const std::string id = fs::weakly_canonical(path, ec).string();
  return read_doc(text, Doc{label, split_lines(text)}, id, fs::path(path).parent_path().string(), catalog_dir,
                  Chain{}, files_read, extends);
}

}  // namespace loom
