// Quantities with explicit units ("1980 MHz", "3.35 TB/s", "50 MiB", "4 us") parsed into base SI values, and back.
// One spelling per unit; KB/MB/GB/TB are decimal (1 TB = 1e12 B), KiB/MiB/GiB/TiB binary.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace loom {

/// What a quantity measures; each kind has its own unit list and base unit.
enum class UnitKind {
  count,          ///< plain number, no unit ("132")
  frequency,      ///< base: Hz        (Hz, kHz, MHz, GHz)
  bandwidth,      ///< base: B/s       (B/s, KB/s, MB/s, GB/s, TB/s, KiB/s, MiB/s, GiB/s, TiB/s)
  size,           ///< base: bytes     (B, KB, MB, GB, TB, KiB, MiB, GiB, TiB)
  time,           ///< base: s         (ns, us, ms, s)
  power,          ///< base: W         (W, kW)
  money_rate,     ///< base: USD/h     (USD/h)
  flop_per_clk,   ///< base: FLOP/clk  (FLOP/clk)
  ops_per_clk,    ///< base: ops/clk   (ops/clk)
  bytes_per_clk,  ///< base: B/clk     (B/clk)
};

/// Whether zero is an acceptable value (negative values are always rejected).
enum class Sign { positive, non_negative };

/// Human name of a kind with an example, e.g. "a bandwidth (e.g. 3.35 TB/s)".
std::string unit_kind_name(UnitKind kind);

/// Units accepted for a kind, e.g. {"Hz", "kHz", "MHz", "GHz"} (empty for count).
std::vector<std::string> unit_names(UnitKind kind);

/// Parses "<number>[ ]<unit>" (space optional) into the kind's base unit. Throws InputError(where, ...) naming the
/// expected unit kind when the text is not a number, the unit is unknown or of another kind, or the sign is wrong.
double parse_quantity(std::string_view text, UnitKind kind, const std::string& where, Sign sign = Sign::positive);

/// A value split for display: number text and unit ("3.35", "TB/s").
struct FormattedQuantity {
  std::string number;
  std::string unit;
};

/// Formats a base-unit value with a readable unit (sizes: binary units when exact, else decimal); parsing
/// number + " " + unit gives the value back to 6 significant digits.
FormattedQuantity format_quantity(double base_value, UnitKind kind);

}  // namespace loom
