// JSON reading and writing of report::Report (strict: unknown keys and wrong types are input errors).
#include "report/report_json.h"

#include <set>

#include "core/error.h"

namespace loom::report {

using nlohmann::json;

namespace {

/// One JSON object being read: checks its keys against the allowed ones and reads typed fields.
class Obj {
 public:
  Obj(const json& j, std::string path, const std::string& where, std::set<std::string> keys)
      : j_(j), path_(std::move(path)), where_(where) {
    if (!j.is_object()) fail(path_, "expected an object, got " + std::string(j.type_name()));
    for (const auto& [k, v] : j.items())
      if (!keys.count(k)) {
        std::string list;
        for (const auto& a : keys) list += (list.empty() ? "" : ", ") + a;
        fail(path_ + "." + k, "unknown key; expected one of: " + list);
      }
  }
  [[noreturn]] void fail(const std::string& path, const std::string& what) const {
    throw InputError(where_, path + ": " + what);
  }
  const json* get(const std::string& k, bool required) const {
    auto it = j_.find(k);
    if (it == j_.end()) {
      if (required) fail(path_ + "." + k, "required key missing");
      return nullptr;
    }
    return &*it;
  }
  std::string str(const std::string& k, bool required = false, std::string fallback = "") const {
    const json* v = get(k, required);
    if (!v) return fallback;
    if (!v->is_string()) fail(path_ + "." + k, "expected a string, got " + std::string(v->type_name()));
    return v->get<std::string>();
  }
  double number(const std::string& k, bool required = true) const {
    auto v = opt_number(k, required);
    return v ? *v : 0.0;
  }
  std::optional<double> opt_number(const std::string& k, bool required = false) const {
    const json* v = get(k, required);
    if (!v) return std::nullopt;
    if (!v->is_number()) fail(path_ + "." + k, "expected a number, got " + std::string(v->type_name()));
    return v->get<double>();
  }
  bool boolean(const std::string& k) const {
    const json* v = get(k, false);
    if (!v) return false;
    if (!v->is_boolean()) fail(path_ + "." + k, "expected true or false, got " + std::string(v->type_name()));
    return v->get<bool>();
  }
  int integer(const std::string& k) const {
    const json* v = get(k, false);
    if (!v) return 0;
    if (!v->is_number_integer()) fail(path_ + "." + k, "expected an integer, got " + std::string(v->type_name()));
    return v->get<int>();
  }
  /// Each element of an array field (absent = empty), with its path.
  template <class F>
  void each(const std::string& k, F&& f) const {
    const json* v = get(k, false);
    if (!v) return;
    if (!v->is_array()) fail(path_ + "." + k, "expected an array, got " + std::string(v->type_name()));
    for (size_t i = 0; i < v->size(); ++i) f((*v)[i], path_ + "." + k + "[" + std::to_string(i) + "]");
  }
  std::vector<std::string> strings(const std::string& k) const {
    std::vector<std::string> out;
    each(k, [&](const json& e, const std::string& p) {
      if (!e.is_string()) fail(p, "expected a string, got " + std::string(e.type_name()));
      out.push_back(e.get<std::string>());
    });
    return out;
  }
  const std::string& path() const { return path_; }

 private:
  const json& j_;
  std::string path_;
  const std::string& where_;
};

}  // namespace

json report_to_json(const Report& r) {
  json j = {{"title", r.title}, {"subtitle", r.subtitle}, {"demo_data", r.demo_data}};
  j["rooflines"] = json::array();
  for (const auto& c : r.rooflines) {
    json cj = {{"gpu", c.gpu}, {"dram_bytes_per_s", c.dram_bytes_per_s}, {"l2_bytes_per_s", c.l2_bytes_per_s}};
    cj["ceilings"] = json::array();
    for (const auto& cc : c.ceilings) cj["ceilings"].push_back({{"name", cc.name}, {"flops_per_s", cc.flops_per_s}});
    cj["points"] = json::array();
    for (const auto& p : c.points) {
      json pj = {{"label", p.label},
                 {"family", p.family},
                 {"intensity_flop_per_byte", p.intensity_flop_per_byte},
                 {"predicted_flops_per_s", p.predicted_flops_per_s}};
      if (p.measured_flops_per_s) pj["measured_flops_per_s"] = *p.measured_flops_per_s;
      cj["points"].push_back(pj);
    }
    j["rooflines"].push_back(cj);
  }
  j["sol"] = json::array();
  for (const auto& s : r.sol) {
    json sj = {{"kernel", s.kernel}, {"gpu", s.gpu}, {"bottleneck", s.bottleneck}, {"ceiling_us", s.ceiling_us}};
    if (s.measured_us) sj["measured_us"] = *s.measured_us;
    sj["bars"] = json::array();
    for (const auto& b : s.bars)
      sj["bars"].push_back({{"pipe", b.pipe},
                            {"time_us", b.time_us},
                            {"share_of_ceiling", b.share_of_ceiling},
                            {"demand_text", b.demand_text}});
    j["sol"].push_back(sj);
  }
  j["scatters"] = json::array();
  for (const auto& s : r.scatters) {
    json sj = {{"title", s.title}, {"points", json::array()}};
    for (const auto& p : s.points)
      sj["points"].push_back({{"label", p.label},
                              {"family", p.family},
                              {"gpu", p.gpu},
                              {"measured_us", p.measured_us},
                              {"predicted_us", p.predicted_us}});
    j["scatters"].push_back(sj);
  }
  j["timelines"] = json::array();
  for (const auto& t : r.timelines) {
    json tj = {{"title", t.title}, {"lanes", t.lanes}, {"events", json::array()}};
    for (const auto& e : t.events)
      tj["events"].push_back({{"name", e.name},
                              {"family", e.family},
                              {"start_us", e.start_us},
                              {"dur_us", e.dur_us},
                              {"lane", e.lane}});
    j["timelines"].push_back(tj);
  }
  j["tables"] = json::array();
  for (const auto& t : r.tables) j["tables"].push_back({{"title", t.title}, {"columns", t.columns}, {"rows", t.rows}});
  j["sensitivities"] = json::array();
  for (const auto& s : r.sensitivities) {
    json sj = {{"title", s.title}, {"bars", json::array()}};
    for (const auto& b : s.bars)
      sj["bars"].push_back({{"gpu", b.gpu},
                            {"change", b.change},
                            {"ttft_delta_pct", b.ttft_delta_pct},
                            {"tpot_delta_pct", b.tpot_delta_pct}});
    j["sensitivities"].push_back(sj);
  }
  return j;
}

Report report_from_json(const json& j, const std::string& where) {
  Obj o(j, "$", where,
        {"title", "subtitle", "demo_data", "rooflines", "sol", "scatters", "timelines", "tables", "sensitivities"});
  Report r;
  r.title = o.str("title", false, r.title);
  r.subtitle = o.str("subtitle");
  r.demo_data = o.boolean("demo_data");
  o.each("rooflines", [&](const json& e, const std::string& p) {
    Obj c(e, p, where, {"gpu", "ceilings", "dram_bytes_per_s", "l2_bytes_per_s", "points"});
    RooflineChart rc{c.str("gpu", true), {}, c.number("dram_bytes_per_s"), c.number("l2_bytes_per_s", false), {}};
    c.each("ceilings", [&](const json& ce, const std::string& cp) {
      Obj cc(ce, cp, where, {"name", "flops_per_s"});
      rc.ceilings.push_back({cc.str("name", true), cc.number("flops_per_s")});
    });
    c.each("points", [&](const json& pe, const std::string& pp) {
      Obj pt(pe, pp, where,
             {"label", "family", "intensity_flop_per_byte", "predicted_flops_per_s", "measured_flops_per_s"});
      rc.points.push_back({pt.str("label"), pt.str("family"), pt.number("intensity_flop_per_byte"),
                           pt.number("predicted_flops_per_s"), pt.opt_number("measured_flops_per_s")});
    });
    r.rooflines.push_back(std::move(rc));
  });
  o.each("sol", [&](const json& e, const std::string& p) {
    Obj s(e, p, where, {"kernel", "gpu", "bottleneck", "ceiling_us", "measured_us", "bars"});
    SolBars sb{s.str("kernel"), s.str("gpu"), s.str("bottleneck"), s.number("ceiling_us"), s.opt_number("measured_us"),
               {}};
    s.each("bars", [&](const json& be, const std::string& bp) {
      Obj b(be, bp, where, {"pipe", "time_us", "share_of_ceiling", "demand_text"});
      sb.bars.push_back({b.str("pipe", true), b.number("time_us"), b.number("share_of_ceiling", false),
                         b.str("demand_text")});
    });
    r.sol.push_back(std::move(sb));
  });
  o.each("scatters", [&](const json& e, const std::string& p) {
    Obj s(e, p, where, {"title", "points"});
    ScatterChart sc{s.str("title"), {}};
    s.each("points", [&](const json& pe, const std::string& pp) {
      Obj pt(pe, pp, where, {"label", "family", "gpu", "measured_us", "predicted_us"});
      sc.points.push_back({pt.str("label"), pt.str("family"), pt.str("gpu"), pt.number("measured_us"),
                           pt.number("predicted_us")});
    });
    r.scatters.push_back(std::move(sc));
  });
  o.each("timelines", [&](const json& e, const std::string& p) {
    Obj t(e, p, where, {"title", "lanes", "events"});
    Timeline tl{t.str("title"), t.strings("lanes"), {}};
    t.each("events", [&](const json& ee, const std::string& ep) {
      Obj ev(ee, ep, where, {"name", "family", "start_us", "dur_us", "lane"});
      tl.events.push_back({ev.str("name"), ev.str("family"), ev.number("start_us"), ev.number("dur_us"),
                           ev.integer("lane")});
    });
    r.timelines.push_back(std::move(tl));
  });
  o.each("tables", [&](const json& e, const std::string& p) {
    Obj t(e, p, where, {"title", "columns", "rows"});
    RankedTable rt{t.str("title"), t.strings("columns"), {}};
    t.each("rows", [&](const json& re, const std::string& rp) {
      if (!re.is_array()) t.fail(rp, "expected an array of strings (one row), got " + std::string(re.type_name()));
      std::vector<std::string> row;
      for (size_t i = 0; i < re.size(); ++i) {
        if (!re[i].is_string()) t.fail(rp + "[" + std::to_string(i) + "]", "expected a string cell");
        row.push_back(re[i].get<std::string>());
      }
      rt.rows.push_back(std::move(row));
    });
    r.tables.push_back(std::move(rt));
  });
  o.each("sensitivities", [&](const json& e, const std::string& p) {
    Obj s(e, p, where, {"title", "bars"});
    Sensitivity sens{s.str("title"), {}};
    s.each("bars", [&](const json& be, const std::string& bp) {
      Obj b(be, bp, where, {"gpu", "change", "ttft_delta_pct", "tpot_delta_pct"});
      sens.bars.push_back({b.str("gpu"), b.str("change", true), b.number("ttft_delta_pct"),
                           b.number("tpot_delta_pct")});
    });
    r.sensitivities.push_back(std::move(sens));
  });
  return r;
}

Report report_from_json_text(const std::string& text, const std::string& where) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::parse_error& e) {
    throw InputError(where, "not valid JSON (byte " + std::to_string(e.byte) +
                                "); write the report input as produced by `loom report --sample --json-out FILE`");
  }
  return report_from_json(j, where);
}

}  // namespace loom::report
