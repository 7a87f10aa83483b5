// Unit tables and the quantity parser/formatter declared in core/units.h.
#include "core/units.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "core/error.h"

namespace loom {

namespace {

struct Unit {
  const char* name;
  UnitKind kind;
  double scale;  // multiply by this to get the kind's base unit
};

constexpr double kKi = 1024.0;

// One spelling per unit (STYLE.md: no alternative spellings for one thing).
const Unit kUnits[] = {
    {"Hz", UnitKind::frequency, 1},
    {"kHz", UnitKind::frequency, 1e3},
    {"MHz", UnitKind::frequency, 1e6},
    {"GHz", UnitKind::frequency, 1e9},
    {"B/s", UnitKind::bandwidth, 1},
    {"KB/s", UnitKind::bandwidth, 1e3},
    {"MB/s", UnitKind::bandwidth, 1e6},
    {"GB/s", UnitKind::bandwidth, 1e9},
    {"TB/s", UnitKind::bandwidth, 1e12},
    {"KiB/s", UnitKind::bandwidth, kKi},
    {"MiB/s", UnitKind::bandwidth, kKi * kKi},
    {"GiB/s", UnitKind::bandwidth, kKi * kKi * kKi},
    {"TiB/s", UnitKind::bandwidth, kKi * kKi * kKi * kKi},
    {"B", UnitKind::size, 1},
    {"KB", UnitKind::size, 1e3},
    {"MB", UnitKind::size, 1e6},
    {"GB", UnitKind::size, 1e9},
    {"TB", UnitKind::size, 1e12},
    {"KiB", UnitKind::size, kKi},
    {"MiB", UnitKind::size, kKi * kKi},
    {"GiB", UnitKind::size, kKi * kKi * kKi},
    {"TiB", UnitKind::size, kKi * kKi * kKi * kKi},
    {"ns", UnitKind::time, 1e-9},
    {"us", UnitKind::time, 1e-6},
    {"ms", UnitKind::time, 1e-3},
    {"s", UnitKind::time, 1},
    {"W", UnitKind::power, 1},
    {"kW", UnitKind::power, 1e3},
    {"USD/h", UnitKind::money_rate, 1},
    {"FLOP/clk", UnitKind::flop_per_clk, 1},
    {"ops/clk", UnitKind::ops_per_clk, 1},
    {"B/clk", UnitKind::bytes_per_clk, 1},
};

const Unit* find_unit(std::string_view name) {
  for (const Unit& u : kUnits)
    if (name == u.name) return &u;
  return nullptr;
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

std::string expected(UnitKind kind) {
  if (kind == UnitKind::count) return "expected " + unit_kind_name(kind);
  return "expected " + unit_kind_name(kind) + "; units: " + join(unit_names(kind));
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Length of the leading decimal number in s ([+-]digits[.digits][e[+-]digits]); 0 if none.
size_t number_length(std::string_view s) {
  size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  size_t digits = 0;
  while (i < s.size() && is_digit(s[i])) ++i, ++digits;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && is_digit(s[i])) ++i, ++digits;
  }
  if (digits == 0) return 0;
  if (i + 1 < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    size_t j = i + 1;
    if (j < s.size() && (s[j] == '+' || s[j] == '-')) ++j;
    if (j < s.size() && is_digit(s[j])) {
      while (j < s.size() && is_digit(s[j])) ++j;
      i = j;
    }
  }
  return i;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::string fmt6(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

}  // namespace

std::string unit_kind_name(UnitKind kind) {
  switch (kind) {
    case UnitKind::count: return "a plain number (e.g. 132)";
    case UnitKind::frequency: return "a frequency (e.g. 1980 MHz)";
    case UnitKind::bandwidth: return "a bandwidth (e.g. 3.35 TB/s)";
    case UnitKind::size: return "a size (e.g. 50 MiB)";
    case UnitKind::time: return "a time (e.g. 4 us)";
    case UnitKind::power: return "a power (e.g. 700 W)";
    case UnitKind::money_rate: return "a price per hour (e.g. 2.99 USD/h)";
    case UnitKind::flop_per_clk: return "a FLOP rate per clock (e.g. 1024 FLOP/clk)";
    case UnitKind::ops_per_clk: return "an operation rate per clock (e.g. 16 ops/clk)";
    case UnitKind::bytes_per_clk: return "a byte rate per clock (e.g. 128 B/clk)";
  }
  return "?";
}

std::vector<std::string> unit_names(UnitKind kind) {
  std::vector<std::string> out;
  for (const Unit& u : kUnits)
    if (u.kind == kind) out.emplace_back(u.name);
  return out;
}

double parse_quantity(std::string_view text, UnitKind kind, const std::string& where, Sign sign) {
  const std::string quoted = "'" + std::string(text) + "'";
  std::string_view s = trim(text);
  if (s.empty()) throw InputError(where, "empty value; " + expected(kind));
  const size_t n = number_length(s);
  if (n == 0) throw InputError(where, quoted + " does not start with a number; " + expected(kind));

  double value = 0;
  std::string_view num = s.substr(0, n);
  if (num.front() == '+') num.remove_prefix(1);  // from_chars does not take a leading '+'
  auto [ptr, ec] = std::from_chars(num.data(), num.data() + num.size(), value);
  if (ec == std::errc::result_out_of_range || !std::isfinite(value))
    throw InputError(where, quoted + " is out of range; use a realistic value");
  if (ec != std::errc() || ptr != num.data() + num.size())
    throw InputError(where, quoted + " is not a number; " + expected(kind));

  const std::string_view unit = trim(s.substr(n));
  double scale = 1;
  if (kind == UnitKind::count) {
    if (!unit.empty()) {
      const Unit* u = find_unit(unit);
      throw InputError(where, quoted +
                                  (u ? " is " + unit_kind_name(u->kind) : " has unit '" + std::string(unit) + "'") +
                                  "; expected a plain number without a unit");
    }
  } else {
    if (unit.empty()) throw InputError(where, quoted + " has no unit; " + expected(kind));
    const Unit* u = find_unit(unit);
    if (!u) throw InputError(where, "unknown unit '" + std::string(unit) + "' in " + quoted + "; " + expected(kind));
    if (u->kind != kind)
      throw InputError(where, quoted + " is " + unit_kind_name(u->kind) + ", not " + unit_kind_name(kind) +
                                  "; units: " + join(unit_names(kind)));
    scale = u->scale;
  }
  value *= scale;
  if (!std::isfinite(value)) throw InputError(where, quoted + " is out of range; use a realistic value");
  if (value < 0)  // a field that takes 0 must not say "greater than zero"
    throw InputError(where, quoted + " is negative; give a value " +
                                (sign == Sign::positive ? "greater than zero" : ">= 0"));
  if (value == 0 && sign == Sign::positive)
    throw InputError(where, quoted + " is zero; give a value greater than zero");
  return value;
}

FormattedQuantity format_quantity(double v, UnitKind kind) {
  auto pick = [&](std::initializer_list<const char*> names) -> FormattedQuantity {
    // Largest unit of the list whose value is >= 1 (names are in ascending scale).
    const Unit* best = nullptr;
    for (const char* n : names) {
      const Unit* u = find_unit(n);
      if (!best || std::fabs(v) >= u->scale) best = u;
    }
    if (v == 0) best = find_unit(*names.begin());
    return {fmt6(v / best->scale), best->name};
  };
  switch (kind) {
    case UnitKind::count: return {fmt6(v), ""};
    case UnitKind::frequency: return pick({"Hz", "kHz", "MHz"});
    case UnitKind::bandwidth: return pick({"B/s", "KB/s", "MB/s", "GB/s", "TB/s"});
    case UnitKind::size: {
      // Binary units where the size is a whole number of thousandths of one (228 KiB, 60 MiB), decimal otherwise.
      for (const char* n : {"TiB", "GiB", "MiB", "KiB"}) {
        const double scale = find_unit(n)->scale;
        if (v >= scale && std::fmod(v * 1000, scale) == 0 && v / scale < 1e6) return {fmt6(v / scale), n};
      }
      return pick({"B", "KB", "MB", "GB", "TB"});
    }
    case UnitKind::time: return pick({"ns", "us", "ms", "s"});
    case UnitKind::power: return {fmt6(v), "W"};
    case UnitKind::money_rate: return {fmt6(v), "USD/h"};
    case UnitKind::flop_per_clk: return {fmt6(v), "FLOP/clk"};
    case UnitKind::ops_per_clk: return {fmt6(v), "ops/clk"};
    case UnitKind::bytes_per_clk: return {fmt6(v), "B/clk"};
  }
  return {fmt6(v), ""};
}

}  // namespace loom
