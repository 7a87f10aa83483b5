// Edit-distance suggestions for unknown names.
#include "core/suggest.h"

#include <algorithm>
#include <cctype>

namespace loom {

namespace {

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const bool same =
          std::tolower(static_cast<unsigned char>(a[i - 1])) == std::tolower(static_cast<unsigned char>(b[j - 1]));
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (same ? 0 : 1)});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

}  // namespace

std::string closest_match(const std::string& word, const std::vector<std::string>& options, size_t max_edits) {
  if (word.empty() || word.size() > 256) return "";
  std::string best;
  size_t best_d = SIZE_MAX;
  for (const auto& o : options) {
    if (o.size() > 256) continue;
    const size_t d = edit_distance(word, o);
    if (d < best_d) best_d = d, best = o;
  }
  const size_t limit = max_edits ? max_edits : std::max<size_t>(2, word.size() / 3);
  return best_d > 0 && best_d <= limit ? best : "";
}

std::string did_you_mean(const std::string& word, const std::vector<std::string>& options) {
  const std::string m = closest_match(word, options);
  return m.empty() ? "" : " (did you mean '" + m + "'?)";
}

}  // namespace loom
