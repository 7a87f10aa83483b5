// Alpha-beta fits of measured collective latency (see collectives.h), their JSON file and the estimate that
// predictions use.
#include "learned/collectives.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/file_io.h"
#include "hw/catalog.h"
#include "trace/trace.h"

namespace loom {
namespace {


int64_t spec_int(const std::string& spec, const std::string& key) {
  const auto p = spec.find(" " + key + "=");
  if (p == std::string::npos) return 0;
  return std::strtoll(spec.c_str() + p + key.size() + 2, nullptr, 10);
}

/// Relative least squares: minimise sum ((alpha + x / bw - t) / t)^2 over (x, t), alpha >= 0, bw > 0.
AlphaBeta fit_alpha_beta(const std::vector<std::pair<double, double>>& xt) {
  double s11 = 0, s12 = 0, s22 = 0, r1 = 0, r2 = 0;
  for (const auto& [x, t] : xt) {
    const double u = 1 / t, v = x / t;
    s11 += u * u, s12 += u * v, s22 += v * v, r1 += u, r2 += v;
  }
  const double det = s11 * s22 - s12 * s12;
  double a = det != 0 ? (r1 * s22 - r2 * s12) / det : 0, b = det != 0 ? (s11 * r2 - s12 * r1) / det : 0;
  if (a < 0) a = 0, b = s22 > 0 ? r2 / s22 : 0;  // no negative latency: the bandwidth term alone
  if (b <= 1e-15) b = 1e-15, a = s11 > 0 ? (r1 - b * s12) / s11 : 0;  // flat: the latency term alone
  return {a, 1e6 / b};  // b is us per byte
}

double mean_rel_err(const AlphaBeta& f, const std::vector<std::pair<double, double>>& xt, size_t lo, size_t hi) {
  double e = 0;
  for (size_t i = lo; i < hi; ++i) e += std::fabs(f.latency_us(xt[i].first) / xt[i].second - 1);
  return e;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : (v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]));
}

/// The link a topology rides on at `gpus` ranks. A pairwise NVLink bridge joins 2 GPUs; a ring over more alternates
/// bridged pairs and PCIe hops between them (peer to peer: the node has peer access, as NVLink-bridged servers do), so
/// PCIe bounds it ("pcie-p2p"). A PCIe-only node ("pcie": the public RTX boxes reach 35-58% of PCIe, as far below
/// PCIe peer-to-peer's ~85% as NCCL's host-memory path) and NCCL with P2P off ("pcie-nop2p": loom's H200s with
/// NCCL_P2P_DISABLE=1) stage through host memory across the CPU root complex: "pcie".
std::string link_of(const std::string& topology, int gpus) {
  if (topology == "nvswitch" || topology == "nvswitch-nvls-off" || topology == "nvlink-4gpu") return "nvlink";
  if (topology == "pairwise-nvlink") return gpus <= 2 ? "nvlink-bridge" : "pcie-p2p";
  return "pcie";
}

/// The YAML link a fit's link is a case of (an own fit counts only on the GPU's YAML link: an H200 measured with
/// P2P off is not how an H200 node runs).
std::string yaml_link_of(const std::string& link) { return link == "pcie-p2p" ? "pcie" : link; }

/// The per-direction bandwidth a ring of `gpus` GPUs can use on `link`; 0 when the YAML does not give it (the
/// catalogue holds no NVLink bridge of PCIe boards). On a 4-GPU NVLink mesh each peer has a third of the links; on
/// a YAML's nvlink-mesh (interconnect.topology) each of the mesh's n-1 peers 1/(n-1) of them.
double link_bw(const GpuSpec& g, const std::string& topology, const std::string& link, int gpus) {
  if (link == "pcie" || link == "pcie-p2p") return g.pcie_bytes_per_s;
  if (link != "nvlink") return 0;
  if (topology == "nvlink-4gpu") return g.nvlink_bytes_per_s * std::min(gpus - 1, 3) / 3.0;
  return topology == "nvlink-mesh" ? g.mesh_nvlink_bytes_per_s(gpus) : g.nvlink_bytes_per_s;
}

/// NCCL's modelled latency of a ring of the Simple protocol (src/graph/tuning.cc: base 8.4 us plus, per step, 3.4 us
/// over NVLink or 5.7 us over PCIe; all_reduce takes 2(g-1) steps, all_gather / reduce_scatter g-1, send_recv 1).
/// Only ratios of it are used: a pooled large-message alpha is carried to another link and GPU count by them.
int nccl_ring_steps(const std::string& op, int gpus) {
  return op == "all_reduce" ? 2 * (gpus - 1) : op == "send_recv" ? 1 : gpus - 1;
}

double nccl_ring_simple_us(const std::string& op, const std::string& link, int gpus) {
  return 8.4 + nccl_ring_steps(op, gpus) * (link == "nvlink" ? 3.4 : 5.7);
}

/// How a fit's break (the message size where the latency-bound regime hands over to the bandwidth-bound one) moves
/// to another link and GPU count. NCCL picks the protocol of least modelled time (src/graph/tuning.cc): LL, a ring of
/// 3.6 us plus 0.47 us (NVLink) or 1.0 us (PCIe) per step at a fraction of the bandwidth, against Simple (above), so
/// the switch lies where the latency gap is paid back: message bytes* = (Simple - LL latency) x algorithm bandwidth,
/// algbw = link bandwidth x efficiency x message bytes per bus byte. The ratio of that for (link, gpus) to the fit's.
double break_scale(const std::string& op, const std::string& link, double link_bytes_per_s, int gpus,
                   const CollectiveFit& f) {
  const auto gap = [&](const std::string& l, int g) {
    return nccl_ring_simple_us(op, l, g) - (3.6 + nccl_ring_steps(op, g) * (l == "nvlink" ? 0.47 : 1.0));
  };
  const double per_bus = collective_bus_bytes(op, 1 << 20, f.gpus) / collective_bus_bytes(op, 1 << 20, gpus);
  return gap(link, gpus) / gap(f.link, f.gpus) * link_bytes_per_s / f.link_bytes_per_s * per_bus;
}

/// Whether NCCL can reduce in the switch (NVLS, NVLink SHARP) on `gpus` GPUs of `topology`: an NVSwitch node of
/// Hopper or later (third-generation NVSwitch, NVLink multicast) and more than 2 GPUs (NCCL src/transport/nvls.cc,
/// ncclNvlsInit: no NVLS at <= 2 GPUs); "nvswitch-nvls-off" is a node that ran with it off (loom's lent H200s).
/// NVLS carries a large message as ~1x the bytes per GPU where a ring moves 2(g-1)/g, with its own latency: the
/// 8-GPU Hopper fits reach 0.9-1.07 of NVLink (ring fits: 0.59-0.83), so ring and NVLS fits are pooled apart.
/// A GPU's YAML topology maps onto these names in estimate_collective; NVLS stays a Hopper/Blackwell switch's.
bool nvls_capable(const std::string& topology, const std::string& architecture, int gpus) {
  return topology == "nvswitch" && gpus > 2 && (architecture == "hopper" || architecture == "blackwell");
}

/// The narrowest non-empty pool of `fits` (with a YAML link bandwidth) that passes one of `passes`, tried in order.
template <class Pass>
std::vector<const CollectiveFit*> first_pool(const std::vector<CollectiveFit>& fits, const std::vector<Pass>& passes) {
  std::vector<const CollectiveFit*> pool;
  for (size_t p = 0; p < passes.size() && pool.empty(); ++p)
    for (const auto& f : fits)
      if (f.link_bytes_per_s > 0 && passes[p](f)) pool.push_back(&f);
  return pool;
}

}  // namespace

std::string collective_transport(const std::string& link) { return link == "pcie" ? "host" : "p2p"; }

const std::vector<std::string>& collective_ops() {
  static const std::vector<std::string> ops = {"all_reduce", "all_gather", "reduce_scatter", "send_recv"};
  return ops;
}

double collective_bus_bytes(const std::string& op, int64_t bytes, int gpus) {
  if (op == "send_recv") return double(bytes);
  const double share = double(gpus - 1) / gpus * double(bytes);
  return op == "all_reduce" ? 2 * share : share;
}

double CollectiveFit::latency_us(int64_t bytes) const {
  const double x = collective_bus_bytes(op, bytes, gpus);
  return (bytes < break_bytes ? small : large).latency_us(x);
}

CollectiveFit fit_collective(const std::vector<CollectivePoint>& points, int gpus, const std::string& where,
                             const std::string& op) {
  // Bins of a quarter octave (medians): the profiles hold thousands of sizes with launch-noise spikes.
  std::map<int, std::pair<std::vector<double>, std::vector<double>>> bins;
  CollectiveFit f;
  f.gpus = gpus, f.op = op;
  for (const auto& p : points) {
    if (p.gpus != gpus) continue;
    auto& b = bins[int(std::floor(std::log2(double(p.bytes)) * 4))];
    b.first.push_back(double(p.bytes)), b.second.push_back(p.latency_us);
    ++f.points;
  }
  if (f.points == 0) throw InputError(where, "no points for gpus=" + std::to_string(gpus));
  // Fewer sizes than this leave the two regimes and their break undetermined (a 2-size fit printed inf% errors).
  if (bins.size() < 4)
    throw InputError(where, "gpus=" + std::to_string(gpus) + ": " + std::to_string(bins.size()) +
                                        " distinct message sizes (quarter-octave bins); a fit needs at least 4: "
                                        "measure more sizes");
  std::vector<std::pair<double, double>> xt;  // (bus bytes, latency) per bin
  std::vector<double> edge;                   // bytes of each bin
  for (auto& [_, b] : bins) {
    edge.push_back(median(b.first));
    xt.push_back({collective_bus_bytes(op, int64_t(edge.back()), gpus), median(b.second)});
  }
  // The break: every bin edge with >= 3 bins on each side, or none (one regime); least mean relative error wins.
  double best = 1e300;
  for (size_t k = 0; k + 3 <= xt.size(); ++k) {
    if (k > 0 && k < 3) continue;
    std::vector<std::pair<double, double>> lo(xt.begin(), xt.begin() + k), hi(xt.begin() + k, xt.end());
    const AlphaBeta s = k ? fit_alpha_beta(lo) : AlphaBeta{}, l = fit_alpha_beta(hi);
    const double e = (k ? mean_rel_err(s, xt, 0, k) : 0) + mean_rel_err(l, xt, k, xt.size());
    if (e < best) best = e, f.small = k ? s : l, f.large = l, f.break_bytes = k ? int64_t(edge[k]) : 0;
  }
  double es = 0, el = 0;
  size_t ns = 0, nl = 0;
  for (const auto& p : points) {
    if (p.gpus != gpus) continue;
    const double e = std::fabs(f.latency_us(p.bytes) / p.latency_us - 1) * 100;
    (p.bytes >= (1 << 20) ? el : es) += e;
    ++(p.bytes >= (1 << 20) ? nl : ns);
  }
  f.mape_small = ns ? es / ns : 0, f.mape_large = nl ? el / nl : 0;
  return f;
}

CollectiveModel fit_collectives(
    const std::map<std::pair<std::string, std::string>, std::vector<CollectivePoint>>& points,
    const std::map<std::string, GpuSpec>& gpus, const std::string& impl, const std::string& op) {
  CollectiveModel m;
  for (const auto& [key, pts] : points) {
    std::vector<int> counts;
    for (const auto& p : pts) counts.push_back(p.gpus);
    std::sort(counts.begin(), counts.end());
    counts.erase(std::unique(counts.begin(), counts.end()), counts.end());
    for (int g : counts) {
      CollectiveFit f = fit_collective(pts, g, key.first + " " + key.second + " " + impl + " " + op, op);
      f.gpu_key = key.first, f.topology = key.second, f.impl = impl;
      f.link = link_of(f.topology, g);
      auto it = gpus.find(f.gpu_key);
      if (it == gpus.end()) throw InputError(f.gpu_key, "not in the GPU catalogue; add gpus/" + f.gpu_key + ".yaml");
      f.link_bytes_per_s = link_bw(it->second, f.topology, f.link, g);
      f.architecture = it->second.architecture;
      m.fits.push_back(f);
    }
  }
  return m;
}

std::map<std::pair<std::string, std::string>,
         std::map<std::pair<std::string, std::string>, std::vector<CollectivePoint>>>
load_collective_point_sets(const std::string& traces_dir) {
  std::map<std::pair<std::string, std::string>,
           std::map<std::pair<std::string, std::string>, std::vector<CollectivePoint>>>
      out;
  const auto& ops = collective_ops();
  for (const Corpus& c : read_corpus_dir(traces_dir)) {
    auto t = c.meta.find("topology");
    const std::string topo = t == c.meta.end() ? "nvswitch" : t->second;
    for (const CorpusRow& r : c.rows) {
      if (c.gpu_key.empty() || !(r.median_us > 0) || std::find(ops.begin(), ops.end(), r.family) == ops.end()) continue;
      const bool custom = r.impl == "custom" || r.spec.find(" impl=custom") != std::string::npos;
      if (custom && r.family != "all_reduce") continue;
      const int64_t b = spec_int(r.spec, "bytes"), g = r.family == "send_recv" ? 2 : spec_int(r.spec, "gpus");
      if (b > 0 && g > 1 && g <= 1024)
        out[{r.family, custom ? "custom" : "nccl"}][{c.gpu_key, topo}].push_back({b, int(g), r.median_us});
    }
  }
  return out;
}

std::map<std::pair<std::string, std::string>, std::vector<CollectivePoint>> load_collective_points(
    const std::string& traces_dir, const std::string& impl, const std::string& op) {
  auto sets = load_collective_point_sets(traces_dir);
  return sets[{op, impl}];
}

std::optional<CollectiveEstimate> estimate_all_reduce(const CollectiveModel& m, const GpuSpec& gpu, int gpus,
                                                      int64_t bytes, const std::string& impl) {
  return estimate_collective(m, gpu, "all_reduce", gpus, bytes, impl);
}

std::optional<CollectiveEstimate> estimate_collective(const CollectiveModel& m, const GpuSpec& gpu,
                                                      const std::string& op, int gpus, int64_t bytes,
                                                      const std::string& impl) {
  const auto mine = [&](const CollectiveFit& f) { return f.impl == impl && f.op == op; };
  const bool any = std::any_of(m.fits.begin(), m.fits.end(), mine);
  if (!any || gpus <= 1) return std::nullopt;
  // The full-node topology first: the mesh's own ("nvlink-4gpu") on an NVLink mesh, the switch's elsewhere.
  const std::string gpu_topology = gpu.node_topology();
  const bool mesh = gpu_topology == "nvlink-mesh";
  const auto topo_rank = [mesh](const std::string& t) {
    if (mesh) return t == "nvlink-4gpu" ? 0 : t.rfind("nvswitch", 0) == 0 ? 1 : 2;
    return t.rfind("nvswitch", 0) == 0 ? 0 : t == "pcie" ? 1 : 2;
  };
  // NVLink carries the ring where every GPU of it shares one NVLink domain; past a 2-way bridge's pair the ring
  // alternates bridges and PCIe hops (peer to peer, as the bridged A100 PCIe node measured), so PCIe bounds it.
  const bool bridged = gpu.nvlink_bytes_per_s > 0 && gpu.nvlink_gpus > 0 && gpus > gpu.nvlink_gpus;
  const std::string yaml_link = gpu.nvlink_bytes_per_s > 0 && !bridged ? "nvlink" : "pcie";
  const CollectiveFit* own = nullptr;
  for (const auto& f : m.fits) {
    if (!mine(f)) continue;
    // A fit over a link the YAML lacks (an NVLink bridge on a PCIe board) describes another machine than this one.
    if (f.gpu_key != gpu.name || !(f.link_bytes_per_s > 0) || yaml_link_of(f.link) != yaml_link) continue;
    // So does an NVLS fit (the switch reduced) for a GPU whose YAML puts no NVSwitch in its node
    // (interconnect.topology): `--set interconnect.topology=nvlink-mesh` on h100-sxm leaves its ring fits.
    if (gpu_topology != "nvswitch" && f.impl == "nccl" && nvls_capable(f.topology, f.architecture, f.gpus)) continue;
    // Closest GPU count first, then the full-node topology.
    auto score = [&](const CollectiveFit& x) { return std::abs(x.gpus - gpus) * 10 + topo_rank(x.topology); };
    if (!own || score(f) < score(*own)) own = &f;
  }
  CollectiveEstimate e;
  if (own) {
    // At another GPU count the ring's busbw and step latency carry over; the bus bytes follow 2(g-1)/g.
    CollectiveFit f = *own;
    f.gpus = gpus;
    e.latency_us = f.latency_us(bytes);
    e.band_pct = bytes >= (1 << 20) ? own->mape_large : own->mape_small;
    e.basis = "fit " + (op == "all_reduce" ? "" : op + " ") + (impl == "nccl" ? "" : impl + " ") + own->gpu_key + " " +
              own->topology + " gpus=" + std::to_string(own->gpus);
    if (own->gpus != gpus)
      e.extrapolation = "extrapolated: no measured " + op + " at gpus=" + std::to_string(gpus) + " on " + gpu.name +
                        " (fit at gpus=" + std::to_string(own->gpus) + " used)";
    return e;
  }
  const std::string link = bridged ? "pcie-p2p" : yaml_link;
  std::vector<CollectiveFit> same_impl;
  for (const auto& x : m.fits)
    if (mine(x)) same_impl.push_back(x);
  // The YAML's interconnect.topology (inferred where absent: NVLink without a 2-way bridge is an NVSwitch board) as
  // the fits name it: an NVSwitch board, an NVLink mesh, a box of bridged pairs (within a pair or past it), PCIe.
  const std::string topology = link != "nvlink" ? (bridged ? "pairwise-nvlink" : "pcie")
                               : gpu_topology == "nvlink-mesh"   ? "nvlink-mesh"
                               : gpu_topology == "nvlink-bridge" ? "pairwise-nvlink"
                                                                 : "nvswitch";
  CollectiveFit f =
      calibrated_fit(same_impl, gpu.architecture, link, link_bw(gpu, topology, link, gpus), gpus, topology);
  if (!(f.small.busbw_bytes_per_s > 0) || !(f.large.busbw_bytes_per_s > 0)) return std::nullopt;
  e.latency_us = f.latency_us(bytes);
  e.basis = "yaml " + link + " x fitted efficiency" + (impl == "nccl" ? "" : " of " + impl) +
            (op == "all_reduce" ? "" : " (" + op + ")");
  e.extrapolation = "extrapolated: no measured " + (impl == "nccl" ? std::string() : impl + " ") + op + " on " +
                    gpu.name + " (its " + link + " bandwidth x the efficiency of the measured GPUs)";
  return e;
}

CollectiveFit calibrated_fit(const std::vector<CollectiveFit>& fits, const std::string& architecture,
                             const std::string& link, double link_bytes_per_s, int gpus, const std::string& topology) {
  // Two pools, each the narrowest that has fits (medians over it). Bandwidth, the large-message busbw / link
  // bandwidth: same transport (p2p or through host), architecture (NVLink generation, NCCL's tuning per SM version)
  // and GPU count; same transport and architecture; for p2p, same transport and GPU count; for host, the same PCIe
  // generation and width; same transport (a host-staged ring is bound by the host's memory path, so its other GPU
  // counts stay in). Latency, the alphas, the
  // small-message busbw and the break: same transport, architecture and GPU count; same transport and GPU count (a
  // ring's hops and NCCL's protocol switch follow the GPU count); same transport. Large-message alphas are carried
  // over by NCCL's ring latency model (nccl_ring_simple_us). What the large-message regime holds (its busbw, alpha
  // and where it starts) is pooled by algorithm too: NVLS fits apart from ring-only ones (nvls_capable); the small
  // messages run NCCL's LL ring either way. NCCL fits only: the engines' custom all-reduce never uses NVLS.
  const std::string tr = collective_transport(link);
  const bool nccl = fits.empty() || fits.front().impl == "nccl";
  const bool nvls = nccl && nvls_capable(topology, architecture, gpus);
  using Pass = std::function<bool(const CollectiveFit&)>;
  const auto same_tr = [&](const CollectiveFit& f) { return collective_transport(f.link) == tr; };
  const auto same_alg = [&](const CollectiveFit& f) {
    return same_tr(f) && (nccl && nvls_capable(f.topology, f.architecture, f.gpus)) == nvls;
  };
  const auto any = [](const CollectiveFit&) { return true; };
  // The same PCIe generation and width (the YAML's per-direction PCIe bandwidth: Gen4 x16 32 GB/s, Gen5 x16 64 GB/s):
  // a host-staged ring's hops cross that link twice (GPU -> host memory -> GPU), and a GPU of one generation sits in a
  // host of the same era (its root complex and memory); loom's P2P-off H200s measure the Gen5 path.
  const auto same_pcie = [&](const CollectiveFit& f) {
    return std::fabs(f.link_bytes_per_s / link_bytes_per_s - 1) < 0.05;
  };
  // Each pass list once with the same algorithm and then, where no fit of it exists, with any algorithm.
  const auto twice = [&](const std::function<std::vector<Pass>(const Pass&)>& passes) {
    std::vector<Pass> out = passes(same_alg), rest = passes(same_tr);
    out.insert(out.end(), rest.begin(), rest.end());
    out.push_back(any);
    return out;
  };
  const auto bw = first_pool(
      fits, twice([&](const Pass& in) {
        return std::vector<Pass>{
            [&, in](const CollectiveFit& f) { return in(f) && f.architecture == architecture && f.gpus == gpus; },
            [&, in](const CollectiveFit& f) { return in(f) && f.architecture == architecture; },
            [&, in](const CollectiveFit& f) { return in(f) && tr == "p2p" && f.gpus == gpus; },
            [&, in](const CollectiveFit& f) { return in(f) && tr == "host" && same_pcie(f); }, in};
      }));
  const auto lat = first_pool(fits, std::vector<Pass>{
      [&](const CollectiveFit& f) { return same_tr(f) && f.architecture == architecture && f.gpus == gpus; },
      [&](const CollectiveFit& f) { return same_tr(f) && f.gpus == gpus; }, same_tr, any});
  const auto lat_large = first_pool(
      fits, twice([&](const Pass& in) {
        return std::vector<Pass>{
            [&, in](const CollectiveFit& f) { return in(f) && f.architecture == architecture && f.gpus == gpus; },
            [&, in](const CollectiveFit& f) { return in(f) && f.gpus == gpus; }, in};
      }));
  std::vector<double> a_s, e_s, a_l, e_l, brk;
  const std::string op = fits.empty() ? "all_reduce" : fits.front().op;
  for (const auto* f : lat)
    a_s.push_back(f->small.alpha_us), e_s.push_back(f->small.busbw_bytes_per_s / f->link_bytes_per_s);
  for (const auto* f : lat_large) {
    // The large-message alpha is the ring's Simple-protocol latency: scaled to this link's per-step latency and step
    // count (the same where link and GPU count agree).
    a_l.push_back(f->large.alpha_us * nccl_ring_simple_us(op, link, gpus) / nccl_ring_simple_us(op, f->link, f->gpus));
    brk.push_back(double(f->break_bytes) * (nccl ? break_scale(op, link, link_bytes_per_s, gpus, *f) : 1.0));
  }
  for (const auto* f : bw) e_l.push_back(f->large.busbw_bytes_per_s / f->link_bytes_per_s);
  CollectiveFit c;
  c.op = op;
  c.gpus = gpus, c.link = link, c.link_bytes_per_s = link_bytes_per_s, c.topology = "calibrated";
  c.small = {median(a_s), median(e_s) * link_bytes_per_s};
  c.large = {median(a_l), median(e_l) * link_bytes_per_s};
  c.break_bytes = int64_t(median(brk));
  return c;
}

std::string default_collectives_path() { return data_dir() + "/models/collectives.json"; }

void CollectiveModel::save(const std::string& path) const {
  nlohmann::ordered_json j;
  j["about"] = "collective alpha-beta fits: t_us = alpha_us + bus_bytes / busbw, bus_bytes = 2(g-1)/g * bytes "
               "(all_reduce), (g-1)/g * bytes (all_gather, reduce_scatter), bytes (send_recv); `small` below "
               "break_bytes, `large` from it. Written by `loom trace fit-collectives`; docs/collectives.md.";
  j["fits"] = nlohmann::ordered_json::array();
  auto r = [](double v, double q) { return std::round(v * q) / q; };
  for (const auto& f : fits)
    j["fits"].push_back(
        {{"op", f.op}, {"impl", f.impl}, {"gpu", f.gpu_key}, {"architecture", f.architecture},
         {"topology", f.topology}, {"gpus", f.gpus}, {"link", f.link}, {"link_GBps", r(f.link_bytes_per_s / 1e9, 1e3)},
         {"break_bytes", f.break_bytes},
         {"small", {{"alpha_us", r(f.small.alpha_us, 1e3)}, {"busbw_GBps", r(f.small.busbw_bytes_per_s / 1e9, 1e3)}}},
         {"large", {{"alpha_us", r(f.large.alpha_us, 1e3)}, {"busbw_GBps", r(f.large.busbw_bytes_per_s / 1e9, 1e3)}}},
         {"points", f.points}, {"fit_mape_small_pct", r(f.mape_small, 10)},
         {"fit_mape_large_pct", r(f.mape_large, 10)}});
  write_file(path.empty() ? throw InputError("-o", "empty path; give the output file") : path, j.dump(1) + "\n");
}

// CollectiveModel::load: learned/collectives_load.cpp.

}  // namespace loom
