// JSON reading and writing of report::Report (strict: unknown keys and wrong types are input errors).
#include "report/report_json.h"

#include "core/error.h"
#include "core/json_strict.h"
#include "report/json_obj.h"

namespace loom::report {

using nlohmann::json;

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
    if (!s.predicted_name.empty()) sj["predicted_name"] = s.predicted_name;
    if (!s.baseline_name.empty()) sj["baseline_name"] = s.baseline_name;
    if (s.max_drawn_per_panel) sj["max_drawn_per_panel"] = s.max_drawn_per_panel;
    for (const auto& p : s.points) {
      json pj = {{"label", p.label},
                 {"family", p.family},
                 {"gpu", p.gpu},
                 {"measured_us", p.measured_us},
                 {"predicted_us", p.predicted_us}};
      if (p.baseline_us) pj["baseline_us"] = *p.baseline_us;
      sj["points"].push_back(pj);
    }
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
  j["lines"] = json::array();
  for (const auto& c : r.lines) {
    json cj = {{"title", c.title}, {"x_title", c.x_title}, {"y_title", c.y_title}, {"x_unit", c.x_unit},
               {"y_unit", c.y_unit}, {"x_log", c.x_log}, {"series", json::array()}};
    for (const auto& s : c.series) cj["series"].push_back({{"name", s.name}, {"x", s.x}, {"y", s.y}});
    j["lines"].push_back(cj);
  }
  return j;
}

Report report_from_json(const json& j, const std::string& where) {
  Obj o(j, "$", where,
        {"title", "subtitle", "demo_data", "rooflines", "sol", "scatters", "timelines", "tables", "sensitivities",
         "lines"});
  Report r;
  r.title = o.str("title", false, r.title);
  r.subtitle = o.str("subtitle");
  r.demo_data = o.boolean("demo_data");
  o.each("rooflines", [&](const json& e, const std::string& p) {
    Obj c(e, p, where, {"gpu", "ceilings", "dram_bytes_per_s", "l2_bytes_per_s", "points"});
    RooflineChart rc{c.str("gpu", true), {}, *c.positive("dram_bytes_per_s"),
                     c.positive("l2_bytes_per_s", false, true).value_or(0.0), {}};
    c.each("ceilings", [&](const json& ce, const std::string& cp) {
      Obj cc(ce, cp, where, {"name", "flops_per_s"});
      rc.ceilings.push_back({cc.str("name", true), *cc.positive("flops_per_s")});
    });
    c.each("points", [&](const json& pe, const std::string& pp) {
      Obj pt(pe, pp, where,
             {"label", "family", "intensity_flop_per_byte", "predicted_flops_per_s", "measured_flops_per_s"});
      rc.points.push_back({pt.str("label"), pt.str("family"), *pt.positive("intensity_flop_per_byte"),
                           *pt.positive("predicted_flops_per_s"), pt.positive("measured_flops_per_s", false)});
    });
    r.rooflines.push_back(std::move(rc));
  });
  o.each("sol", [&](const json& e, const std::string& p) {
    Obj s(e, p, where, {"kernel", "gpu", "bottleneck", "ceiling_us", "measured_us", "bars"});
    SolBars sb{s.str("kernel"), s.str("gpu"), s.str("bottleneck"), *s.positive("ceiling_us"),
               s.positive("measured_us", false), {}};
    s.each("bars", [&](const json& be, const std::string& bp) {
      Obj b(be, bp, where, {"pipe", "time_us", "share_of_ceiling", "demand_text"});
      sb.bars.push_back({b.str("pipe", true), *b.positive("time_us", true, true),
                         b.positive("share_of_ceiling", false, true).value_or(0.0), b.str("demand_text")});
    });
    r.sol.push_back(std::move(sb));
  });
  o.each("scatters", [&](const json& e, const std::string& p) {
    Obj s(e, p, where, {"title", "points", "predicted_name", "baseline_name", "max_drawn_per_panel"});
    ScatterChart sc{s.str("title"), {}, s.str("predicted_name"), s.str("baseline_name")};
    const int max_drawn = s.integer("max_drawn_per_panel");
    if (max_drawn < 0) s.fail(p + ".max_drawn_per_panel", "must be 0 (all) or a positive count");
    sc.max_drawn_per_panel = static_cast<size_t>(max_drawn);
    s.each("points", [&](const json& pe, const std::string& pp) {
      Obj pt(pe, pp, where, {"label", "family", "gpu", "measured_us", "predicted_us", "baseline_us"});
      sc.points.push_back({pt.str("label"), pt.str("family"), pt.str("gpu"), *pt.positive("measured_us"),
                           *pt.positive("predicted_us"), pt.positive("baseline_us", false)});
    });
    r.scatters.push_back(std::move(sc));
  });
  o.each("timelines", [&](const json& e, const std::string& p) {
    Obj t(e, p, where, {"title", "lanes", "events"});
    Timeline tl{t.str("title"), t.strings("lanes"), {}};
    t.each("events", [&](const json& ee, const std::string& ep) {
      Obj ev(ee, ep, where, {"name", "family", "start_us", "dur_us", "lane"});
      tl.events.push_back({ev.str("name"), ev.str("family"), *ev.positive("start_us", true, true),
                           *ev.positive("dur_us", true, true), ev.integer("lane")});
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
  o.each("lines", [&](const json& e, const std::string& p) {
    Obj c(e, p, where, {"title", "x_title", "y_title", "x_unit", "y_unit", "x_log", "series"});
    LineChart lc{
        c.str("title"), c.str("x_title"), c.str("y_title"), c.str("x_unit"), c.str("y_unit"), c.boolean("x_log"), {}};
    c.each("series", [&](const json& se, const std::string& sp) {
      Obj s(se, sp, where, {"name", "x", "y"});
      LineSeries ls{s.str("name"), {}, {}};
      for (const char* axis : {"x", "y"}) {
        auto& out = axis[0] == 'x' ? ls.x : ls.y;
        s.each(axis, [&](const json& v, const std::string& vp) {
          if (!v.is_number()) s.fail(vp, "expected a number");
          out.push_back(v.get<double>());
        });
      }
      if (ls.x.size() != ls.y.size()) s.fail(sp, "x and y must have the same length");
      lc.series.push_back(std::move(ls));
    });
    r.lines.push_back(std::move(lc));
  });
  // A report with nothing to draw is a wrong input file (e.g. `{}` or another command's JSON), not an empty page.
  if (r.rooflines.empty() && r.sol.empty() && r.scatters.empty() && r.timelines.empty() && r.tables.empty() &&
      r.sensitivities.empty() && r.lines.empty())
    throw InputError(where, "no charts (rooflines, sol, scatters, timelines, tables, sensitivities, lines); write the "
                            "report input as produced by `loom report --sample --json-out FILE`");
  return r;
}

json parse_json_text(const std::string& text, const std::string& where, const std::string& hint) {
  return parse_strict_json(text, where,
                           {"; give it once", 60, "not valid JSON (byte {byte}); " + hint, false,
                            "unreadable JSON ({what}); " + hint});
}

Report report_from_json_text(const std::string& text, const std::string& where) {
  return report_from_json(
      parse_json_text(text, where, "write the report input as produced by `loom report --sample --json-out FILE`"),
      where);
}

}  // namespace loom::report
