// Strict YAML loading (see core/strict_yaml.h).
#include "core/strict_yaml.h"

#include <charconv>
#include <cstdint>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <vector>

#include <yaml-cpp/eventhandler.h>

#include "core/error.h"
#include "learned/packed.h"  // packed_model_dir(): where the build-time list of checked texts lives

namespace loom {

namespace {

std::string at(const std::string& label, const YAML::Mark& mark) {
  return mark.line < 0 ? label : label + ":" + std::to_string(mark.line + 1);
}

// Iterative walk (an explicit stack), so a deeply nested document cannot exhaust the call stack here. Each
// collection is visited once, by its position in the text: an alias (*a) is the anchored node itself, so a
// "billion laughs" document of nested aliases costs its size, not the size of its expansion.
void scan(const YAML::Node& root, const std::string& label) {
  std::vector<YAML::Node> todo{root};
  std::set<int> seen;  // Mark().pos of the collections visited
  while (!todo.empty()) {
    const YAML::Node n = todo.back();
    todo.pop_back();
    // A tag (!!str, !!python/int, !mine) changes what a value means to other YAML readers, and loom reads every
    // value by its field's own type: `sms: !!str 132` was read as 132, `!!python/...` ignored. Plain values only.
    if (const std::string& tag = n.Tag(); n.IsDefined() && !tag.empty() && tag != "?" && tag != "!")
      throw InputError(at(label, n.Mark()),
                       "YAML tag '" + tag.substr(0, 60) +
                           "' on a value; loom reads plain values by each field's type: remove the tag");
    if (n.IsScalar()) {
      // An escape in a quoted scalar ("\x1b[2J", "\n", "\0") makes a control character the byte check cannot see:
      // printed in a name, it rewrites the terminal or splits a table row.
      for (const char ch : n.Scalar())
        if (const auto c = static_cast<unsigned char>(ch); (c < 0x20 && c != '\t') || c == 0x7f)
          throw InputError(at(label, n.Mark()), "a value holds control character 0x" +
                                                    std::string(1, "0123456789abcdef"[c >> 4]) +
                                                    "0123456789abcdef"[c & 15] + " (an escape in quotes); remove it");
      continue;
    }
    if (!n.IsSequence() && !n.IsMap()) continue;
    if (!seen.insert(n.Mark().pos).second) continue;
    if (n.IsSequence()) {
      for (const auto& x : n) todo.push_back(x);
    } else {
      std::map<std::string, int> first_line;
      for (auto it = n.begin(); it != n.end(); ++it) {
        const YAML::Node k = it->first;
        const YAML::Node v = it->second;
        todo.push_back(v);
        todo.push_back(k);
        if (!k.IsScalar()) continue;  // readers refuse non-scalar keys with their own message
        const auto [pos, fresh] = first_line.emplace(k.Scalar(), k.Mark().line + 1);
        if (!fresh)
          throw InputError(at(label, k.Mark()), "duplicate key '" + k.Scalar() + "' (first at line " +
                                                    std::to_string(pos->second) + "); give it once");
      }
    }
  }
}

// Records where a document starts and ignores its content (the node tree comes from YAML::Load).
struct DocumentStart : YAML::EventHandler {
  int line = -2;  // -2: no document seen
  void OnDocumentStart(const YAML::Mark& mark) override { line = mark.line < 0 ? 0 : mark.line; }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
};

}  // namespace

void check_text_bytes(const std::string& text, const std::string& label) {
  int line = 1;
  for (size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '\n') ++line;
    if (c < 0x80) {
      // Control bytes (NUL, escape sequences, ...) have no place in a text file loom reads: a NUL cuts a name short
      // in some consumers and not others, an escape sequence rewrites the terminal the table is printed to.
      if ((c < 0x20 && c != '\n' && c != '\r' && c != '\t') || c == 0x7f)
        throw InputError(label + ":" + std::to_string(line),
                         "control byte 0x" + std::string(1, "0123456789abcdef"[c >> 4]) + "0123456789abcdef"[c & 15] +
                             " in the text; save the file as plain UTF-8 text");
      ++i;
      continue;
    }
    // Well-formed UTF-8 (RFC 3629): lead byte, continuation count, no overlong forms, no surrogates, <= U+10FFFF.
    const int n = c >= 0xc2 && c <= 0xdf ? 1 : c >= 0xe0 && c <= 0xef ? 2 : c >= 0xf0 && c <= 0xf4 ? 3 : -1;
    bool ok = n > 0;
    for (int k = 1; ok && k <= n; ++k)
      if (i + k >= text.size() || (static_cast<unsigned char>(text[i + k]) & 0xc0) != 0x80) ok = false;
    if (ok && n >= 2) {
      const auto c1 = static_cast<unsigned char>(text[i + 1]);
      if ((c == 0xe0 && c1 < 0xa0) || (c == 0xed && c1 > 0x9f) || (c == 0xf0 && c1 < 0x90) || (c == 0xf4 && c1 > 0x8f))
        ok = false;
    }
    if (!ok)
      throw InputError(label + ":" + std::to_string(line),
                       "bytes that are not UTF-8 text; save the file as UTF-8 (loom reads names, units and comments "
                       "as text)");
    i += n + 1;
  }
}

void check_unique_keys(const YAML::Node& node, const std::string& label) { scan(node, label); }

void refuse_quoted(const YAML::Node& n, const std::string& where, const std::string& key, const std::string& what) {
  // yaml-cpp tags a quoted scalar "!" (non-specific, a string) and a plain one "?" (resolved by the reader).
  if (n.IsScalar() && n.Tag() == "!")
    throw InputError(where, "'" + key + "' is " + what + "; write it without quotes (\"" + n.Scalar().substr(0, 40) +
                                "\" is text in YAML)");
}

uint64_t yaml_text_hash(const std::string& text) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) h = (h ^ c) * 1099511628211ull;
  return h;
}

namespace {

/// Hashes of the committed data files' texts that passed every check below at build time (the packed directory's
/// yaml-checked.txt, loom_pack_models --yaml): a text with one of them parses the same and passes the same
/// checks, so it is parsed once, without the second-document pass and the key scan.
const std::set<uint64_t>& checked_texts() {
  static const std::set<uint64_t> set = [] {
    std::set<uint64_t> s;
    const std::string dir = packed_model_dir();
    if (dir.empty()) return s;
    std::ifstream in(dir + "/yaml-checked.txt");
    for (std::string line; std::getline(in, line);) {  // a line that is not 16 hex digits is no hash: skipped
      uint64_t h = 0;
      const auto [end, ec] = std::from_chars(line.data(), line.data() + line.size(), h, 16);
      if (line.size() == 16 && ec == std::errc() && end == line.data() + line.size() && line[0] != '-') s.insert(h);
    }
    return s;
  }();
  return set;
}

}  // namespace

YAML::Node load_one_yaml(const std::string& text, const std::string& label) {
  if (checked_texts().count(yaml_text_hash(text))) {
    try {
      return YAML::Load(text);
    } catch (const YAML::Exception& e) {  // not reached for a text that passed at build time; kept for safety
      throw InputError(at(label, e.mark), "malformed YAML: " + e.msg + "; fix the syntax");
    }
  }
  check_text_bytes(text, label);
  YAML::Node root;
  int second_line = -1;  // 0-based line where a second document starts; -1: none
  try {
    root = YAML::Load(text);
    // Look for a second document with a bounded number of parser calls: YAML::LoadAll loops forever (and fills
    // memory) on some malformed streams, e.g. "\n,\n" (yaml-cpp 0.7; fixed upstream in jbeder/yaml-cpp#1319).
    std::istringstream in(text);
    YAML::Parser parser(in);
    DocumentStart first, second;
    if (parser.HandleNextDocument(first) && parser.HandleNextDocument(second)) second_line = second.line;
  } catch (const YAML::Exception& e) {
    throw InputError(at(label, e.mark), "malformed YAML: " + e.msg + "; fix the syntax");
  }
  if (second_line >= 0)
    throw InputError(label + ":" + std::to_string(second_line + 1),
                     "a second YAML document (after `---`); this file holds one document: remove the separator or "
                     "split the file");
  check_unique_keys(root, label);
  return root;
}

}  // namespace loom
