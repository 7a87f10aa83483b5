// PyTorch profiler Chrome-trace reader: kernels -> launching aten op (External id, else correlation -> runtime
// launch -> enclosing op, else the "ac2g" flow start) -> loom spec. Event layout as written by Kineto
// (torch.profiler export_chrome_trace): "X" events with cat cpu_op / cuda_runtime / kernel, "s"/"f" ac2g flows.
#include "trace/chrome_trace.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "core/error.h"
#include "trace/text_io.h"

namespace loom {
namespace {

using json = nlohmann::json;

// Thread key: pid and tid may be numbers or strings in Chrome traces.
std::string thread_key(const json& e) {
  auto part = [&](const char* k) {
    auto it = e.find(k);
    if (it == e.end()) return std::string("?");
    return it->is_string() ? it->get<std::string>() : it->dump();
  };
  return part("pid") + "/" + part("tid");
}

bool num(const json& e, const char* k, double& out) {
  auto it = e.find(k);
  if (it == e.end() || !it->is_number()) return false;
  out = it->get<double>();
  return true;
}

int64_t arg_int(const json& args, const char* k, int64_t dflt = -1) {
  auto it = args.find(k);
  return it != args.end() && it->is_number() ? it->get<int64_t>() : dflt;
}

std::vector<int64_t> int_list(const json& j) {
  std::vector<int64_t> v;
  if (!j.is_array()) return v;
  for (const auto& x : j)
    if (x.is_number_integer()) v.push_back(x.get<int64_t>());
  return v;
}

struct Thread {
  std::vector<size_t> ops;  // indices into all ops, sorted by (ts, -dur)
  std::vector<int> parent;  // parent position in `ops` (-1 = root)
};

// Innermost op of thread `t` containing time `ts_us`; -1 if none.
int enclosing(const Thread& t, const std::vector<ChromeOp>& ops, double ts_us) {
  auto it = std::upper_bound(t.ops.begin(), t.ops.end(), ts_us,
                             [&](double v, size_t i) { return v < ops[i].ts_us; });
  int pos = int(it - t.ops.begin()) - 1;
  while (pos >= 0 && ops[t.ops[size_t(pos)]].ts_us + ops[t.ops[size_t(pos)]].dur_us < ts_us)
    pos = t.parent[size_t(pos)];
  return pos;
}

std::string fam_of_spec(const std::string& spec) { return spec.substr(0, spec.find(' ')); }

// A spec from an enclosing (not innermost) op is only trusted when the kernel's own name agrees with it: a
// dtype-cast kernel launched inside aten::linear is not the GEMM.
bool compatible(const KernelName& k, const std::string& spec_family) {
  if (k.family == spec_family) return true;
  if (k.family == "attention") return spec_family.rfind("attention", 0) == 0;
  return false;
}

ChromeTrace parse_events(const json& root, const std::string& name) {
  ChromeTrace out;
  out.path = name;
  const json* events = nullptr;
  if (root.is_array()) {
    events = &root;
  } else if (root.is_object()) {
    auto it = root.find("traceEvents");
    if (it != root.end() && it->is_array()) events = &*it;
    auto dp = root.find("deviceProperties");
    if (dp != root.end() && dp->is_array() && !dp->empty() && (*dp)[0].is_object()) {
      auto n = (*dp)[0].find("name");
      if (n != (*dp)[0].end() && n->is_string()) out.device_name = n->get<std::string>();
    }
  }
  if (!events)
    throw InputError(name, "no 'traceEvents' array; expected a torch.profiler Chrome trace (export_chrome_trace)");

  std::vector<ChromeOp> ops;
  std::vector<std::string> op_thread;
  std::unordered_map<int64_t, size_t> op_by_ext;
  struct Launch { std::string thread; double ts_us; };
  std::unordered_map<int64_t, Launch> launch_by_corr, flow_start;
  struct RawKernel { ChromeKernel k; int64_t ext = -1; };
  std::vector<RawKernel> kernels;

  size_t index = 0;
  for (const auto& e : *events) {
    const size_t event_index = index++;
    if (!e.is_object()) {
      ++out.skipped_events;
      continue;
    }
    const std::string cat = e.contains("cat") && e["cat"].is_string() ? e["cat"].get<std::string>() : "";
    const std::string ph = e.contains("ph") && e["ph"].is_string() ? e["ph"].get<std::string>() : "";
    static const json kEmpty = json::object();
    const json& args = e.contains("args") && e["args"].is_object() ? e["args"] : kEmpty;
    double ts = 0, dur = 0;
    if (cat == "ac2g" && ph == "s") {
      auto id = e.find("id");
      if (id != e.end() && id->is_number_integer() && num(e, "ts", ts))
        flow_start[id->get<int64_t>()] = {thread_key(e), ts};
      continue;
    }
    if (ph != "X") continue;
    const bool is_op = cat == "cpu_op", is_kernel = cat == "kernel" || cat == "Kernel";
    const bool is_launch = cat == "cuda_runtime" || cat == "cuda_driver" || cat == "Runtime";
    if (!is_op && !is_kernel && !is_launch) continue;
    if (!num(e, "ts", ts) || !num(e, "dur", dur) || !e.contains("name") || !e["name"].is_string()) {
      ++out.skipped_events;
      if (is_kernel) ++out.skipped_kernels;
      continue;
    }
    // A negative or non-finite duration is a corrupt (or hand-edited) trace, not a measurement: summing it would
    // silently shrink every total built from this file.
    // Past a day (8.64e10 us) a duration or timestamp is corrupt too: it would swamp every total and timeline.
    if (!(dur >= 0) || !std::isfinite(ts) || !std::isfinite(dur) || dur > 8.64e10 || std::abs(ts) > 1e18)
      throw InputError(name, "traceEvents[" + std::to_string(event_index) + "] ('" +
                                 e["name"].get<std::string>().substr(0, 60) + "') has dur=" + json(dur).dump() +
                                 " us, ts=" + json(ts).dump() + " us; a duration is 0 to a day (8.64e10 us): re-export "
                                 "the trace (torch.profiler export_chrome_trace)");
    if (is_launch) {
      if (int64_t c = arg_int(args, "correlation"); c >= 0) launch_by_corr[c] = {thread_key(e), ts};
    } else if (is_op) {
      ChromeOp op;
      op.name = e["name"].get<std::string>();
      op.ts_us = ts, op.dur_us = dur;
      if (auto d = args.find("Input Dims"); d != args.end() && d->is_array())
        for (const auto& x : *d) op.input_dims.push_back(int_list(x));
      if (auto t = args.find("Input type"); t != args.end() && t->is_array())
        for (const auto& x : *t) op.input_types.push_back(x.is_string() ? x.get<std::string>() : "");
      if (auto c = args.find("Concrete Inputs"); c != args.end() && c->is_array())
        for (const auto& x : *c)
          op.concrete_inputs.push_back(
              x.is_string() ? x.get<std::string>() : x.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
      if (int64_t ext = arg_int(args, "External id"); ext >= 0) op_by_ext[ext] = ops.size();
      ops.push_back(std::move(op));
      op_thread.push_back(thread_key(e));
    } else {
      RawKernel rk;
      rk.k.name = e["name"].get<std::string>();
      rk.k.ts_us = ts, rk.k.dur_us = dur;
      rk.k.stream = arg_int(args, "stream");
      rk.k.correlation = arg_int(args, "correlation");
      if (auto g = args.find("grid"); g != args.end()) rk.k.grid = int_list(*g);
      if (auto b = args.find("block"); b != args.end()) rk.k.block = int_list(*b);
      rk.k.regs = std::max<int64_t>(0, arg_int(args, "registers per thread", 0));
      rk.k.smem_bytes = std::max<int64_t>(0, arg_int(args, "shared memory", 0));
      rk.ext = arg_int(args, "External id");
      kernels.push_back(std::move(rk));
    }
  }
  out.cpu_ops = int64_t(ops.size());

  // Op nesting per thread.
  std::map<std::string, Thread> threads;
  for (size_t i = 0; i < ops.size(); ++i) threads[op_thread[i]].ops.push_back(i);
  std::vector<std::pair<const Thread*, int>> where(ops.size(), {nullptr, -1});
  for (auto& [key, t] : threads) {
    std::stable_sort(t.ops.begin(), t.ops.end(), [&](size_t a, size_t b) {
      return ops[a].ts_us != ops[b].ts_us ? ops[a].ts_us < ops[b].ts_us : ops[a].dur_us > ops[b].dur_us;
    });
    t.parent.assign(t.ops.size(), -1);
    std::vector<int> stack;
    for (size_t p = 0; p < t.ops.size(); ++p) {
      const ChromeOp& o = ops[t.ops[p]];
      while (!stack.empty()) {
        const ChromeOp& top = ops[t.ops[size_t(stack.back())]];
        if (o.ts_us >= top.ts_us && o.ts_us + o.dur_us <= top.ts_us + top.dur_us) break;
        stack.pop_back();
      }
      t.parent[p] = stack.empty() ? -1 : stack.back();
      stack.push_back(int(p));
      where[t.ops[p]] = {&t, int(p)};
    }
  }

  for (auto& rk : kernels) {
    ChromeKernel& k = rk.k;
    k.kernel = classify_kernel(k.name);
    const Thread* t = nullptr;
    int pos = -1;
    if (auto it = op_by_ext.find(rk.ext); rk.ext >= 0 && it != op_by_ext.end()) {
      std::tie(t, pos) = where[it->second];
    } else {
      const Launch* l = nullptr;
      if (auto c = launch_by_corr.find(k.correlation); k.correlation >= 0 && c != launch_by_corr.end())
        l = &c->second;
      else if (auto f = flow_start.find(k.correlation); k.correlation >= 0 && f != flow_start.end())
        l = &f->second;
      if (auto th = l ? threads.find(l->thread) : threads.end(); th != threads.end()) {
        t = &th->second;
        pos = enclosing(*t, ops, l->ts_us);
      }
    }
    k.linked = t && pos >= 0;
    if (k.linked) {
      k.op = ops[t->ops[size_t(pos)]];
      for (int p = pos, depth = 0; p >= 0; p = t->parent[size_t(p)], ++depth) {
        const ChromeOp& o = ops[t->ops[size_t(p)]];
        k.op_chain += (depth ? " < " : "") + o.name;
        if (!k.spec.empty()) continue;
        std::string s = spec_from_op(o);
        if (!s.empty() && (depth == 0 || compatible(k.kernel, fam_of_spec(s)))) k.spec = s, k.spec_op = o.name;
      }
    }
    out.unlinked_kernels += k.linked ? 0 : 1;
    out.kernels_with_spec += k.spec.empty() ? 0 : 1;
    out.kernels.push_back(std::move(k));
  }
  std::stable_sort(out.kernels.begin(), out.kernels.end(),
                   [](const ChromeKernel& a, const ChromeKernel& b) { return a.ts_us < b.ts_us; });
  return out;
}

}  // namespace

ChromeTrace parse_chrome_trace(std::string_view text, const std::string& name) {
  json root;
  // Duplicate keys in one object ("dur" twice in an event): nlohmann keeps the last without a word. Checked in the
  // same pass; an event has a handful of keys, so a linear search per key beats a set.
  std::vector<std::vector<std::string>> keys;
  std::string dup;
  size_t dup_events = 0;  // object_start events seen when the duplicate was found: its line is located below
  size_t objects = 0;
  auto cb = [&](int, json::parse_event_t ev, json& parsed) {
    if (ev == json::parse_event_t::object_start) keys.emplace_back(), ++objects;
    if (ev == json::parse_event_t::object_end && !keys.empty()) keys.pop_back();
    if (ev == json::parse_event_t::key && dup.empty() && !keys.empty()) {
      const std::string& k = parsed.get_ref<const std::string&>();
      if (std::find(keys.back().begin(), keys.back().end(), k) != keys.back().end()) dup = k, dup_events = objects;
      else keys.back().push_back(k);
    }
    return true;
  };
  try {
    root = json::parse(text.begin(), text.end(), cb);
  } catch (const json::exception& e) {
    size_t byte = 0;
    if (const auto* pe = dynamic_cast<const json::parse_error*>(&e)) byte = pe->byte;
    size_t line = 1 + size_t(std::count(text.begin(), text.begin() + std::min(byte, text.size()), '\n'));
    throw InputError(name + ":" + std::to_string(line), std::string("not valid JSON (") + e.what() +
                                                            "); expected a torch.profiler Chrome trace");
  }
  if (!dup.empty()) {
    size_t pos = 0;  // the duplicate's object: the dup_events-th '{' (a brace inside a string may shift it; a hint)
    for (size_t seen = 0; pos < text.size() && seen < dup_events; ++pos) seen += text[pos] == '{';
    const size_t line = 1 + size_t(std::count(text.begin(), text.begin() + std::ptrdiff_t(pos), '\n'));
    throw InputError(name + ":" + std::to_string(line), "duplicate key '" + dup.substr(0, 60) +
                                                            "' in one object; JSON readers disagree on which value "
                                                            "wins: give it once");
  }
  return parse_events(root, name);
}

ChromeTrace read_chrome_trace(const std::string& path) {
  std::string text = trace_io::read_all(path);
  return parse_chrome_trace(text, path);
}

}  // namespace loom
