// The printed form of an error message (see core/error.h).
#include "core/error.h"

namespace loom {

/// The error line as printed: one line (a newline or other control byte from the input, e.g. a NUL that would cut
/// the message short or an escape sequence that would rewrite the terminal, becomes '?'), and any single word past
/// 200 bytes (a 100,000-digit cell, a pasted file) shortened to its head and tail.
std::string printable_error(const std::string& text) {
  std::string out, word;
  auto cut = [](const std::string& w, size_t n, bool head) {  // n bytes from one end, not splitting a UTF-8 sequence
    size_t i = head ? n : w.size() - n;
    while (i > 0 && i < w.size() && (static_cast<unsigned char>(w[i]) & 0xc0) == 0x80) head ? --i : ++i;
    return head ? w.substr(0, i) : w.substr(i);
  };
  auto flush = [&] {
    out += word.size() > 200 ? cut(word, 100, true) + "..." + cut(word, 40, false) : word;
    word.clear();
  };
  for (char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == ' ') {
      flush();
      out += ' ';
    } else {
      word += c < 0x20 || c == 0x7f ? '?' : ch;
    }
  }
  flush();
  return out;
}

}  // namespace loom
