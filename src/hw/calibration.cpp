// Calibration results (scripts/torch/calibrate.py) -> GPU YAML overlays (see calibration.h).
#include "hw/calibration.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/json_strict.h"

namespace loom {
namespace {

std::string fmt(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);  // significant digits
  return buf;
}

using json = nlohmann::json;

/// Achievable / datasheet DRAM read bandwidth as calibrate.py measures it (a 4 GiB torch.sum) on the catalogue's
/// measured HBM GPUs: H100 SXM 3.04 of 3.35 TB/s, H200 4.41 of 4.8 TB/s (traces/checks/calibrate/{h100,h200}).
// calibrate.py's graph replay of empty kernels on the H200 (0.842 us a kernel: traces/checks/calibrate/h200): a chip's
// graph_gap is the H200's catalogue graph_gap (GPU-side idle between real kernels in graph replay) scaled by its own
// replay over this.
constexpr double kReferenceGraphUsPerKernel = 0.842;
constexpr double kAchievableDram = (3.04 / 3.35 + 4.41 / 4.8) / 2;

/// Where a value sits: its dotted name for the message ("tensor.bf16.") and its keys, to find its line.
struct Path {
  std::string prefix;
  std::vector<std::string> keys;
  Path(const char* dotted) : Path(std::string(dotted)) {}  // NOLINT: "memory." and the like
  Path(const std::string& dotted) : prefix(dotted) {       // NOLINT
    for (size_t a = 0, b; a < dotted.size(); a = b + 1) {
      b = dotted.find('.', a);
      if (b == std::string::npos) b = dotted.size();
      if (b > a) keys.push_back(dotted.substr(a, b - a));
    }
  }
  Path(std::string p, std::vector<std::string> k) : prefix(std::move(p)), keys(std::move(k)) {}
};

struct Reader {
  const json& j;
  std::string file;
  std::string_view text;  // the result's text, for the line of a bad value (FILE:LINE, as the other readers say)
  /// FILE:LINE of the value at path + key (of the object that lacks it, where it is missing).
  std::string where(const Path& path, const std::string& key) const {
    std::vector<std::string> keys = path.keys;
    if (!key.empty()) keys.push_back(key);
    return file + ":" + std::to_string(json_line_of(text, keys));
  }
  const json& at(const json& o, const std::string& key, const Path& path) const {
    if (!o.is_object() || !o.contains(key))
      throw InputError(where(path, key), "missing '" + path.prefix + key + "'; rerun scripts/torch/calibrate.py");
    return o.at(key);
  }
  double number(const json& o, const std::string& key, const Path& path, double lo, double hi) const {
    const json& v = at(o, key, path);
    if (!v.is_number()) throw InputError(where(path, key), "'" + path.prefix + key + "' is not a number");
    const double x = v.get<double>();
    if (!std::isfinite(x) || x < lo || x > hi)
      throw InputError(where(path, key), "'" + path.prefix + key + "' = " + fmt(x, 6) + " is outside " + fmt(lo, 4) +
                                             ".." + fmt(hi, 4));
    return x;
  }
  /// A number calibrate.py writes that the overlay does not use: checked all the same where present (a result with
  /// a negative power or a zero L2 is corrupt, whichever of its numbers the overlay reads).
  void optional_number(const json& o, const std::string& key, const Path& path, double lo, double hi) const {
    if (o.is_object() && o.contains(key) && !o.at(key).is_null()) number(o, key, path, lo, hi);  // null: no NVML
  }
  /// A count (SMs): an integer, not 131.5 read as 131.
  int64_t integer(const json& o, const std::string& key, const Path& path, int64_t lo, int64_t hi) const {
    const double x = number(o, key, path, double(lo), double(hi));
    if (!at(o, key, path).is_number_integer() && x != std::floor(x))
      throw InputError(where(path, key), "'" + path.prefix + key + "' = " + fmt(x, 8) + " is not a whole number");
    return int64_t(x);
  }
  std::string text_of(const json& o, const std::string& key, const Path& path) const {
    const json& v = at(o, key, path);
    if (!v.is_string() || v.get<std::string>().empty() || v.get<std::string>().size() > 200)
      throw InputError(where(path, key), "'" + path.prefix + key + "' is not a short text");
    std::string s = v.get<std::string>();
    for (char& c : s)
      if (c == '\n' || c == '#' || c == '"' || static_cast<unsigned char>(c) < 0x20) c = ' ';
    return s;
  }
};

/// `sms_source` (scripts/torch/loom_torch.py Partition): "all" (the whole chip), "driver" (a green-context partition
/// whose SM count the driver reported) or "guess" (its query failed and calibrate.py rounded the request up to 8). It
/// was not read (round 13 left it: any text passed); an older result without it is read as before.
std::string sms_source_of(const Reader& r, const json& j, const json& dev, int64_t sms) {
  if (!j.contains("sms_source")) return "";
  const std::string src = r.text_of(j, "sms_source", "");
  if (src != "all" && src != "driver" && src != "guess")
    throw InputError(r.where("", "sms_source"), "'sms_source' = '" + src.substr(0, 40) +
                                 "' is not all, driver or guess; rerun scripts/torch/calibrate.py");
  if (!dev.contains("sms_total")) return src;
  const int64_t total = r.integer(dev, "sms_total", "device.", 1, 1024);
  if (src == "all" && sms != total)
    throw InputError(r.where("", "sms_source"), "'sms_source' = 'all' (the whole chip), but 'sms' = " + std::to_string(sms) + " of its " +
                                 std::to_string(total) + " ('device.sms_total'); rerun scripts/torch/calibrate.py");
  if (src != "all" && sms == total)
    throw InputError(r.where("", "sms_source"), "'sms_source' = '" + src + "' (a green-context partition), but 'sms' = " +
                                 std::to_string(sms) + " is the whole chip ('device.sms_total'); rerun "
                                 "scripts/torch/calibrate.py");
  return src;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

}  // namespace

CalibrationOverlay calibration_overlay(const std::string& body, const std::string& file, const std::string& key,
                                       const GpuSpec& base, const GpuSpec& reference) {
  if (body.size() > (8u << 20)) throw InputError(file, "larger than 8 MiB: not a calibration result");
  const std::string not_json = "not valid JSON ({what}); rerun scripts/torch/calibrate.py";
  const json j = parse_strict_json(body, file, {"; give it once", std::string::npos, not_json, false, not_json});
  const Reader r{j, file, body};
  if (!j.is_object() || r.text_of(j, "schema", "") != "loom.calibration/1")
    throw InputError(r.where("", "schema"), "'schema' is not loom.calibration/1; rerun scripts/torch/calibrate.py");
  const std::string date = r.text_of(j, "date", ""), host = r.text_of(j, "host", "");
  const std::string device = r.text_of(r.at(j, "device", ""), "gpu", "device.");
  const int sms = int(r.integer(j, "sms", "", 1, 1024));
  if (sms > base.sms)
    throw InputError(r.where("", "sms"), "'sms' = " + std::to_string(sms) + " exceeds " + key + "'s " + std::to_string(base.sms) +
                               " SMs: is this result from another GPU? (" + device + ")");
  // (after the check against the entry: its message names the likelier cause)
  const json& dev = r.at(j, "device", "");
  if (dev.contains("sms_total") && r.integer(dev, "sms_total", "device.", 1, 1024) < sms)
    throw InputError(
        r.where("device.", "sms_total"), "'sms' = " + std::to_string(sms) + " exceeds 'device.sms_total'; rerun scripts/torch/calibrate.py");
  const std::string sms_source = sms_source_of(r, j, dev, sms);
  r.optional_number(dev, "clock_mhz", "device.", 100, 10000);
  r.optional_number(dev, "l2_bytes", "device.", 1 << 20, 1e10);
  if (j.contains("nvml") && !j.at("nvml").is_boolean()) throw InputError(r.where("", "nvml"), "'nvml' is not true or false");
  const std::string src = "calibrated " + date + " on " + host + " (" + device + ", " + file + ")";
  const json& mem = r.at(j, "memory", "");
  const double dram_read = r.number(mem, "dram_read_bytes_per_s", "memory.", 1e9, 1e14);
  r.optional_number(mem, "dram_copy_bytes_per_s", "memory.", 1e9, 1e14);
  r.optional_number(mem, "l2_bytes", "memory.", 1 << 20, 1e10);
  const json& tensor = r.at(j, "tensor", "");
  if (!tensor.is_object() || tensor.empty()) throw InputError(r.where("", "tensor"), "'tensor' holds no dtype; rerun calibrate.py");
  std::vector<double> slow, onset, mhz;
  std::string rates;
  for (const auto& [dt, t] : tensor.items()) {
    const Path p{"tensor." + dt + ".", {"tensor", dt}};
    // Sustained / cool GEMM time: 0.98 to 1.2 measured (noise below 1); twice as fast under load is no measurement.
    slow.push_back(r.number(t, "slowdown", p, 0.8, 3));
    const double cool = r.number(t, "cool_tflops", p, 0.01, 1e5), sus = r.number(t, "sustained_tflops", p, 0.01, 1e5);
    for (const char* k : {"cool_us", "sustained_us"}) r.optional_number(t, k, p, 1e-3, 1e9);
    for (const char* k : {"power_w", "power_limit_w"}) r.optional_number(t, k, p, 1, 5000);
    r.optional_number(t, "max_sm_mhz", p, 100, 10000);
    r.optional_number(t, "sustained_sm_mhz", p, 100, 10000);
    // The clock under load is at most the chip's maximum, which is at most the entry's boost clock (a higher one is
    // another GPU's result; the overlay used to drop it without a word).
    if (t.contains("sustained_sm_mhz") && t.at("sustained_sm_mhz").is_number()) {
      const double hi = t.contains("max_sm_mhz") && t.at("max_sm_mhz").is_number()
                            ? std::min(t.at("max_sm_mhz").get<double>(), base.boost_clock_mhz)
                            : base.boost_clock_mhz;
      if (t.at("sustained_sm_mhz").get<double>() > hi)
        throw InputError(r.where(p, "sustained_sm_mhz"), "'" + p.prefix + "sustained_sm_mhz' = " + fmt(t.at("sustained_sm_mhz").get<double>(), 6) +
                                   " MHz is above the chip's maximum (" + fmt(hi, 6) + " MHz, max_sm_mhz or " + key +
                                   "'s boost clock): is this result from another GPU?");
    }
    rates +=
        "#   " + dt + ": " + fmt(cool, 4) + " TFLOPS from a cool start, " + fmt(sus, 4) + " after seconds of load\n";
    if (t.contains("sustained_sm_mhz") && t.at("sustained_sm_mhz").is_number() && dt == "bf16")
      mhz.push_back(r.number(t, "sustained_sm_mhz", p, 100, 10000));
    if (t.contains("clock_left_max_after_s") && t.at("clock_left_max_after_s").is_number())
      onset.push_back(r.number(t, "clock_left_max_after_s", p, 0, 100));
  }
  std::string y = "# " + key + " calibrated on its own chip: `loom calibrate " + file + " --gpu " + key + "`\n" +
                  "# (docs/calibrate.md). Measured there, kept as comments:\n" + rates +
                  "#   DRAM read " + fmt(dram_read / 1e12, 4) + " TB/s achievable\n";
  double graph_us = 0;
  if (const json* l = j.contains("launch") ? &j.at("launch") : nullptr) {
    graph_us = r.number(*l, "graph_us_per_kernel", "launch.", 0, 1e4);
    y += "#   eager PyTorch op " + fmt(r.number(*l, "stream_us_per_kernel", "launch.", 0, 1e4), 3) +
         " us of host time a launch; " + fmt(graph_us, 3) + " us a kernel inside a CUDA graph\n";
  }
  y += "extends: " + key + "\nname: " + base.full_name + " (calibrated)\n";
  if (graph_us > 0.01 && graph_us < 50)
    y += "graph_gap: " + fmt(reference.graph_gap_us * graph_us / kReferenceGraphUsPerKernel, 3) + " us   # " + src +
         ": the H200's measured " + fmt(reference.graph_gap_us, 3) + " us x " + fmt(graph_us, 3) + " / " +
         fmt(kReferenceGraphUsPerKernel, 3) + " us (this chip's / the H200's graph replay of empty kernels)\n";
  // host_cost (scripts/torch/host_cost.py): host time a launch of a tiny eager forward; 12.72 us on the reference
  // host (the lent H200 node's: median of 6 runs, traces/checks/host/speed/repeats.txt). Older results lack it.
  if (const json* h = j.contains("host_cost") ? &j.at("host_cost") : nullptr) {
    // A figure whose speed falls outside the catalogue's host.cpu_speed 0.05-20 was clamped to it without a word
    // (round 15): 0.2 us became speed 20, 5,000 us speed 0.05. Such a probe is refused, as validate --e2e's are.
    const double us = r.number(*h, "us_per_launch", "host_cost.", kReferenceHostUsPerLaunch / kMaxHostCpuSpeed,
                               kReferenceHostUsPerLaunch / kMinHostCpuSpeed);
    r.optional_number(*h, "launches", "host_cost.", 1, 1e7);  // the launches a forward makes (host_cost.py)
    y += "host:\n  cpu_speed: " + fmt(cpu_speed_of_probe(us), 3) + "   # " + src +
         ": " + fmt(us, 3) + " us a launch of a tiny eager forward, " + fmt(kReferenceHostUsPerLaunch, 4) +
         " on the reference host\n";
  }
  if (sms < base.sms)
    y += "sms: " + std::to_string(sms) + "                        # " + src + ": green-context partition" +
         (sms_source == "guess" ? " (SM count guessed: the driver's query failed, calibrate.py rounded up to 8)" : "") +
         "\n";
  const double s = median(slow);
  if (!mhz.empty() && median(mhz) <= base.boost_clock_mhz)
    y += "clock:\n  tensor_load: " + fmt(median(mhz), 5) + " MHz   # " + src + ": bf16 GEMM load, last second\n";
  y += "sustained_load:\n";
  if (s >= 1.005) {
    y += "  tensor_slowdown: " + fmt(s, 4) + "      # " + src + ": median over dtypes of sustained / cool GEMM time\n";
    if (!onset.empty() && median(onset) >= 1e-3)
      y += "  onset: " + fmt(median(onset), 3) + " s            # " + src + ": the SM clock left its maximum\n";
    else
      y += "  onset: none                # " + src + ": not seen (no NVML)\n";
  } else {
    y += "  tensor_slowdown: none        # " + src + ": no slowdown under load (x" + fmt(s, 4) + ")\n"
         "  onset: none\n";
  }
  // Datasheet-equivalent: what the entry's dram.bandwidth would have to say for loom to predict this read, the
  // in-band ECC cost (GpuSpec::effective_dram_bytes_per_s) included where the entry has ECC on.
  const double dram_sheet = dram_read / kAchievableDram * (base.dram_bytes_per_s / base.effective_dram_bytes_per_s());
  if (sms < base.sms)
    y += "# dram.bandwidth kept: a partition of " + std::to_string(sms) + " SMs reads " + fmt(dram_read / 1e12, 4) +
         " TB/s because it has fewer SMs, which the model already knows from sms (not a datasheet error)\n";
  else if (std::abs(dram_sheet / base.dram_bytes_per_s - 1) > 0.05)
    y += "dram:\n  bandwidth: " + fmt(dram_sheet / 1e12, 4) + " TB/s   # " + src + ": " + fmt(dram_read / 1e12, 4) +
         " TB/s achievable read / " + fmt(kAchievableDram, 3) + " (the achievable fraction of the catalogue's " +
         "measured HBM GPUs); the entry says " + fmt(base.dram_bytes_per_s / 1e12, 4) + " TB/s\n";
  else
    y += "# dram.bandwidth kept: the measured read (" + fmt(dram_read / 1e12, 4) + " TB/s) is within 5% of what the " +
         "entry's " + fmt(base.dram_bytes_per_s / 1e12, 4) + " TB/s predicts (x" + fmt(kAchievableDram, 3) + ")\n";
  return {y, device, r.where("device.", "gpu")};
}

}  // namespace loom
