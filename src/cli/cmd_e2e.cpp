// `loom e2e`: TTFT / TPOT, breakdowns, memory fit and a Chrome-trace timeline of one LLM step on one GPU.
#include <array>
#include <charconv>
#include <fstream>
#include <map>
#include <sstream>

#include "cli/commands_e2e.h"
#include "cli/common.h"
#include "cli/interval.h"
#include "cli/table.h"
#include "core/error.h"
#include "core/file_io.h"
#include "core/output_path.h"
#include "e2e/chrome_trace.h"
#include "e2e/e2e.h"
#include "e2e/replay.h"
#include "hw/gpu_values.h"
#include "trace/gpu_names.h"

namespace loom::cli {

namespace {

/// "512" or "512,1024,2048" -> lengths; throws InputError(flag) for anything else.
std::vector<int64_t> lengths(const Args& args, const std::string& flag) {
  std::vector<int64_t> v;
  if (!args.has(flag)) return v;
  std::stringstream ss(args.get(flag) + ",");  // the sentinel makes a trailing empty item ("512,") visible
  for (std::string item; std::getline(ss, item, ',');) {
    // Strict decimal digits: stoll took " 8", "+8" and "-0" (as 0, the context of a decode without one).
    int64_t x = -1;
    const auto [ptr, ec] = std::from_chars(item.data(), item.data() + item.size(), x);
    if (item.empty() || item[0] == '-' || ec != std::errc() || ptr != item.data() + item.size())
      throw InputError(flag, "'" + args.get(flag) + "' is not a length or a comma list of lengths (e.g. 512,1024)");
    v.push_back(x);
  }
  return v;
}

/// Upper limits of e2e's integer flags: beyond them a value is a typo, not a deployment.
int64_t integer(const Args& args, const std::string& flag, int64_t fallback) {
  const int64_t hi = flag == "--tp" ? 1024 : flag == "--batch" ? 1'000'000 : int64_t{1} << 30;
  return args.integer(flag, 1, hi, fallback);
}

nlohmann::json share_json(const std::vector<Share>& v) {
  nlohmann::json a = nlohmann::json::array();
  for (const auto& s : v)
    a.push_back({{"name", s.key}, {"family", s.family}, {"launches", s.launches}, {"gpu_us", s.gpu_us},
                 {"wall_us", s.wall_us}, {"wall_fraction", s.wall_fraction}});
  return a;
}

nlohmann::json step_json(const StepPrediction& s, const ModelConfig& m) {
  const bool prefill = s.work.phase == Phase::prefill;
  nlohmann::json kernels = nlohmann::json::array();
  for (const auto& k : s.timing.kernels)
    kernels.push_back({{"name", k.name}, {"layer", k.layer}, {"family", k.family()}, {"kernel", k.spec()},
                       {"gpu_us", k.gpu_us}, {"start_us", k.start_us}, {"end_us", k.end_us}, {"wall_us", k.wall_us}});
  const auto& mem = s.memory;
  return {{"gpu", s.gpu},
          {"model", s.model},
          {"model_type", m.model_type},
          {"params", m.param_count()},
          {"profile", s.profile},
          {"mode", std::string(mode_name(s.timing.mode))},
          {"phase", prefill ? "prefill" : "decode"},
          {"batch", s.work.batch()},
          {"tp", s.work.tp},
          {"new_tokens", s.work.new_tokens},
          {"context", s.work.context},
          {"gpu_time_us", s.timing.gpu_time_us},
          {"wall_time_us", s.timing.wall_time_us},
          {prefill ? "ttft_us" : "tpot_us", s.timing.wall_time_us},
          {"tokens_per_s", s.tokens_per_s},
          {"launches", s.timing.kernels.size()},
          {"schedule_efficiency", s.timing.schedule_efficiency},
          {"memory",
           {{"weights_bytes", mem.weights_bytes}, {"kv_cache_bytes", mem.kv_cache_bytes},
            {"activation_bytes", mem.activation_bytes}, {"total_bytes", mem.total_bytes},
            {"capacity_bytes", mem.capacity_bytes}, {"usable_bytes", mem.usable_bytes}, {"fits", mem.fits},
            {"note", mem.note}}},
          {"breakdown", {{"by_family", share_json(s.by_family)}, {"by_op", share_json(s.by_op)}}},
          {"kernels", kernels}};
}

/// Rows of a breakdown; the family column only for per-op tables (`first` != "family").
Table share_table(const std::vector<Share>& v, const std::string& first, size_t limit) {
  const bool ops = first != "family";
  Table t{{first, "launches", "gpu_us", "wall_us", "share"}, {}, {false, true, true, true, true}};
  if (ops) t.columns.insert(t.columns.begin() + 1, "family"), t.right_align.insert(t.right_align.begin() + 1, false);
  for (size_t i = 0; i < v.size() && i < limit; ++i) {
    std::vector<std::string> row = {v[i].key, std::to_string(v[i].launches), fmt(v[i].gpu_us), fmt(v[i].wall_us),
                                    fmt(100 * v[i].wall_fraction, 1) + "%"};
    if (ops) row.insert(row.begin() + 1, v[i].family);
    t.add(row);
  }
  return t;
}

std::string step_text(const StepPrediction& s, const ModelConfig& m, size_t top_ops) {
  const bool prefill = s.work.phase == Phase::prefill;
  std::ostringstream o;
  o << "model: " << s.model << " (" << m.model_type << ", " << fmt(m.param_count() / 1e9, 3) << "B params, "
    << dtype_name(m.dtype) << ")   gpu: " << s.gpu << "   tp: " << s.work.tp << "   profile: " << s.profile
    << "   mode: " << mode_name(s.timing.mode) << "\n";
  auto list = [](const std::vector<int64_t>& v) {
    bool same = true;
    for (auto x : v) same = same && x == v.front();
    if (same) return std::to_string(v.front());
    std::string r;
    for (auto x : v) {
      if (!r.empty()) r += ',';
      r += std::to_string(x);
    }
    return r;
  };
  o << "phase: " << (prefill ? "prefill" : "decode") << "   batch: " << s.work.batch();
  if (prefill) o << "   seq: " << list(s.work.new_tokens) << "   cached prefix: " << list(s.work.context);
  else o << "   context: " << list(s.work.context);
  o << "\n\n";
  if (!s.memory.fits) o << "WARNING: this step does not fit in GPU memory (see `memory:` below)\n\n";
  Table sum{{"metric", "value"}, {}, {false, true}};
  sum.add({prefill ? "TTFT (step wall time)" : "TPOT (step wall time)", fmt(s.timing.wall_time_us / 1000, 4) + " ms"});
  sum.add({"GPU time (sum of kernels)", fmt(s.timing.gpu_time_us / 1000, 4) + " ms"});
  sum.add({"launches", std::to_string(s.timing.kernels.size())});
  sum.add({prefill ? "prompt tokens/s" : "output tokens/s", fmt(s.tokens_per_s, 4)});
  sum.add({"weights per GPU", human(s.memory.weights_bytes, "B")});
  sum.add({"KV cache per GPU", human(s.memory.kv_cache_bytes, "B")});
  sum.add({"activations (est.)", human(s.memory.activation_bytes, "B")});
  o << sum.text() << "memory: " << s.memory.note << "\n\nby family:\n"
    << share_table(s.by_family, "family", s.by_family.size()).text() << "\ntop ops (summed over layers):\n"
    << share_table(s.by_op, "op", top_ops).text();
  return o.str();
}

/// --from names the GPU a trace was recorded on: where the trace's deviceProperties name a catalogue GPU, --from
/// must be it, a file with its values, or a file anchored to it (a calibrated overlay, a partition). A trace of an
/// H200 replayed "from" an A100 was re-timed without a word, its output saying "recorded on: NVIDIA H200
/// (a100-sxm4-80gb)" (round 13).
void refuse_other_device(const Catalog& catalog, const GpuSpec& from, const std::string& given,
                         const std::string& device_name) {
  if (device_name.empty()) return;
  const auto key = GpuNameTable::load_default().key_for(device_name);
  if (!key || *key == from.name || (from.anchor && from.anchor->name == *key)) return;
  if (gpu_hardware_values(from, true) == gpu_hardware_values(catalog.get(*key), true)) return;
  throw InputError("--from", "'" + given.substr(0, 80) + "', but the trace was recorded on an " +
                                 device_name.substr(0, 60) + " (" + *key + ", its deviceProperties); drop --from, or "
                                 "give " + *key + " or a GPU file that extends it");
}

/// `loom e2e --replay TRACE.json --gpu G [--from G0]`: a recorded PyTorch trace re-timed for another GPU.
int replay(const Catalog& catalog, const Args& args, const GpuSpec& target) {
  const ChromeTrace trace = read_chrome_trace(args.get("--replay"));
  // No kernels is no answer: a 0 ms "replay" with exit 0 reads as "this trace ran nothing on the target".
  if (trace.kernels.empty())
    throw InputError(args.get("--replay"), "no GPU kernel events (\"cat\": \"kernel\" with ts, dur, name) to replay" +
                                               (trace.skipped_events ? " (" + std::to_string(trace.skipped_events) +
                                                                           " malformed events skipped)"
                                                                     : std::string()) +
                                               "; record it with torch.profiler and ProfilerActivity.CUDA");
  std::optional<GpuSpec> source;
  if (args.has("--from")) {
    source = gpu_named(catalog, args.get("--from"), {}, "--from");
    refuse_other_device(catalog, *source, args.get("--from"), trace.device_name);
  } else if (!trace.device_name.empty()) {
    if (auto key = GpuNameTable::load_default().key_for(trace.device_name)) source = catalog.get(*key);
  }
  // A kernel event without a usable ts/dur/name is skipped, so every total below lacks its time: say so (the replay
  // gave a GPU time 40x too small without a word when one long kernel's "dur" was a string).
  const std::string skipped =
      trace.skipped_kernels ? std::to_string(trace.skipped_kernels) +
                                  " kernel events skipped (ts, dur or name missing or not a number/string): their "
                                  "time is in no total below"
                            : std::string();
  // --kernel-model, when given, picks the per-kernel model (replay's default is analytical).
  const ReplayResult r =
      replay_trace(trace, source, target, args.has("--kernel-model") ? kernel_predictor(args) : KernelPredictor{});
  std::map<std::string, std::array<double, 3>> fam;  // family -> launches, measured, target
  for (const auto& k : r.kernels) {
    auto& f = fam[k.family];
    f[0] += 1, f[1] += k.measured_us, f[2] += k.target_us;
  }
  if (args.format() == "json") {
    nlohmann::json ks = nlohmann::json::array(), fj = nlohmann::json::array();
    for (const auto& k : r.kernels)
      ks.push_back({{"name", k.name}, {"family", k.family}, {"kernel", k.spec}, {"measured_us", k.measured_us},
                    {"source_pred_us", k.source_pred_us}, {"target_us", k.target_us}, {"method", k.method}});
    for (const auto& [name, f] : fam)
      fj.push_back(
          {{"family", name}, {"launches", static_cast<int64_t>(f[0])}, {"measured_us", f[1]}, {"target_us", f[2]}});
    emit(nlohmann::json{{"schema", "loom.e2e_replay/1"},
                        {"trace", r.trace_path},
                        {"device_name", r.device_name},
                        {"source_gpu", r.source_gpu},
                        {"gpu", r.target_gpu},
                        {"measured_gpu_time_us", r.measured_gpu_us},
                        {"measured_wall_time_us", r.measured_span_us},
                        {"idle_us", r.idle_us},
                        {"gpu_time_us", r.target_gpu_us},
                        {"wall_time_us", r.target_span_us},
                        {"mapped", r.mapped},
                        {"unmapped", r.unmapped},
                        {"skipped_kernel_events", trace.skipped_kernels},
                        {"warnings", skipped.empty() ? nlohmann::json::array() : nlohmann::json::array({skipped})},
                        {"breakdown", fj},
                        {"kernels", ks}}
             .dump(2, ' ', false, nlohmann::json::error_handler_t::replace) +
         "\n");
    return 0;
  }
  if (args.format() == "csv") {  // one row per kernel: what a spreadsheet re-aggregates
    Table kt{{"name", "family", "kernel", "measured_us", "source_pred_us", "target_us", "method"}, {}, {}};
    for (const auto& k : r.kernels)
      kt.add(
          {k.name, k.family, k.spec, fmt(k.measured_us, 6), fmt(k.source_pred_us, 6), fmt(k.target_us, 6), k.method});
    if (!skipped.empty()) warn_stderr({skipped});
    emit(kt.csv());
    return 0;
  }
  std::ostringstream o;
  if (!skipped.empty()) o << warning_lines({skipped});
  o << "trace: " << r.trace_path << "   recorded on: " << (r.device_name.empty() ? "?" : r.device_name)
    << " (" << (r.source_gpu.empty() ? "not in the catalogue: pure prediction" : r.source_gpu) << ")   target: "
    << r.target_gpu << "\n";
  o << "kernels: " << r.kernels.size() << " (" << r.mapped << " with a loom spec, " << r.unmapped
    << " re-timed by " << (r.source_gpu.empty() ? "nothing: unchanged" : "the DRAM bandwidth ratio") << ")\n\n";
  Table sum{{"", "recorded", "target"}, {}, {false, true, true}};
  sum.add(
      {"GPU time (sum of kernels)", fmt(r.measured_gpu_us / 1000, 4) + " ms", fmt(r.target_gpu_us / 1000, 4) + " ms"});
  sum.add(
      {"wall time (idle kept)", fmt(r.measured_span_us / 1000, 4) + " ms", fmt(r.target_span_us / 1000, 4) + " ms"});
  Table ft{{"family", "launches", "recorded_us", "target_us", "ratio"}, {}, {false, true, true, true, true}};
  for (const auto& [name, f] : fam)
    ft.add(
        {name, std::to_string(static_cast<int64_t>(f[0])), fmt(f[1]), fmt(f[2]), f[1] > 0 ? fmt(f[2] / f[1], 3) : "-"});
  o << sum.text() << "\nby family:\n" << ft.text();
  emit(o.str());
  return 0;
}

}  // namespace

int cmd_e2e(const std::vector<std::string>& argv) {
  Args args(argv, {"--gpu", "--set", "--model", "--phase", "--batch", "--seq", "--context", "--tp", "--profile",
                   "--mode", "--format", "--trace-out", "--top", "--replay", "--from", "--kernel-model", "--clock",
                   "--cache-len"},
            {"--interval"});
  args.no_positionals("e2e");
  const Catalog catalog = Catalog::load();
  const std::vector<GpuSpec> gpus = select_gpus(catalog, args);
  if (gpus.size() != 1) throw InputError("--gpu", "e2e predicts on one GPU; use `loom whatif --gpus ...` to compare");
  if (args.has("--replay")) {
    args.only("`loom e2e --replay`", {"--replay", "--gpu", "--set", "--from", "--format", "--kernel-model"});
    return replay(catalog, args, gpus[0]);
  }
  if (args.has("--from"))
    throw InputError("--from", "names the GPU a --replay trace was recorded on; give --replay FILE");
  const ModelConfig model = load_model(args.require("--model"));
  const ServingProfile profile = load_profile(args.get("--profile", "vllm"));
  const std::string phase = args.require("--phase");
  const int64_t batch = integer(args, "--batch", 1);
  const int tp = static_cast<int>(integer(args, "--tp", 1));
  Workload work;
  if (phase == "prefill") {
    if (!args.has("--seq")) throw InputError("--seq", "prefill needs --seq (input length, or one per request)");
    work = prefill_workload(batch, lengths(args, "--seq"), lengths(args, "--context"), tp);
  } else if (phase == "decode") {
    // With --context, --seq is the new tokens a step: one in decode. Any other value was silently ignored.
    if (args.has("--context") && args.has("--seq")) {
      const std::vector<int64_t> seq = lengths(args, "--seq");
      if (seq.size() != 1 || seq[0] != 1)
        throw InputError("--seq", "'" + args.get("--seq") + "': a decode step computes one new token per request; give "
                                  "--seq 1 (or leave it out), or --phase prefill for more");
    }
    std::vector<int64_t> ctx = lengths(args, args.has("--context") ? "--context" : "--seq");
    if (ctx.empty()) throw InputError("--context", "decode needs --context (tokens in the KV cache) or --seq");
    work = decode_workload(batch, ctx, tp);
  } else {
    throw InputError("--phase", "'" + phase + "' is not a phase; use prefill or decode");
  }
  // One step's tokens (and KV positions) beyond 2^26 make kernels past loom's size limits: say which flags.
  double tokens = 0, kv = 0;
  for (size_t i = 0; i < work.new_tokens.size(); ++i)
    tokens += double(work.new_tokens[i]), kv += double(work.new_tokens[i]) + double(work.context[i]);
  if (tokens > double(int64_t{1} << 26) || kv > double(int64_t{1} << 30))
    throw InputError(
        phase == "prefill" ? "--batch x --seq" : "--batch x --context",
        "one step of " + std::to_string(int64_t(tokens)) + " new tokens over " + std::to_string(int64_t(kv)) +
            " KV positions is beyond loom's limits (2^26 tokens, 2^30 KV positions a step); use smaller sizes");
  if (args.has("--cache-len")) {
    if (profile.kv_cache != "static")
      throw InputError("--cache-len", "sizes a static KV cache; profile '" + profile.name + "' has kv_cache: " +
                                          profile.kv_cache);
    work.static_cache_len = integer(args, "--cache-len", 0);
    int64_t longest = 0;
    for (size_t i = 0; i < work.context.size(); ++i) longest = std::max(longest, work.context[i] + work.new_tokens[i]);
    if (work.static_cache_len < longest)
      throw InputError("--cache-len", std::to_string(work.static_cache_len) +
                                          " is smaller than the context + new tokens; the cache must hold them");
    if (double(work.static_cache_len) * double(work.batch()) > double(int64_t{1} << 30))  // as --context above
      throw InputError("--cache-len", std::to_string(work.static_cache_len) + " x batch " +
                                          std::to_string(work.batch()) +
                                          " KV positions is beyond loom's limit (2^30 a step); use a smaller cache");
  }
  int64_t positions = 0;
  for (size_t i = 0; i < work.context.size(); ++i)
    positions = std::max(positions, work.context[i] + work.new_tokens[i]);
  std::vector<std::string> warnings;
  for (const std::string& w : {position_warning(model, positions), sliding_window_warning(model, positions)})
    if (!w.empty()) warnings.push_back(w);
  std::optional<ExecMode> mode;
  if (args.has("--mode")) mode = parse_mode(args.get("--mode"));
  // --clock auto: the step as a whole decides (a step of many short kernels throttles as one long kernel does):
  // at boost first; the share of its GPU time past the GPU's measured throttle onset then runs throttled.
  const ClockMode clock = parse_clock_mode(args.get("--clock", "boost"));
  StepPrediction step = predict_step(gpus[0], model, profile, work, mode,
                                     kernel_predictor(args, clock == ClockMode::automatic ? ClockMode::boost : clock));
  double clock_weight = clock == ClockMode::sustained ? 1.0 : 0.0;
  if (clock == ClockMode::automatic) {
    clock_weight = sustained_load_weight(gpus[0], step.timing.gpu_time_us, clock);
    if (clock_weight > 0)
      step =
          predict_step(gpus[0], model, profile, work, mode, kernel_predictor(args, ClockMode::sustained, clock_weight));
  }
  // --interval: the step again at every kernel's lower and upper bound (see cli/interval.h).
  std::optional<BandPredictors> band;
  double lo_us = 0, hi_us = 0;
  if (args.has("--interval")) {
    band = band_predictors(args);
    lo_us = predict_step(gpus[0], model, profile, work, mode, band->lo).timing.wall_time_us;
    hi_us = predict_step(gpus[0], model, profile, work, mode, band->hi).timing.wall_time_us;
  }
  if (args.has("--trace-out")) {
    const std::string path = args.get("--trace-out");
    refuse_stdout_output("--trace-out", path, "also receives the answer; give a file");
    write_file(path, chrome_trace(step).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  }
  const std::string format = args.format();
  if (format == "json") {
    nlohmann::json j = step_json(step, model);
    j["schema"] = "loom.e2e/1";
    j["warnings"] = warnings;
    if (clock != ClockMode::boost)
      j["clock"] = {{"mode", clock_mode_name(clock)}, {"sustained_weight", clock_weight},
                    {"measured", gpus[0].tensor_load_slowdown > 1}};
    if (band) {
      bool extrapolated = false;
      for (const auto& n : *band->notes) extrapolated |= n.rfind("extrapolated", 0) == 0;
      j["interval"] = {{"wall_us", {lo_us, hi_us}}, {"extrapolated", extrapolated}, {"notes", *band->notes},
                       {"method", "step recomputed at every kernel's 10th/90th percentile held-out error"}};
    }
    emit(j.dump(2) + "\n");
  } else if (format == "csv") {
    Table t{{"index", "name", "layer", "family", "kernel", "gpu_us", "start_us", "end_us", "wall_us"}, {}, {}};
    for (size_t i = 0; i < step.timing.kernels.size(); ++i) {
      const auto& k = step.timing.kernels[i];
      t.add({std::to_string(i), k.name, std::to_string(k.layer), k.family(), k.spec(), fmt(k.gpu_us, 4),
             fmt(k.start_us, 6), fmt(k.end_us, 6), fmt(k.wall_us, 4)});
    }
    warn_stderr(warnings);
    emit(t.csv());
  } else {
    std::string text = warning_lines(warnings);
    text += step_text(step, model, static_cast<size_t>(integer(args, "--top", 12)));
    if (clock != ClockMode::boost) {
      const GpuSpec& g = gpus[0];
      if (!(g.tensor_load_slowdown > 1))
        text += "clock: " + std::string(clock_mode_name(clock)) + " has no effect: " + g.name +
                " has no sustained-load measurement (sustained_load.tensor_slowdown in its YAML)\n";
      else if (clock == ClockMode::automatic && !(g.tensor_load_onset_s > 0))
        text += "clock: auto has no effect: " + g.name + " has no measured sustained_load.onset; --clock sustained "
                "applies the slowdown to the whole step\n";
      else
        text += "clock: " + std::string(clock_mode_name(clock)) + ", " + fmt(clock_weight * 100, 3) +
                "% of the step's compute-bound time runs at the throttled clock (x" + fmt(g.tensor_load_slowdown, 3) +
                " on compute-bound kernels" +
                (g.tensor_load_clock_mhz > 0 ? ", " + fmt(g.tensor_load_clock_mhz, 4) + " MHz under tensor load" : "") +
                ")\n";
    }
    if (band) {
      text += "\n" + std::string(phase == "prefill" ? "TTFT" : "TPOT") + " " + fmt(step.timing.wall_time_us / 1e3, 4) +
              " ms, interval " + fmt(lo_us / 1e3, 4) + "-" + fmt(hi_us / 1e3, 4) +
              " ms (every kernel at its 10th / 90th percentile held-out error)\n";
      for (const auto& n : *band->notes) text += "  " + n + "\n";
    }
    emit(text);
  }
  return 0;
}

}  // namespace loom::cli
