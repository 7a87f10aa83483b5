// Token helpers for kernel-name rules (trace/kernel_names.cpp): identifier and tile-dimension scanning on demangled
// names, without std::regex. Internal to the trace module.
#pragma once

#include <cctype>
#include <string_view>
#include <vector>

namespace loom::name_tokens {

using sv = std::string_view;

inline bool has(sv s, sv x) { return s.find(x) != sv::npos; }

inline bool is_ident(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The identifier ([A-Za-z0-9_]*) that contains position `pos`.
inline sv ident_at(sv s, size_t pos) {
  size_t b = pos, e = pos;
  while (b > 0 && is_ident(s[b - 1])) --b;
  while (e < s.size() && is_ident(s[e])) ++e;
  return s.substr(b, e - b);
}

// The identifier that contains the first occurrence of `x`; empty when absent.
inline sv ident_with(sv s, sv x) {
  size_t p = s.find(x);
  return p == sv::npos ? sv() : ident_at(s, p);
}

inline std::vector<sv> split(sv s, char sep) {
  std::vector<sv> out;
  size_t start = 0;
  for (;;) {
    size_t p = s.find(sep, start);
    out.push_back(s.substr(start, p == sv::npos ? sv::npos : p - start));
    if (p == sv::npos) return out;
    start = p + 1;
  }
}

// Parses a non-negative int of at most 6 digits at the start of s; returns digits consumed (0 = none).
inline size_t read_int(sv s, int& v) {
  size_t i = 0;
  v = 0;
  while (i < s.size() && i < 6 && std::isdigit(static_cast<unsigned char>(s[i]))) v = v * 10 + (s[i++] - '0');
  if (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) return 0;  // too long to be a tile size
  return i;
}

// "AxB" (exactly, n = 2) or "AxBxC" (n = 3) -> numbers; false otherwise.
inline bool parse_dims(sv tok, int n, int* out) {
  for (int i = 0; i < n; ++i) {
    size_t d = read_int(tok, out[i]);
    if (d == 0) return false;
    tok.remove_prefix(d);
    if (i + 1 < n) {
      if (tok.empty() || tok[0] != 'x') return false;
      tok.remove_prefix(1);
    }
  }
  return tok.empty();
}

// First `n` integers of the template argument list opening after `key<`; false if fewer.
inline bool template_ints(sv s, sv key, int n, int* out) {
  size_t p = s.find(key);
  if (p == sv::npos) return false;
  sv rest = s.substr(p + key.size());
  if (rest.empty() || rest[0] != '<') return false;
  rest.remove_prefix(1);
  for (int i = 0; i < n; ++i) {
    while (!rest.empty() && rest[0] == ' ') rest.remove_prefix(1);
    size_t d = read_int(rest, out[i]);
    if (d == 0) return false;
    rest.remove_prefix(d);
    while (!rest.empty() && (rest[0] == 'u' || rest[0] == 'l' || rest[0] == 'U' || rest[0] == 'L'))
      rest.remove_prefix(1);  // "128ul"
    while (!rest.empty() && rest[0] == ' ') rest.remove_prefix(1);
    if (i + 1 < n) {
      if (rest.empty() || rest[0] != ',') return false;
      rest.remove_prefix(1);
    }
  }
  return true;
}

}  // namespace loom::name_tokens
