// The join of .lct traces with case lists (rules in import.h) and the import driver.
#include "trace/import.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>
#include <unordered_map>

#include "core/error.h"
#include "trace/kernel_names.h"
#include "trace/text_io.h"

namespace loom {
namespace {

using trace_io::meta_get;

constexpr std::string_view kCasePrefix = "loom.case=";

// Per-.lct lookup structures, built once.
struct LctIndex {
  const LctTrace* t = nullptr;
  std::vector<const LctKernel*> kernels;       // non-flush kernels by start time
  std::vector<std::string> names;              // demangled, parallel to `kernels`
  std::vector<const LctRange*> reps;           // loom.rep ranges by start time
  std::multimap<int64_t, const LctRange*> cases;  // case id -> loom.case range
  int64_t flush = 0, outside_reps = 0;
};

LctIndex build_index(const LctTrace& t) {
  LctIndex ix;
  ix.t = &t;
  std::unordered_map<std::string, std::string> demangled;
  std::vector<std::pair<const LctKernel*, std::string>> ks;
  for (const auto& k : t.kernels) {
    auto [it, fresh] = demangled.try_emplace(k.name);
    if (fresh) it->second = demangle(k.name);
    if (it->second.find("loom_l2_flush") != std::string::npos) {
      ++ix.flush;
      continue;
    }
    ks.emplace_back(&k, it->second);
  }
  std::stable_sort(ks.begin(), ks.end(), [](auto& a, auto& b) { return a.first->start_ns < b.first->start_ns; });
  for (auto& [k, n] : ks) {
    ix.kernels.push_back(k);
    ix.names.push_back(std::move(n));
  }
  for (const auto& r : t.ranges) {
    if (r.name == "loom.rep") ix.reps.push_back(&r);
    if (r.name.rfind(kCasePrefix, 0) == 0)
      if (auto id = trace_io::parse_i64(std::string_view(r.name).substr(kCasePrefix.size()))) ix.cases.emplace(*id, &r);
  }
  std::stable_sort(ix.reps.begin(), ix.reps.end(), [](auto* a, auto* b) { return a->start_ns < b->start_ns; });
  // Kernels whose start lies in no rep (warm-up launches, other work): reported, not used.
  int64_t max_end = INT64_MIN;
  size_t ri = 0;
  for (const LctKernel* k : ix.kernels) {
    while (ri < ix.reps.size() && ix.reps[ri]->start_ns <= k->start_ns)
      max_end = std::max(max_end, ix.reps[ri++]->end_ns);
    if (max_end < k->start_ns) ++ix.outside_reps;
  }
  return ix;
}

// Index range [first, last) of kernels whose start lies in [start, end].
std::pair<size_t, size_t> kernels_in(const LctIndex& ix, int64_t start, int64_t end) {
  auto lo = std::lower_bound(ix.kernels.begin(), ix.kernels.end(), start,
                             [](const LctKernel* k, int64_t t) { return k->start_ns < t; });
  auto hi = std::upper_bound(lo, ix.kernels.end(), end, [](int64_t t, const LctKernel* k) { return t < k->start_ns; });
  return {size_t(lo - ix.kernels.begin()), size_t(hi - ix.kernels.begin())};
}

std::string trimmed(std::string s) {
  while (!s.empty() && s.back() == ' ') s.pop_back();
  while (!s.empty() && s.front() == ' ') s.erase(s.begin());
  return s;
}

// The case list's `command` (its argv) names the same process as the .lct's `#command` (/proc/self/cmdline):
// equal, or the trace's command ends with it after a space (Python scripts record sys.argv, which lacks the
// interpreter: "python3 sweep.py --sms 16" vs "sweep.py --sms 16").
bool same_command(const std::string& lct_cmd, const std::string& case_cmd) {
  if (case_cmd.empty() || lct_cmd.empty()) return false;
  if (lct_cmd == case_cmd) return true;
  return lct_cmd.size() > case_cmd.size() && trace_io::ends_with(lct_cmd, case_cmd) &&
         lct_cmd[lct_cmd.size() - case_cmd.size() - 1] == ' ';
}

// Picks the .lct for a case list (rules in import.h); throws InputError when none or two match.
size_t pick_lct(const CaseList& cl, const std::vector<LctIndex>& ixs) {
  const std::string pid = trimmed(meta_get(cl.meta, "pid"));
  const std::string cmd = trimmed(meta_get(cl.meta, "command"));
  for (const std::string& key : {std::string("pid"), std::string("command")}) {
    std::vector<size_t> hit;
    for (size_t i = 0; i < ixs.size(); ++i) {
      const std::string v = trimmed(meta_get(ixs[i].t->meta, key));
      if (key == "pid" ? (!pid.empty() && v == pid) : same_command(v, cmd)) hit.push_back(i);
    }
    if (hit.size() == 1) return hit[0];
  }
  std::vector<int64_t> hits(ixs.size(), 0);
  for (size_t i = 0; i < ixs.size(); ++i)
    for (const auto& c : cl.cases) hits[i] += ixs[i].cases.count(c.case_id) ? 1 : 0;
  size_t best = size_t(std::max_element(hits.begin(), hits.end()) - hits.begin());
  if (ixs.empty() || hits[best] == 0)
    throw InputError(cl.path, "no .lct file holds a 'loom.case=<id>' range for this case list's ids; import the trace "
                              "written by the same run (was the sweep run under the collector?)");
  for (size_t i = 0; i < ixs.size(); ++i)
    if (i != best && hits[i] == hits[best])
      throw InputError(cl.path, "matches " + ixs[best].t->path + " and " + ixs[i].t->path +
                                    " equally (same case ids, no distinguishing #pid/#command); import each run "
                                    "separately");
  return best;
}

// One case: reps -> statistics and the corpus row; returns "" or why it is unmatched.
std::string join_case(const CaseRow& c, const LctIndex& ix, CorpusRow& row, JoinStats& st) {
  auto [lo, hi] = ix.cases.equal_range(c.case_id);
  if (lo == hi) return "no 'loom.case=" + std::to_string(c.case_id) + "' range in " + ix.t->path;
  if (std::next(lo) != hi) return "case id appears in " + std::to_string(std::distance(lo, hi)) + " ranges";
  const LctRange& cr = *lo->second;
  auto r0 = std::lower_bound(ix.reps.begin(), ix.reps.end(), cr.start_ns,
                             [](const LctRange* r, int64_t t) { return r->start_ns < t; });
  std::vector<double> rep_us;
  std::vector<std::string> first_names;
  bool kernels_differ = false;
  for (auto it = r0; it != ix.reps.end() && (*it)->start_ns <= cr.end_ns; ++it) {
    const LctRange& rep = **it;
    if (rep.end_ns > cr.end_ns) continue;  // not nested in this case
    auto [a, b] = kernels_in(ix, rep.start_ns, rep.end_ns);
    if (a == b) return "rep " + std::to_string(rep_us.size() + 1) + " has no kernels";
    double sum_us = 0;
    std::vector<std::string> names;
    size_t longest = a;
    for (size_t i = a; i < b; ++i) {
      sum_us += ix.kernels[i]->duration_us();
      names.push_back(ix.names[i]);
      if (ix.kernels[i]->end_ns - ix.kernels[i]->start_ns > ix.kernels[longest]->end_ns - ix.kernels[longest]->start_ns)
        longest = i;
    }
    if (rep_us.empty()) {
      first_names = names;
      const LctKernel& k = *ix.kernels[longest];
      row.grid = k.grid;
      row.block = k.block;
      row.regs = k.registers_per_thread;
      row.smem_bytes = k.static_smem_bytes + k.dynamic_smem_bytes;
    } else if (names != first_names) {
      kernels_differ = true;
    }
    rep_us.push_back(sum_us);
  }
  if (rep_us.empty()) return "no 'loom.rep' range inside the case range";
  if (kernels_differ) ++st.reps_kernel_mismatch;
  for (size_t i = 0; i < first_names.size(); ++i) row.kernels += (i ? ";" : "") + first_names[i];
  row.case_id = c.case_id;
  row.family = c.family;
  row.spec = c.spec;
  row.impl = c.impl;
  row.reps = int64_t(rep_us.size());
  if (c.reps > 0 && c.reps != row.reps) ++st.reps_count_mismatch;
  row.median_us = quantile(rep_us, 0.5);
  row.p10_us = quantile(rep_us, 0.1);
  row.p90_us = quantile(rep_us, 0.9);
  row.spread_pct = row.median_us > 0 ? 100.0 * (row.p90_us - row.p10_us) / row.median_us : 0.0;
  row.event_median_us = c.event_median_us;
  return "";
}

std::string base_name(const std::string& p) { return std::filesystem::path(p).filename().string(); }

// What a case list (with its trace) says of the partition it measured: the list's values win, the trace's fill in
// (both checked as read, trace_io::check_meta_value); `0` for sms or clock is a writer's "not recorded".
struct ListMeta {
  std::string gpu, clock_mhz, resolution_us;
  int64_t sms = 0;
};
ListMeta list_meta(const CaseList& cl, const LctTrace& t) {
  ListMeta m;
  const std::string lct_gpu = meta_get(t.meta, "gpu");
  m.gpu = meta_get(cl.meta, "gpu");
  if (m.gpu.empty()) m.gpu = lct_gpu;
  if (!lct_gpu.empty() && trimmed(lct_gpu) != trimmed(m.gpu))
    throw InputError(cl.path, "case list says gpu '" + m.gpu + "' but " + t.path + " says '" + lct_gpu +
                                  "'; these files come from different runs");
  m.sms = trace_io::parse_i64(meta_get(cl.meta, "sms")).value_or(0);
  if (m.sms <= 0) m.sms = trace_io::parse_i64(meta_get(t.meta, "sms")).value_or(0);
  auto recorded = [](const std::string& v) { return v == "0" ? std::string() : v; };  // checked as read: no padding
  m.clock_mhz = recorded(meta_get(cl.meta, "clock_mhz"));
  if (m.clock_mhz.empty()) m.clock_mhz = recorded(meta_get(t.meta, "clock_mhz"));
  m.resolution_us = trimmed(meta_get(cl.meta, "resolution_us"));
  return m;
}

// A corpus holds one partition at one clock and one timing resolution. The clock and resolution of a second list
// were dropped for the first's (its rows then read at the first's clock, or trained below their resolution): they
// must agree too since round 11.
void check_same_partition(const std::string& first_path, const ListMeta& first, const std::string& path,
                          const ListMeta& m) {
  if (trimmed(m.gpu) != trimmed(first.gpu) || m.sms != first.sms)
    throw InputError(path, "gpu '" + m.gpu + "' sms=" + std::to_string(m.sms) + " differs from " + first_path +
                               " (gpu '" + first.gpu + "' sms=" + std::to_string(first.sms) +
                               "); a corpus holds one partition: import them separately");
  using trace_io::parse_f64;
  const bool by_clock = parse_f64(m.clock_mhz) != parse_f64(first.clock_mhz);
  if (!by_clock && parse_f64(m.resolution_us) == parse_f64(first.resolution_us)) return;
  auto shown = [](const std::string& v) { return v.empty() ? std::string("none") : v.substr(0, 40); };
  throw InputError(path, std::string(by_clock ? "#clock_mhz=" : "#resolution_us=") +
                             shown(by_clock ? m.clock_mhz : m.resolution_us) + " differs from " + first_path + " (" +
                             shown(by_clock ? first.clock_mhz : first.resolution_us) +
                             "); a corpus holds one clock and one timing resolution: import them separately");
}

}  // namespace

double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const double pos = q * double(v.size() - 1);
  const size_t i = size_t(std::floor(pos));
  if (i + 1 >= v.size()) return v.back();
  return v[i] + (pos - double(i)) * (v[i + 1] - v[i]);
}

Corpus join_traces(const std::vector<LctTrace>& lcts, const std::vector<CaseList>& lists, const GpuNameTable& gpus,
                   JoinStats& st) {
  if (lists.empty()) throw InputError("cases", "no case list given; pass the sweep's .cases.csv files");
  if (lcts.empty()) throw InputError("traces", "no .lct file given; pass the collector's traces");
  std::vector<LctIndex> ixs;
  for (const auto& t : lcts) ixs.push_back(build_index(t));

  Corpus co;
  co.meta = lists[0].meta;
  std::vector<bool> used(ixs.size(), false);
  std::vector<std::string> sources;
  std::set<int64_t> listed_ids;
  std::map<std::pair<size_t, int64_t>, std::string> joined;  // (trace, case id) -> the case list that read it
  ListMeta first;                                             // the first list's (with its trace's)
  for (const auto& cl : lists) {
    const size_t li = pick_lct(cl, ixs);
    const LctIndex& ix = ixs[li];
    const ListMeta m = list_meta(cl, *ix.t);
    if (&cl == &lists[0]) {
      first = m;
      co.gpu = m.gpu, co.sms = m.sms, co.clock_mhz = trace_io::parse_f64(m.clock_mhz).value_or(0);
    } else {
      check_same_partition(lists[0].path, first, cl.path, m);
    }
    if (!used[li]) {
      used[li] = true;
      sources.push_back(base_name(ix.t->path));
      st.flush_kernels += ix.flush;
      st.kernels_outside_reps += ix.outside_reps;
      if (ix.t->dropped > 0)
        st.warnings.push_back(ix.t->path + ": CUPTI dropped " + std::to_string(ix.t->dropped) +
                              " records; some reps may miss kernels (raise the collector's buffer size)");
    }
    sources.push_back(base_name(cl.path));
    for (const auto& c : cl.cases) {
      ++st.cases_in;
      listed_ids.insert(c.case_id);
      // Two case lists joined to one trace with a case id in common read the same range twice: the same list under
      // two names gave every kernel two rows (counted twice in training). Round 11.
      if (auto [it, fresh] = joined.emplace(std::make_pair(li, c.case_id), cl.path); !fresh)
        throw InputError(cl.path, "case " + std::to_string(c.case_id) + " is also in " + it->second + ", and both " +
                                      "read it from " + ix.t->path + " (the same case list twice?); give each run's "
                                      "case list once");
      CorpusRow row;
      std::string why = join_case(c, ix, row, st);
      if (why.empty()) {
        co.rows.push_back(std::move(row));
        ++st.cases_written;
      } else {
        st.unmatched.push_back({cl.path, c.case_id, why});
      }
    }
  }
  for (size_t i = 0; i < ixs.size(); ++i) {
    if (!used[i]) {
      st.warnings.push_back(lcts[i].path + ": matches no case list; not used");
      continue;
    }
    for (const auto& [id, r] : ixs[i].cases) st.orphan_case_ranges += listed_ids.count(id) ? 0 : 1;
  }
  if (auto key = gpus.key_for(co.gpu)) {
    co.gpu_key = *key;
  } else {
    st.warnings.push_back("unknown GPU '" + co.gpu + "': gpu_key left empty; add a line to " +
                          (gpus.path().empty() ? std::string("traces/gpu_names.tsv") : gpus.path()));
  }
  std::string src;
  for (const auto& s : sources) src += (src.empty() ? "" : ",") + s;
  co.meta["sources"] = src;
  return co;
}

ImportResult import_run(const std::vector<std::string>& lct_files, const std::vector<std::string>& case_files,
                        const std::string& out_path, const ImportOptions& opts) {
  ReadOptions ro;
  ro.lenient = opts.lenient;
  ImportResult res;
  std::vector<LctTrace> lcts;
  for (const auto& f : lct_files) {
    lcts.push_back(read_lct(f, ro));
    const auto& t = lcts.back();
    res.lct_records += t.records;
    res.lct_dropped += t.dropped;
    res.skipped_records += t.skipped_records;
    for (const auto& m : t.messages) res.stats.warnings.push_back("skipped: " + m);
  }
  std::vector<CaseList> lists;
  for (const auto& f : case_files) {
    lists.push_back(read_case_list(f, ro));
    if (lists.back().cases.empty())  // a header and no rows wrote an empty corpus and exited 0
      throw InputError(f, "holds no cases (a header and no rows); give a case list with at least one case");
    res.skipped_records += lists.back().skipped_records;
    for (const auto& m : lists.back().messages) res.stats.warnings.push_back("skipped: " + m);
  }
  GpuNameTable gpus = GpuNameTable::load(opts.gpu_names_path.empty() ? GpuNameTable::default_gpu_names_path()
                                                                     : opts.gpu_names_path);
  Corpus co = join_traces(lcts, lists, gpus, res.stats);
  for (const auto& [k, v] : opts.extra_meta) co.meta[k] = v;
  write_corpus(co, out_path);
  res.out_path = out_path;
  res.gpu = co.gpu;
  res.gpu_key = co.gpu_key;
  res.sms = co.sms;
  return res;
}

}  // namespace loom
