// `loom trace fit-collectives` (measured all_reduce, all_gather, reduce_scatter, send_recv -> models/collectives.json)
// and `loom validate --collectives` (each GPU's collectives predicted from the other GPUs' fits of the same op:
// leave-one-GPU-out error per message-size regime, beside the own fit and the analytical ring).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

#include "cli/args.h"
#include "cli/commands_collectives.h"
#include "cli/common.h"
#include "cli/table.h"
#include "core/error.h"
#include "core/file_io.h"
#include "core/output_path.h"
#include "kernels/kernel_spec.h"
#include "learned/collectives.h"

namespace loom::cli {
namespace {

constexpr int64_t kLargeBytes = 1 << 20;  // the brief's split: >= 1 MB is bandwidth-bound territory

std::map<std::string, GpuSpec> catalogue_gpus(const Catalog& cat) {
  std::map<std::string, GpuSpec> out;
  for (const auto& n : cat.names()) out.emplace(n, cat.get(n));
  return out;
}

struct Err {
  double sum = 0;
  size_t n = 0;
  void add(double pred, double meas) { sum += std::fabs(pred / meas - 1) * 100, ++n; }
  double mape() const { return n ? sum / n : NAN; }
  std::string text() const { return n ? fmt(mape(), 1) + "%" : "-"; }
};

using PointSets = std::map<std::pair<std::string, std::string>,
                           std::map<std::pair<std::string, std::string>, std::vector<CollectivePoint>>>;

/// Every (op, impl) set's fits, all_reduce nccl first.
std::vector<CollectiveModel> fit_sets(const PointSets& sets, const std::map<std::string, GpuSpec>& gpus) {
  std::vector<CollectiveModel> out;
  for (const auto& op : collective_ops())
    for (const char* impl : {"nccl", "custom"})
      if (auto it = sets.find({op, impl}); it != sets.end() && !it->second.empty())
        out.push_back(fit_collectives(it->second, gpus, impl, op));
  return out;
}

struct Row {
  const CollectiveFit* fit = nullptr;
  Err logo[2], own[2], analytical[2];  // [0] < 1 MB, [1] >= 1 MB
  std::map<int, std::vector<double>> held_ratio;  // held-out prediction / measurement per octave of bytes (JSON)
};

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

}  // namespace

int cmd_fit_collectives(const Args& args) {
  const std::string traces = args.get("--traces", data_dir() + "/traces");
  const std::string out = args.output(default_collectives_path());
  refuse_stdout_output("-o", out, "would mix the fits with the table printed there; give a file");
  check_output_file(out);
  const Catalog cat = Catalog::load();
  const PointSets sets = load_collective_point_sets(traces);
  if (sets.empty())
    throw InputError(
        traces, "no collective corpora below it; import some with `loom trace import --from pipeweave|vidur|loom`");
  CollectiveModel m;
  for (const auto& set : fit_sets(sets, catalogue_gpus(cat)))
    for (const auto& f : set.fits) m.fits.push_back(f);
  m.save(out);
  Table t{{"op", "impl", "gpu", "topology", "gpus", "points", "break", "small alpha us", "small busbw GB/s",
           "large alpha us", "large busbw GB/s", "link GB/s", "fit MAPE <1MB", "fit MAPE >=1MB"},
          {},
          {false, false, false, false, true, true, true, true, true, true, true, true, true, true}};
  for (const auto& f : m.fits)
    t.add({f.op, f.impl, f.gpu_key, f.topology, std::to_string(f.gpus), std::to_string(f.points),
           human(double(f.break_bytes), "B"), fmt(f.small.alpha_us, 1), fmt(f.small.busbw_bytes_per_s / 1e9, 1),
           fmt(f.large.alpha_us, 1), fmt(f.large.busbw_bytes_per_s / 1e9, 1), fmt(f.link_bytes_per_s / 1e9, 1),
           fmt(f.mape_small, 1) + "%", fmt(f.mape_large, 1) + "%"});
  emit(t.text());
  std::fprintf(stderr, "loom: wrote %zu fits to %s\n", m.fits.size(), out.c_str());
  return 0;
}

int cmd_validate_collectives(const std::vector<std::string>& argv) {
  Args args(argv, {"--traces", "--format", "--max-mape"}, {"--collectives"});
  args.no_positionals("validate --collectives");
  const std::string traces = args.get("--traces", data_dir() + "/traces");
  const std::string format = args.format();
  const std::optional<double> max_mape = args.number("--max-mape");
  if (max_mape && !(*max_mape > 0 && *max_mape <= 1000))
    throw InputError("--max-mape", "must be a percentage in (0, 1000]");
  const Catalog cat = Catalog::load();
  const auto gpus = catalogue_gpus(cat);
  const PointSets sets = load_collective_point_sets(traces);
  if (!sets.count({"all_reduce", "nccl"}))
    throw InputError(traces,
                     "no all_reduce corpora below it; import some with `loom trace import --from pipeweave|vidur`");
  const std::vector<CollectiveModel> models = fit_sets(sets, gpus);
  std::vector<Row> rows;
  std::map<std::string, Row> per_gpu;  // NCCL all_reduce only: the held-out figure the gate checks
  std::map<std::string, Row> per_transport;  // NCCL all_reduce by how its bytes move: "p2p", "host"
  std::vector<std::pair<std::string, Row>> totals;  // per (op, impl): "all_reduce nccl", ...
  for (const CollectiveModel& all : models) {
    const std::string op = all.fits.front().op, impl = all.fits.front().impl;
    const bool gate = op == "all_reduce" && impl == "nccl";
    totals.push_back({op + " " + impl, Row{}});
    Row& total = totals.back().second;
    for (const auto& f : all.fits) {
      std::vector<CollectiveFit> others;
      for (const auto& o : all.fits)
        if (o.gpu_key != f.gpu_key) others.push_back(o);
      if (!(f.link_bytes_per_s > 0)) continue;  // no YAML bandwidth for its link: nothing to calibrate against
      const CollectiveFit held = calibrated_fit(others, f.architecture, f.link, f.link_bytes_per_s, f.gpus, f.topology);
      const bool has_held = !others.empty() && held.small.busbw_bytes_per_s > 0 && held.large.busbw_bytes_per_s > 0;
      const GpuSpec& gpu = gpus.at(f.gpu_key);
      Row r;
      r.fit = &f;
      for (const auto& p : sets.at({op, impl}).at({f.gpu_key, f.topology})) {
        if (p.gpus != f.gpus) continue;
        const int big = p.bytes >= kLargeBytes;
        const std::string spec = op + " bytes=" + std::to_string(p.bytes) +
                                 (op == "send_recv" ? "" : " gpus=" + std::to_string(p.gpus)) +
                                 (impl == "custom" ? " impl=custom" : "");
        const double an = analyze(gpu, parse_kernel_spec(spec)).latency_us;
        if (has_held)
          r.held_ratio[int(std::floor(std::log2(double(p.bytes))))].push_back(held.latency_us(p.bytes) / p.latency_us);
        std::vector<Row*> into = {&r, &total};
        if (gate) into.push_back(&per_gpu[f.gpu_key]), into.push_back(&per_transport[collective_transport(f.link)]);
        for (Row* x : into) {
          if (has_held) x->logo[big].add(held.latency_us(p.bytes), p.latency_us);
          x->own[big].add(f.latency_us(p.bytes), p.latency_us);
          x->analytical[big].add(an, p.latency_us);
        }
      }
      rows.push_back(r);
    }
  }
  bool over = false;
  std::string over_what;
  for (const auto& [g, r] : per_gpu)
    if (max_mape && r.logo[1].n && r.logo[1].mape() > *max_mape)
      over = true, over_what += (over_what.empty() ? "" : ", ") + g + " " + fmt(r.logo[1].mape(), 3) + "%";
  if (format == "json") {
    nlohmann::ordered_json j;
    j["schema"] = "loom.validate_collectives/1";
    auto errs = [](const Row& r) {
      nlohmann::ordered_json e;
      const char* names[2] = {"small", "large"};
      for (int b = 0; b < 2; ++b)
        e[names[b]] = {{"n", r.logo[b].n}, {"leave_one_gpu_out_mape_pct", r.logo[b].n ? r.logo[b].mape() : 0.0},
                       {"own_fit_mape_pct", r.own[b].n ? r.own[b].mape() : 0.0},
                       {"analytical_mape_pct", r.analytical[b].n ? r.analytical[b].mape() : 0.0}};
      return e;
    };
    j["large_bytes"] = kLargeBytes;
    for (const auto& r : rows) {
      auto e = errs(r);
      e["op"] = r.fit->op, e["impl"] = r.fit->impl, e["gpu"] = r.fit->gpu_key, e["topology"] = r.fit->topology,
      e["gpus"] = r.fit->gpus, e["link"] = r.fit->link;
      // Where the held-out error sits: per octave of message bytes (key: floor(log2 bytes)), the median of
      // prediction / measurement and the MAPE.
      for (const auto& [oct, v] : r.held_ratio) {
        double sum = 0;
        for (double x : v) sum += std::fabs(x - 1) * 100;
        e["held_out_by_octave"][std::to_string(oct)] = {
            {"n", v.size()}, {"median_ratio", median_of(v)}, {"mape_pct", sum / v.size()}};
      }
      j["fits"].push_back(e);
    }
    for (const auto& [g, r] : per_gpu) {
      auto e = errs(r);
      e["gpu"] = g;
      j["gpus"].push_back(e);
    }
    for (const auto& [tr, r] : per_transport) j["all_by_transport"][tr] = errs(r);
    for (const auto& [name, r] : totals) {
      if (name == "all_reduce nccl") j["all"] = errs(r);
      else if (name == "all_reduce custom") j["all_custom"] = errs(r);
      j["ops"][name] = errs(r);
    }
    emit(j.dump(1) + "\n");
  } else {
    Table t{{"op", "impl", "gpu", "topology", "gpus", "link", "n >=1MB", "held-out >=1MB", "own fit >=1MB",
             "analytical >=1MB", "n <1MB", "held-out <1MB", "own fit <1MB", "analytical <1MB"}, {},
            {false, false, false, false, true, false, true, true, true, true, true, true, true, true}};
    auto add = [&](const std::string& op, const std::string& impl, const std::string& g, const std::string& topo,
                   const std::string& n, const std::string& link, const Row& r) {
      t.add({op, impl, g, topo, n, link, std::to_string(r.logo[1].n), r.logo[1].text(), r.own[1].text(),
             r.analytical[1].text(), std::to_string(r.logo[0].n), r.logo[0].text(), r.own[0].text(),
             r.analytical[0].text()});
    };
    for (const auto& r : rows)
      add(r.fit->op, r.fit->impl, r.fit->gpu_key, r.fit->topology, std::to_string(r.fit->gpus), r.fit->link, r);
    for (const auto& [g, r] : per_gpu) add("all_reduce", "nccl", g, "all", "all", "", r);
    for (const auto& [tr, r] : per_transport) add("all_reduce", "nccl", "all", tr, "all", "", r);
    for (const auto& [name, r] : totals)
      add(name.substr(0, name.find(' ')), name.substr(name.find(' ') + 1), "all", "all", "all", "", r);
    emit(format == "csv"
             ? t.csv()
             : t.text() +
                   "held-out: the GPU's collective from its YAML link bandwidth x the other GPUs' fitted efficiency of "
                   "the same op (leave one GPU out; '-' where no other GPU has a fit of that op and impl; topology "
                   "p2p / host: the sets whose ring writes peer to peer / stages through host memory); own fit: "
                   "models/collectives.json's fit (what `loom predict` uses); analytical: the ring model "
                   "(impl=custom: the same; send_recv: one link); MAPE of the measured median.\n");
  }
  if (over)
    std::fprintf(stderr, "loom: validate --collectives: held-out all_reduce MAPE (>= 1 MB) above --max-mape %s%%: %s\n",
                 fmt(*max_mape, 4).c_str(), over_what.c_str());
  return over ? 1 : 0;
}

}  // namespace loom::cli
