// "Did you mean ...?" for misspelt names (GPU keys, commands, flags, presets).
#pragma once

#include <string>
#include <vector>

namespace loom {

/// The option closest to `word` by edit distance (case-insensitive), when it is close enough to be a likely typo
/// (at most 2 edits, or a third of the word's length for long words; at most `max_edits` when given); "" otherwise.
std::string closest_match(const std::string& word, const std::vector<std::string>& options, size_t max_edits = 0);

/// " (did you mean 'X'?)" for closest_match, or "".
std::string did_you_mean(const std::string& word, const std::vector<std::string>& options);

}  // namespace loom
