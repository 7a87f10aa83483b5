// `loom validate --e2e`: measured end-to-end steps (traces/e2e/) vs loom's e2e prediction, as a table or JSON.
#include <cmath>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "cli/args.h"
#include "cli/commands_validate_e2e.h"
#include "cli/common.h"
#include "cli/table.h"
#include "core/error.h"
#include "e2e/validate_e2e.h"
#include "hw/catalog.h"

namespace loom::cli {

namespace {

std::string tp_tag(const E2eCaseSpec& s) { return s.tp > 1 ? " tp" + std::to_string(s.tp) : ""; }

/// Eager tensor-parallel steps: a collective kernel there also waits for the slowest rank's host, so their GPU time
/// is compared without the collectives (measured and predicted alike); CUDA-graph steps keep them.
bool compute_only(const E2eCaseSpec& s) { return s.tp > 1 && s.mode != "cuda_graph"; }
double gpu_time(const E2eRow& r, const MeasuredStep& m) {
  return compute_only(r.spec) ? m.gpu_us - m.collective_us : m.gpu_us;
}
double gpu_time(const E2eRow& r, const PredictedStep& p) {
  return compute_only(r.spec) ? p.gpu_us - p.collective_us : p.gpu_us;
}

/// "prefill b1 s128 eager", "decode b8 c512 graph", "decode b1 c512 eager tp4*" (* = GPU time without collectives).
std::string case_label(const E2eCaseSpec& s) {
  return s.phase + " b" + std::to_string(s.batch) + (s.phase == "prefill" ? " s" : " c") + std::to_string(s.length) +
         (s.mode == "cuda_graph" ? " graph" : " eager") + tp_tag(s) + (compute_only(s) ? "*" : "");
}

std::string kind(const E2eRow& r) {
  return std::string(r.spec.phase == "prefill" ? "prefill eager"
                                               : (r.spec.mode == "cuda_graph" ? "decode graph" : "decode eager")) +
         (r.spec.tp > 1 ? " tp>1" : "");
}

/// Summary rows per GPU keep single-GPU runs apart from tensor-parallel ones.
std::string gpu_group(const E2eRow& r) { return r.gpu_key + (r.spec.tp > 1 ? " tp>1" : ""); }

std::string pct(double v) { return (v >= 0 ? "+" : "") + fmt(v, 1) + "%"; }

struct Mape {
  double gpu_learned = 0, gpu_analytical = 0, wall = 0, gpu_cross = 0, wall_catalogue = 0;
  int n = 0, n_cross = 0, n_probed = 0;
  void add(const E2eRow& r) {
    const double m = gpu_time(r, r.measured);
    gpu_learned += std::fabs(error_pct(gpu_time(r, r.learned), m));
    gpu_analytical += std::fabs(error_pct(gpu_time(r, r.analytical), m));
    wall += std::fabs(error_pct(r.learned.wall_us, r.measured.wall_us));
    wall_catalogue += std::fabs(error_pct(r.catalogue_host_wall_us, r.measured.wall_us));
    n_probed += r.host_from_probe;
    if (r.cross) gpu_cross += std::fabs(error_pct(gpu_time(r, *r.cross), m)), ++n_cross;
    ++n;
  }
  double g() const { return n ? gpu_learned / n : 0; }
  double a() const { return n ? gpu_analytical / n : 0; }
  double w() const { return n ? wall / n : 0; }
  double wc() const { return n ? wall_catalogue / n : 0; }
  std::string c() const { return n_cross ? fmt(gpu_cross / n_cross, 1) + "%" : "-"; }
};

nlohmann::json families_json(const E2eRow& r) {
  std::set<std::string> keys;
  for (const auto& [f, _] : r.measured.families) keys.insert(f);
  for (const auto& [f, _] : r.learned.families) keys.insert(f);
  nlohmann::json a = nlohmann::json::array();
  for (const auto& f : keys) {
    auto get = [&](const std::map<std::string, FamilyTime>& m) {
      auto it = m.find(f);
      return it == m.end() ? FamilyTime{} : it->second;
    };
    const FamilyTime m = get(r.measured.families), l = get(r.learned.families), an = get(r.analytical.families);
    a.push_back({{"family", f}, {"measured_us", m.gpu_us}, {"measured_launches", m.launches},
                 {"predicted_us", l.gpu_us}, {"analytical_us", an.gpu_us}, {"predicted_launches", l.launches}});
  }
  return a;
}

std::string breakdown_text(const E2eRow& r) {
  Table t;
  t.columns = {"family", "measured us", "launches", "predicted us", "launches", "error", "analytical us"};
  t.right_align = {false, true, true, true, true, true, true};
  for (const auto& f : families_json(r))
    t.add({f["family"].get<std::string>(), fmt(f["measured_us"].get<double>(), 1),
           std::to_string(f["measured_launches"].get<int>()), fmt(f["predicted_us"].get<double>(), 1),
           std::to_string(f["predicted_launches"].get<int>()),
           f["measured_us"].get<double>() > 0 ? pct(error_pct(f["predicted_us"], f["measured_us"])) : "-",
           fmt(f["analytical_us"].get<double>(), 1)});
  return "\nper-family GPU time, " + r.gpu_key + " " + case_label(r.spec) + " (median rep):\n" + t.text();
}

}  // namespace

int cmd_validate_e2e(const std::vector<std::string>& argv) {
  Args args(argv,
            {"--traces", "--profile", "--model-dir", "--cross-model-dir", "--format", "--max-error", "--breakdown"},
            {"--e2e"});
  if (auto max = args.number("--max-error"); max && *max <= 0)  // -0 or 0 failed every GPU (exit 1), as a gate
    throw InputError("--max-error", "must be a percentage > 0");
  args.no_positionals("validate");
  E2eOptions opt;
  opt.traces_dir = args.get("--traces", data_dir() + "/traces/e2e");
  opt.profile = args.get("--profile", opt.profile);
  opt.models_dir = args.get("--model-dir", "");
  opt.cross_models_dir = args.get("--cross-model-dir", "");
  const std::string format = args.format();
  const std::string breakdown = args.get("--breakdown", "first");
  if (breakdown != "first" && breakdown != "all" && breakdown != "none")
    throw InputError("--breakdown", "'" + breakdown + "' is not first, all or none");
  const E2eReport rep = validate_e2e(opt);

  std::map<std::string, Mape> per_gpu, per_kind;
  for (const auto& r : rep.rows) {
    per_gpu[gpu_group(r)].add(r);
    per_kind[r.gpu_key + " " + kind(r)].add(r);
  }
  std::vector<std::string> failures;
  if (auto max = args.number("--max-error"))
    for (const auto& [g, m] : per_gpu) {
      if (m.g() > *max)
        failures.push_back(g + ": GPU-time MAPE " + fmt(m.g(), 3) + "% > --max-error " + fmt(*max, 3) + "%");
      if (m.n_cross && m.gpu_cross / m.n_cross > *max)
        failures.push_back(g + ": GPU-time MAPE with the " + rep.cross_train_gpu + "-only model " + m.c() +
                           " > --max-error " + fmt(*max, 3) + "%");
    }

  std::vector<std::string> warnings;  // cases beyond their model's max_position_embeddings
  for (const auto& r : rep.rows)
    if (!r.warning.empty()) warnings.push_back(r.warning);
  if (format == "json") {
    nlohmann::json j;
    j["schema"] = "loom.validate_e2e/1";
    j["learned_model"] = rep.learned_model;
    j["cases"] = nlohmann::json::array();
    for (const auto& r : rep.rows) {
      auto step = [](const PredictedStep& p) {
        return nlohmann::json{{"gpu_us", p.gpu_us}, {"wall_us", p.wall_us}, {"kernels", p.kernels},
                              {"collective_us", p.collective_us}};
      };
      j["cases"].push_back({{"gpu", r.gpu_key}, {"case", case_label(r.spec)}, {"case_id", r.measured.case_id},
                            {"spec", r.measured.spec}, {"source", r.source}, {"profile", r.profile}, {"mode", r.mode},
                            {"tp", r.spec.tp},
                            {"gpu_error_basis", compute_only(r.spec) ? "without_collectives" : "all_kernels"},
                            {"measured", {{"gpu_us", r.measured.gpu_us}, {"wall_us", r.measured.wall_us},
                                          {"kernels", r.measured.kernels}, {"reps", r.measured.reps},
                                          {"collective_us", r.measured.collective_us},
                                          {"host_us_per_launch", r.measured.host_us_per_launch},
                                          {"host_probes", r.measured.host_probes}}},
                            {"host_cpu_speed", r.host_cpu_speed},
                            {"host_speed_source", r.host_from_probe ? "host_probe" : "catalogue"},
                            {"catalogue_host_wall_us", r.catalogue_host_wall_us},
                            {"catalogue_host_wall_error_pct", error_pct(r.catalogue_host_wall_us, r.measured.wall_us)},
                            {"learned", step(r.learned)}, {"analytical", step(r.analytical)},
                            {"gpu_error_pct", error_pct(gpu_time(r, r.learned), gpu_time(r, r.measured))},
                            {"analytical_gpu_error_pct", error_pct(gpu_time(r, r.analytical), gpu_time(r, r.measured))},
                            {"wall_error_pct", error_pct(r.learned.wall_us, r.measured.wall_us)},
                            {"families", families_json(r)}});
      if (!r.warning.empty()) j["cases"].back()["warning"] = r.warning;
      if (r.cross) {
        j["cases"].back()["cross"] = step(*r.cross);
        j["cases"].back()["cross_gpu_error_pct"] = error_pct(gpu_time(r, *r.cross), gpu_time(r, r.measured));
      }
    }
    auto summary = [](const Mape& m) {
      nlohmann::json s = {{"cases", m.n},
                           {"gpu_mape_pct", m.g()},
                           {"analytical_gpu_mape_pct", m.a()},
                           {"wall_mape_pct", m.w()},
                           {"host_probed_cases", m.n_probed},
                           {"catalogue_host_wall_mape_pct", m.wc()}};
      if (m.n_cross) s["cross_gpu_mape_pct"] = m.gpu_cross / m.n_cross;
      return s;
    };
    for (const auto& [name, m] : per_gpu) j["summary"][name] = summary(m);
    for (const auto& [name, m] : per_kind) j["summary_by_kind"][name] = summary(m);
    j["cross_model"] = {{"dir", rep.cross_models_dir}, {"trained_on", rep.cross_train_gpu}};
    j["skipped"] = rep.skipped;
    j["failures"] = failures;
    j["warnings"] = warnings;
    emit(j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  } else {
    Table t;
    const std::string cross_name = rep.cross_train_gpu.empty() ? "cross" : rep.cross_train_gpu + "-only";
    t.columns = {"case", "gpu", "meas gpu us", "pred gpu us", "error", "analytical", "error", cross_name, "error",
                 "meas wall us", "pred wall us", "error", "host speed", "kernels m/p", "host us/launch"};
    t.right_align = {false, false, true, true, true, true, true, true, true, true, true, true, true, true, true};
    for (const auto& r : rep.rows) {
      const auto& m = r.measured;
      const double mg = gpu_time(r, m), lg = gpu_time(r, r.learned), ag = gpu_time(r, r.analytical);
      const double cg = r.cross ? gpu_time(r, *r.cross) : 0;
      t.add({case_label(r.spec), r.gpu_key, fmt(mg, 1), fmt(lg, 1), pct(error_pct(lg, mg)), fmt(ag, 1),
             pct(error_pct(ag, mg)), r.cross ? fmt(cg, 1) : "-", r.cross ? pct(error_pct(cg, mg)) : "-",
             fmt(m.wall_us, 1), fmt(r.learned.wall_us, 1),
             pct(error_pct(r.learned.wall_us, m.wall_us)),
             fmt(r.host_cpu_speed, 2) + (r.host_from_probe ? " probe" : ""),
             fmt(m.kernels, 0) + "/" + std::to_string(r.learned.kernels),
             fmt(m.kernels > 0 ? (m.wall_us - m.gpu_us) / m.kernels : 0, 1)});
    }
    if (format == "csv") {
      emit(t.csv());
      warn_stderr(warnings);
    } else {
      emit(warning_lines(warnings));
      emit(t.text());
      Table s;
      s.columns = {"gpu / kind", "cases", "GPU-time MAPE", "analytical MAPE", cross_name + " MAPE", "wall MAPE",
                   "wall MAPE, catalogue host"};
      s.right_align = {false, true, true, true, true, true, true};
      for (const auto* group : {&per_gpu, &per_kind})
        for (const auto& [name, m] : *group)
          s.add({name, std::to_string(m.n), fmt(m.g(), 1) + "%", fmt(m.a(), 1) + "%", m.c(), fmt(m.w(), 1) + "%",
                 m.n_probed ? fmt(m.wc(), 1) + "%" : "-"});
      emit("\nsummary (GPU time: sum of kernel durations; wall: the loom.phase range; predicted with the " +
           std::string(rep.learned_model ? "learned" : "analytical (no learned model found)") +
           " kernel model, profile " + (rep.rows.empty() ? opt.profile : rep.rows.front().profile) + "; " + cross_name +
           ": the model trained on " + (rep.cross_train_gpu.empty() ? "one GPU" : rep.cross_train_gpu) +
           "'s corpus only" + (rep.cross_models_dir.empty() ? " (not found)" : " (" + rep.cross_models_dir + ")") +
           "; tp>1: tensor-parallel runs, rank 0's trace; * eager TP steps: GPU time without the collective "
           "kernels, which there also wait for the slowest rank's host; host speed: the catalogue's host.cpu_speed, or "
           "'probe' where the run measured its host beside each eager decode step (loom.host_probe ranges), the "
           "last column then the wall MAPE at the catalogue's speed):\n" + s.text());
      std::set<std::string> shown;
      for (const auto& r : rep.rows) {
        const std::string k = kind(r);
        if (breakdown == "none" || (breakdown == "first" && (shown.count(k) || r.spec.mode == "cuda_graph"))) continue;
        shown.insert(k);
        emit(breakdown_text(r));
      }
      for (const auto& sk : rep.skipped) emit("skipped: " + sk + "\n");
    }
  }
  for (const auto& f : failures) std::fprintf(stderr, "loom: validate --e2e: %s\n", f.c_str());
  return failures.empty() ? 0 : 1;
}

}  // namespace loom::cli
