// Chrome trace event format (Trace Event Format, "X" complete events and "M" metadata events; times in us).
#include "e2e/chrome_trace.h"

#include <algorithm>
#include <string>

namespace loom {

nlohmann::json chrome_trace(const StepPrediction& p) {
  using nlohmann::json;
  json events = json::array();
  auto meta = [&](int tid, const std::string& name) {
    events.push_back({{"ph", "M"}, {"pid", 1}, {"tid", tid}, {"name", "thread_name"}, {"args", {{"name", name}}}});
  };
  events.push_back({{"ph", "M"}, {"pid", 1}, {"name", "process_name"},
                    {"args", {{"name", "loom " + p.model + " on " + p.gpu + " (" + p.profile + ", " +
                                           std::string(mode_name(p.timing.mode)) + ")"}}}});
  meta(1, "host launches");
  meta(2, "layers");
  meta(3, "GPU");
  const auto& ks = p.timing.kernels;
  for (size_t i = 0; i < ks.size(); ++i) {
    const auto& k = ks[i];
    events.push_back({{"ph", "X"}, {"pid", 1}, {"tid", 3}, {"name", k.name}, {"cat", k.family()},
                      {"ts", k.start_us}, {"dur", std::max(0.0, k.end_us - k.start_us)},
                      {"args", {{"layer", k.layer}, {"kernel", k.spec()}, {"gpu_us", k.gpu_us}, {"wall_us", k.wall_us},
                                {"saved_us", k.saved_us}}}});
    if (p.timing.mode == ExecMode::eager || i == 0)
      events.push_back({{"ph", "i"}, {"pid", 1}, {"tid", 1}, {"s", "t"}, {"name", "launch " + k.name},
                        {"ts", k.issue_us}});
  }
  // Layer spans: from the first kernel of a layer to its last.
  for (size_t i = 0; i < ks.size();) {
    size_t j = i;
    while (j + 1 < ks.size() && ks[j + 1].layer == ks[i].layer) ++j;
    const std::string name = ks[i].layer < 0 ? (i == 0 ? "pre" : "post") : "layer " + std::to_string(ks[i].layer);
    events.push_back({{"ph", "X"}, {"pid", 1}, {"tid", 2}, {"name", name}, {"ts", ks[i].start_us},
                      {"dur", std::max(0.0, ks[j].end_us - ks[i].start_us)}});
    i = j + 1;
  }
  return {{"traceEvents", events}, {"displayTimeUnit", "ns"}};
}

}  // namespace loom
