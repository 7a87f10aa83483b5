// Measured end-to-end steps from CUPTI traces vs loom's e2e prediction (rules in validate_e2e.h).
#include "e2e/validate_e2e.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <sstream>

#include "core/error.h"
#include "e2e/e2e.h"
#include "hw/calibration.h"
#include "hw/catalog.h"
#include "kernels/shape.h"
#include "learned/predictor.h"
#include "trace/gpu_names.h"
#include "trace/import.h"
#include "trace/kernel_names.h"
#include "trace/text_io.h"

namespace fs = std::filesystem;

namespace loom {

E2eCaseSpec parse_e2e_spec(const std::string& spec, const std::string& where) {
  std::istringstream ss(spec);
  std::string family;
  ss >> family;
  E2eCaseSpec c;
  if (family == "e2e_prefill") c.phase = "prefill";
  else if (family == "e2e_decode") c.phase = "decode";
  else throw InputError(where, "'" + family + "' is not an end-to-end case; expected e2e_prefill or e2e_decode");
  const std::string length_key = c.phase == "prefill" ? "seq" : "context";
  bool have_batch = false, have_length = false;
  for (std::string kv; ss >> kv;) {
    const size_t eq = kv.find('=');
    if (eq == std::string::npos) throw InputError(where, "'" + kv + "' is not key=value");
    const std::string key = kv.substr(0, eq), value = kv.substr(eq + 1);
    auto integer = [&]() {
      size_t used = 0;
      long long x = 0;
      try {
        x = std::stoll(value, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used != value.size() || x < 1) throw InputError(where, key + "='" + value + "' must be a positive integer");
      return static_cast<int64_t>(x);
    };
    if (key == "model") c.model = value;
    else if (key == "dtype") c.dtype = value;
    else if (key == "mode") c.mode = value;
    else if (key == "batch") c.batch = integer(), have_batch = true;
    else if (key == length_key) c.length = integer(), have_length = true;
    else if (key == "tp") {
      const int64_t t = integer();
      if (t > 8) throw InputError(where, "tp='" + value + "' is above 8 (one node)");
      c.tp = static_cast<int>(t);
    } else {  // a key of the other phase (decode's seq=) or a typo was silently ignored
      throw InputError(where, "'" + kv + "' is not a key of an " + family + " case (model, batch, " + length_key +
                                  ", dtype, mode, tp); fix the case list");
    }
  }
  if (c.model.empty() || !have_batch || !have_length)
    throw InputError(where, "'" + spec + "' needs model=, batch= and " + length_key + "=");
  if (c.mode != "eager" && c.mode != "cuda_graph")
    throw InputError(where, "mode '" + c.mode + "' is not eager or cuda_graph");
  return c;
}

double error_pct(double predicted, double measured) {
  return measured != 0 ? 100.0 * (predicted - measured) / measured : 0.0;
}

std::string trace_family(const std::string& f) {
  if (f.rfind("attention", 0) == 0) return "attention";
  return f;  // gemm, elementwise, softmax, rms_norm, moe, all_reduce: the classifier uses the same names
}

namespace {

double median_of(std::vector<double> v) { return v.empty() ? 0.0 : quantile(std::move(v), 0.5); }

/// host_cost.py's "us a launch" under loom's CUPTI collector over the same without it, on a quiet host: the three
/// lowest of eight interleaved runs each, 14.89 / 12.61 us on the lent H200 node (2026-11-28,
/// traces/checks/host/h200/probe-collector.tsv; `PROBE_ONLY=1 ROUNDS='1 2 3 4 5 6 7 8' bash
/// scripts/hf-eager-host-collect.sh`). The host probes of a traced run are read against the reference times this.
constexpr double kCollectorProbeCost = 1.18;

/// The probes' median, read as validate_e2e does (without the collector's cost), must give a host.cpu_speed in the
/// catalogue's range: a probe range squeezed to nanoseconds or holding one launch of many was clamped to speed 20 or
/// 0.05 without a word (round 15).
void check_host_probes(const MeasuredStep& m, const std::string& where) {
  if (m.host_probes == 0) return;
  const double us = m.host_us_per_launch / kCollectorProbeCost;
  const double lo = kReferenceHostUsPerLaunch / kMaxHostCpuSpeed, hi = kReferenceHostUsPerLaunch / kMinHostCpuSpeed;
  if (us >= lo && us <= hi) return;
  char buf[320];
  std::snprintf(buf, sizeof buf,
                "its %d loom.host_probe ranges take %.3g us a launch (median; %.3g without the collector), a host %.3g "
                "times the reference's speed, outside host.cpu_speed %g-%g (%.3g-%.4g us); check the probe ranges "
                "and their kernels (hf_eager.py --host-probe)",
                m.host_probes, m.host_us_per_launch, us, kReferenceHostUsPerLaunch / us, kMinHostCpuSpeed,
                kMaxHostCpuSpeed, lo, hi);
  throw InputError(where, buf);
}

}  // namespace

std::vector<MeasuredStep> measure_e2e_steps(const LctTrace& lct, const CaseList& cases,
                                            std::vector<std::string>& skipped) {
  if (lct.meta.count("gpu") && cases.meta.count("gpu") && lct.meta.at("gpu") != cases.meta.at("gpu"))
    throw InputError(cases.path, "gpu '" + cases.meta.at("gpu") + "' differs from the trace's '" + lct.meta.at("gpu") +
                                     "' (" + lct.path + "); pair each case list with its own trace");
  std::vector<const LctKernel*> kernels;
  for (const auto& k : lct.kernels)
    if (k.name.find("loom_l2_flush") == std::string::npos) kernels.push_back(&k);
  std::sort(kernels.begin(), kernels.end(),
            [](const LctKernel* a, const LctKernel* b) { return a->start_ns < b->start_ns; });
  std::map<std::string, std::vector<const LctRange*>> by_name;
  std::vector<const LctRange*> reps, phases, probes;
  for (const auto& r : lct.ranges) {
    if (r.name == "loom.rep") reps.push_back(&r);
    else if (r.name == "loom.host_probe") probes.push_back(&r);
    else if (r.name.rfind("loom.phase=", 0) == 0) phases.push_back(&r);
    else by_name[r.name].push_back(&r);
  }
  std::sort(reps.begin(), reps.end(), [](const LctRange* a, const LctRange* b) { return a->start_ns < b->start_ns; });
  std::map<std::string, std::string> demangled;  // mangled -> classifier family
  auto family_of = [&](const std::string& name) -> const std::string& {
    auto it = demangled.find(name);
    if (it == demangled.end()) it = demangled.emplace(name, classify_kernel(demangle(name)).family).first;
    return it->second;
  };
  // The kernels that start inside a range (a kernel belongs to the range holding its start), in start order.
  auto starting_in = [&](const LctRange* r) {
    auto lo = std::lower_bound(kernels.begin(), kernels.end(), r->start_ns,
                               [](const LctKernel* k, int64_t t) { return k->start_ns < t; });
    auto hi = std::lower_bound(lo, kernels.end(), r->end_ns,
                               [](const LctKernel* k, int64_t t) { return k->start_ns < t; });
    return std::make_pair(lo, hi);
  };
  std::vector<MeasuredStep> out;
  for (const auto& row : cases.cases) {
    const std::string id = "case " + std::to_string(row.case_id);
    auto cr = by_name.find("loom.case=" + std::to_string(row.case_id));
    if (cr == by_name.end() || cr->second.size() != 1) {
      skipped.push_back(cases.path + " " + id + ": " +
                        (cr == by_name.end() ? "no loom.case range" : "more than one loom.case range"));
      continue;
    }
    const LctRange& c = *cr->second.front();
    MeasuredStep m;
    m.case_id = row.case_id;
    m.spec = row.spec;
    std::vector<double> gpu, wall, count, comm;
    std::vector<std::map<std::string, FamilyTime>> fams;
    for (const LctRange* r : reps) {
      if (r->start_ns < c.start_ns || r->end_ns > c.end_ns) continue;
      const auto [lo, hi] = starting_in(r);
      double sum = 0, sum_comm = 0;
      int n = 0;
      std::map<std::string, FamilyTime> f;
      for (auto it = lo; it != hi; ++it) {
        sum += (*it)->duration_us();
        ++n;
        const std::string& fam = family_of((*it)->name);
        if (is_collective(fam)) sum_comm += (*it)->duration_us();
        FamilyTime& ft = f[fam];
        ft.gpu_us += (*it)->duration_us();
        ft.launches += 1;
      }
      if (n == 0) continue;  // a rep without kernels measures nothing
      const LctRange* ph = nullptr;
      for (const LctRange* p : phases)
        if (p->start_ns >= r->start_ns && p->end_ns <= r->end_ns) ph = p;
      const LctRange& w = ph ? *ph : *r;
      gpu.push_back(sum);
      comm.push_back(sum_comm);
      wall.push_back(double(w.end_ns - w.start_ns) * 1e-3);
      count.push_back(n);
      fams.push_back(std::move(f));
    }
    if (gpu.empty()) {
      skipped.push_back(cases.path + " " + id + ": no loom.rep range with kernels");
      continue;
    }
    m.reps = static_cast<int>(gpu.size());
    m.gpu_us = median_of(gpu);
    m.wall_us = median_of(wall);
    m.kernels = median_of(count);
    m.collective_us = median_of(comm);
    std::vector<size_t> order(gpu.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return gpu[a] < gpu[b]; });
    m.families = fams[order[(order.size() - 1) / 2]];
    std::vector<double> probe_us;
    for (const LctRange* r : probes) {
      if (r->start_ns < c.start_ns || r->end_ns > c.end_ns) continue;
      const auto [lo, hi] = starting_in(r);
      const auto n = hi - lo;
      if (n > 0) probe_us.push_back(double(r->end_ns - r->start_ns) * 1e-3 / n);
    }
    m.host_probes = static_cast<int>(probe_us.size());
    m.host_us_per_launch = median_of(probe_us);
    check_host_probes(m, lct.path + ": " + id);
    out.push_back(std::move(m));
  }
  return out;
}

namespace {

PredictedStep predict(const GpuSpec& gpu, const ModelConfig& model, const ServingProfile& profile,
                      const Workload& work, ExecMode mode, const KernelPredictor& predictor) {
  PredictedStep p;
  const StepPrediction s = predict_step(gpu, model, profile, work, mode, predictor);
  p.gpu_us = s.timing.gpu_time_us;
  p.wall_us = s.timing.wall_time_us;
  p.kernels = static_cast<int>(s.timing.kernels.size());
  for (const auto& k : s.timing.kernels) {
    // The trace classifier files PyTorch's reduce_kernel (the RMSNorm mean, argmax) under "reduce".
    const KernelSpec& spec = k.shape->parts.front();
    const auto op = spec.params.find("op");
    const bool reduce = spec.family == "elementwise" && op != spec.params.end() && is_row_reduction(op->second);
    const std::string fam = reduce ? "reduce" : trace_family(k.family());
    if (is_collective(fam)) p.collective_us += k.gpu_us;
    FamilyTime& f = p.families[fam];
    f.gpu_us += k.gpu_us;
    f.launches += 1;
  }
  return p;
}

/// graph_decode.py sizes its StaticCache as context + decode steps + warm-up steps + 16; newer case lists say
/// the extra directly (`max_cache_len_extra`), older ones give decode_steps and ran the default 3 warm-up steps.
int64_t static_cache_extra(const CaseList& cases) {
  auto number = [&](const char* key, int64_t fallback) {
    auto it = cases.meta.find(key);
    if (it == cases.meta.end()) return fallback;
    const auto v = trace_io::parse_i64(it->second);
    if (!v) throw InputError(cases.path, std::string("metadata ") + key + "='" + it->second + "' is not an integer");
    return *v;
  };
  const int64_t extra = number("max_cache_len_extra", -1);
  return extra >= 0 ? extra : number("decode_steps", 10) + 3 + 16;
}

/// What the end-to-end validation reads of a case list beyond its rows' specs: at least one case, each row's family
/// the spec's, and a known decode_impl (an unknown one was priced as HF's StaticCache without a word).
void check_e2e_case_list(const CaseList& cases, const std::string& path) {
  if (cases.cases.empty())
    throw InputError(path, "no cases (only the header); record the run again or remove the case list and its trace");
  for (const auto& r : cases.cases) {
    const std::string first = r.spec.substr(0, r.spec.find(' '));
    if (r.family != first)
      throw InputError(path + ": case " + std::to_string(r.case_id),
                       "family '" + r.family + "' differs from its spec's '" + first + "'; fix the row");
  }
  const auto impl = cases.meta.find("decode_impl");
  if (impl != cases.meta.end() && impl->second != "hf_static_cache" && impl->second != "manual_static_kv")
    throw InputError(path, "#decode_impl=" + impl->second + " is not hf_static_cache or manual_static_kv (the decode "
                           "loops loom models); fix the header");
}

std::string lct_beside(const fs::path& cases_path) {
  const std::string stem = cases_path.filename().string().substr(0, cases_path.filename().string().size() -
                                                                        std::string(".cases.csv").size());
  for (const char* ext : {".lct.gz", ".lct"}) {
    const fs::path p = cases_path.parent_path() / (stem + ext);
    if (fs::exists(p)) return p.string();
  }
  return "";
}

}  // namespace

E2eReport validate_e2e(const E2eOptions& opt) {
  std::vector<std::string> lists;
  std::error_code ec;
  if (!fs::is_directory(opt.traces_dir, ec))
    throw InputError("--traces",
                     "'" + opt.traces_dir + "' is not a directory; give the folder of *.cases.csv + .lct.gz");
  for (auto it = fs::recursive_directory_iterator(opt.traces_dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (it->is_regular_file() && name.size() > 10 && name.compare(name.size() - 10, 10, ".cases.csv") == 0)
      lists.push_back(it->path().string());
  }
  std::sort(lists.begin(), lists.end());
  if (lists.empty())
    throw InputError("--traces", "no *.cases.csv below '" + opt.traces_dir + "'; record with scripts/torch/e2e/*.py");
  const Catalog catalog = Catalog::load(opt.gpus_dir);
  const GpuNameTable names = GpuNameTable::load_default();
  const Predictor learned("learned", opt.models_dir), analytical("analytical");
  E2eReport rep;
  rep.learned_model = learned.learned();
  const KernelPredictor learned_fn = [&](const GpuSpec& g, const KernelSpec& k) { return learned.latency_us(g, k); };
  std::string cross_dir = opt.cross_models_dir;
  if (cross_dir.empty()) {
    const fs::path p = fs::path(data_dir()) / "models" / ("efficiency-" + opt.cross_train_gpu);
    if (fs::exists(p / "model.json")) cross_dir = p.string();
  }
  if (cross_dir == "none") cross_dir.clear();
  std::optional<Predictor> cross;
  if (!cross_dir.empty()) {
    cross.emplace("learned", cross_dir);
    const std::string root = data_dir() + "/";
    rep.cross_models_dir = cross_dir.rfind(root, 0) == 0 ? cross_dir.substr(root.size()) : cross_dir;
    rep.cross_train_gpu = opt.cross_train_gpu;
  }
  const ServingProfile base = load_profile(opt.profile);
  std::optional<ServingProfile> manual_profile;
  for (const auto& path : lists) {
    const std::string lct_path = lct_beside(path);
    if (lct_path.empty()) throw InputError(path, "no .lct(.gz) trace of the same name beside it; copy the run's trace");
    const CaseList cases = read_case_list(path);
    check_e2e_case_list(cases, path);
    const LctTrace lct = read_lct(lct_path);
    const std::string device = cases.meta.count("gpu") ? cases.meta.at("gpu") : "";
    const auto key = names.key_for(device);
    if (!key) throw InputError(path, "GPU '" + device + "' is not in " + names.path() + "; add it there");
    const GpuSpec gpu = catalog.get(*key);
    std::vector<std::string> skipped;
    std::vector<MeasuredStep> steps = measure_e2e_steps(lct, cases, skipped);
    rep.skipped.insert(rep.skipped.end(), skipped.begin(), skipped.end());
    for (auto& m : steps) {
      E2eRow row;
      row.source = path;
      row.gpu_key = *key;
      row.spec = parse_e2e_spec(m.spec, path + ": case " + std::to_string(m.case_id));
      ModelConfig model;
      try {
        model = load_model(row.spec.model);
      } catch (const InputError& e) {  // the case list's model=, not a --model flag (there is none here)
        if (e.where() != "--model") throw;
        throw InputError(path + ": case " + std::to_string(m.case_id), "model=" + row.spec.model + ": " + e.detail());
      }
      // tp_e2e.py captures its CUDA-graph decode with llama_model.ManualDecoder (decode_impl=manual_static_kv):
      // plain PyTorch over a static cache, described by models/profiles/torch-static.yaml.
      const auto impl = cases.meta.find("decode_impl");
      const bool manual =
          impl != cases.meta.end() && impl->second == "manual_static_kv" && row.spec.mode == "cuda_graph";
      if (manual && !manual_profile) manual_profile = load_profile("torch-static");
      ServingProfile profile = manual ? *manual_profile : base;
      // The trace's rep is exactly one forward pass: a prefill rep samples nothing (no sampler kernel); a decode
      // rep ends with the greedy argmax of the hf profiles' `sampler: argmax`.
      if (row.spec.phase == "prefill") profile.sampler = "none";
      // graph_decode.py captures the step over HF's StaticCache (case-list metadata decode_impl=hf_static_cache).
      if (row.spec.mode == "cuda_graph") profile.kv_cache = "static";
      const ExecMode mode = row.spec.mode == "cuda_graph" ? ExecMode::graph : ExecMode::eager;
      row.profile = profile.name;
      row.mode = std::string(mode_name(mode));
      Workload work = row.spec.phase == "prefill" ? prefill_workload(row.spec.batch, {row.spec.length}, {}, row.spec.tp)
                                                  : decode_workload(row.spec.batch, {row.spec.length}, row.spec.tp);
      if (profile.kv_cache == "static") work.static_cache_len = row.spec.length + static_cache_extra(cases);
      int64_t positions = 0;  // as `loom e2e`: the longest context + new tokens of the step
      for (size_t i = 0; i < work.context.size(); ++i)
        positions = std::max(positions, work.context[i] + work.new_tokens[i]);
      row.warning = position_warning(model, positions);
      if (!row.warning.empty()) row.warning = path + ": case " + std::to_string(m.case_id) + ": " + row.warning;
      // An eager step recorded with host probes is predicted at the host speed measured beside it. The probes ran
      // under the collector, which costs the probe kCollectorProbeCost; the reference figure was taken without it.
      GpuSpec host_gpu = gpu;
      row.host_cpu_speed = gpu.host_cpu_speed;
      if (m.host_us_per_launch > 0 && mode == ExecMode::eager) {
        host_gpu.host_cpu_speed = cpu_speed_of_probe(m.host_us_per_launch / kCollectorProbeCost);
        row.host_cpu_speed = host_gpu.host_cpu_speed;
        row.host_from_probe = true;
      }
      row.learned = predict(host_gpu, model, profile, work, mode, learned_fn);
      row.catalogue_host_wall_us =
          row.host_from_probe ? predict(gpu, model, profile, work, mode, learned_fn).wall_us : row.learned.wall_us;
      row.analytical = predict(host_gpu, model, profile, work, mode, analytical_predictor());
      if (cross && *key != opt.cross_train_gpu)
        row.cross = predict(host_gpu, model, profile, work, mode,
                            [&](const GpuSpec& g, const KernelSpec& k) { return cross->latency_us(g, k); });
      row.measured = std::move(m);
      rep.rows.push_back(std::move(row));
    }
  }
  // Every case skipped (a case list whose ids no loom.case range of its trace has): the table was empty, exit 0.
  if (rep.rows.empty())
    throw InputError("--traces " + opt.traces_dir,
                     "no case could be measured (" + std::to_string(rep.skipped.size()) + " skipped, e.g. " +
                         (rep.skipped.empty() ? std::string("none") : rep.skipped.front()) +
                         "); pair each case list with the trace of its run");
  std::stable_sort(rep.rows.begin(), rep.rows.end(),
                   [](const E2eRow& a, const E2eRow& b) { return a.gpu_key < b.gpu_key; });
  return rep;
}

}  // namespace loom
