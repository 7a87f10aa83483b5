// Strict YAML loading (see core/strict_yaml.h).
#include "core/strict_yaml.h"

#include <map>
#include <set>
#include <vector>

#include "core/error.h"

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
        if (!k.IsScalar()) continue;  // readers refuse non-scalar keys with their own message
        const auto [pos, fresh] = first_line.emplace(k.Scalar(), k.Mark().line + 1);
        if (!fresh)
          throw InputError(at(label, k.Mark()), "duplicate key '" + k.Scalar() + "' (first at line " +
                                                    std::to_string(pos->second) + "); give it once");
      }
    }
  }
}

}  // namespace

void check_unique_keys(const YAML::Node& node, const std::string& label) { scan(node, label); }

YAML::Node load_one_yaml(const std::string& text, const std::string& label) {
  std::vector<YAML::Node> docs;
  try {
    docs = YAML::LoadAll(text);
  } catch (const YAML::Exception& e) {
    throw InputError(at(label, e.mark), "malformed YAML: " + e.msg + "; fix the syntax");
  }
  if (docs.size() > 1)
    throw InputError(at(label, docs[1].Mark()), "a second YAML document (after `---`); this file holds one "
                                                "document: remove the separator or split the file");
  if (docs.empty()) return YAML::Node();
  check_unique_keys(docs[0], label);
  return docs[0];
}

}  // namespace loom
