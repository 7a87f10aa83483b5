// Strict JSON reading shared by loom's JSON readers (model indexes, coverage, transfer weights, collective fits,
// GEMM path tables, calibration results, tune tables, config.json, report input): no key given twice, and every
// nlohmann error turned into one InputError in the reader's own words.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace loom {

/// Duplicate keys (nlohmann keeps the last one silently): the first repeated key, with the line of its second
/// occurrence; parsing stops at the first malformed byte (nlohmann::json::parse_error, handled by the caller).
std::optional<std::pair<std::string, int>> first_duplicate_key(std::string_view text);

/// What a reader says when its JSON text is not strict JSON. The readers grew their own wording and tests pin it, so
/// each keeps it; for_hint() gives the wording the learned-model and table readers share.
struct StrictJsonMessages {
  /// Follows "duplicate key 'KEY'" (at FILE:LINE of its second occurrence), e.g. "; give it once".
  std::string after_duplicate;
  /// How many bytes of a duplicate key the message quotes (npos: all of it).
  size_t key_chars = std::string::npos;
  /// A syntax error; "{byte}" stands for nlohmann's byte offset and "{what}" for its message.
  std::string malformed;
  /// Whether a syntax error is reported at FILE:LINE of the bad byte (else at FILE).
  bool malformed_at_line = false;
  /// Any other nlohmann error (out_of_range: a number beyond double, "1e999"), at FILE; "{what}" as above.
  std::string unreadable;

  /// "duplicate key 'K'; give it once" + hint at FILE:LINE (K up to 80 bytes), "not valid JSON" + hint at
  /// FILE:LINE, "a number beyond double range" + hint at FILE.
  static StrictJsonMessages for_hint(const std::string& hint);
};

/// The 1-based line of the value at `path` (object keys; an array's element by its decimal index) in strict JSON
/// `text`, for messages that name FILE:LINE of a bad value. A key the text lacks: the line of the deepest object or
/// array on the path that it has (where the key belongs). Text that is not JSON: the line reached so far.
int json_line_of(std::string_view text, const std::vector<std::string>& path);

/// Parses `text` (read from `path`) as JSON with no key repeated in any object. Throws InputError in the words of
/// `messages`, never an nlohmann exception.
nlohmann::json parse_strict_json(std::string_view text, const std::string& path, const StrictJsonMessages& messages);

}  // namespace loom
