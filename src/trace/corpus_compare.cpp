// corpus_difference: whether two corpora hold the same metadata and rows, bit for bit (the check behind
// `loom trace compact` and `loom trace diff`).
#include <array>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <string>

#include "trace/trace.h"

namespace loom {
namespace {

bool same_number(double a, double b) { return std::bit_cast<uint64_t>(a) == std::bit_cast<uint64_t>(b); }

std::string num_bits(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

std::string dim3_text(const std::array<int64_t, 3>& d) {
  return std::to_string(d[0]) + ":" + std::to_string(d[1]) + ":" + std::to_string(d[2]);
}

// The first field of two rows that differs, as "FIELD: A vs B", or "".
std::string row_difference(const CorpusRow& a, const CorpusRow& b) {
  auto text = [](const char* f, const std::string& x, const std::string& y) {
    return x == y ? std::string() : std::string(f) + ": '" + x.substr(0, 80) + "' vs '" + y.substr(0, 80) + "'";
  };
  auto integer = [](const char* f, int64_t x, int64_t y) {
    return x == y ? std::string() : std::string(f) + ": " + std::to_string(x) + " vs " + std::to_string(y);
  };
  auto number = [](const char* f, double x, double y) {
    return same_number(x, y) ? std::string() : std::string(f) + ": " + num_bits(x) + " vs " + num_bits(y);
  };
  for (std::string d : {integer("case_id", a.case_id, b.case_id), text("family", a.family, b.family),
                        text("spec", a.spec, b.spec), text("impl", a.impl, b.impl),
                        text("kernels", a.kernels, b.kernels), text("grid", dim3_text(a.grid), dim3_text(b.grid)),
                        text("block", dim3_text(a.block), dim3_text(b.block)), integer("regs", a.regs, b.regs),
                        integer("smem_bytes", a.smem_bytes, b.smem_bytes), integer("reps", a.reps, b.reps),
                        number("median_us", a.median_us, b.median_us), number("p10_us", a.p10_us, b.p10_us),
                        number("p90_us", a.p90_us, b.p90_us), number("spread_pct", a.spread_pct, b.spread_pct),
                        number("event_median_us", a.event_median_us, b.event_median_us)})
    if (!d.empty()) return d;
  return "";
}

}  // namespace

std::string corpus_difference(const Corpus& a, const Corpus& b) {
  if (a.meta != b.meta) {
    for (const auto& [k, v] : a.meta) {
      auto it = b.meta.find(k);
      if (it == b.meta.end()) return "metadata '" + k + "' only in the first";
      if (it->second != v)
        return "metadata '" + k + "': '" + v.substr(0, 80) + "' vs '" + it->second.substr(0, 80) + "'";
    }
    for (const auto& [k, v] : b.meta)
      if (!a.meta.count(k)) return "metadata '" + k + "' only in the second";
  }
  if (a.gpu != b.gpu || a.gpu_key != b.gpu_key || a.sms != b.sms || !same_number(a.clock_mhz, b.clock_mhz))
    return "gpu, gpu_key, sms or clock_mhz differ";
  if (a.rows.size() != b.rows.size())
    return std::to_string(a.rows.size()) + " rows vs " + std::to_string(b.rows.size());
  for (size_t i = 0; i < a.rows.size(); ++i)
    if (std::string d = row_difference(a.rows[i], b.rows[i]); !d.empty())
      return "row " + std::to_string(i + 1) + " (case_id " + std::to_string(a.rows[i].case_id) + "): " + d;
  return "";
}

}  // namespace loom
