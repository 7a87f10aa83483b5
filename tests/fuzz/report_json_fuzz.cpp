// Fuzz target: arbitrary bytes as the JSON files `loom report` reads (--json-in, --validation, --e2e, --whatif,
// --simulate), each turned into report sections and rendered as HTML. Only loom::InputError may come out.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/error.h"
#include "report/loom_json.h"
#include "report/report.h"
#include "report/report_json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    (void)loom::report::render_html(loom::report::report_from_json_text(text, "fuzz.json"));
  } catch (const loom::InputError&) {
  }
  nlohmann::json j;
  try {
    j = loom::report::loom_json_text(text, "fuzz.json");
  } catch (const loom::InputError&) {
    return 0;
  }
  using Add = void (*)(loom::report::Report&, const nlohmann::json&, const std::string&);
  for (Add add : {Add{&loom::report::add_e2e}, Add{&loom::report::add_whatif}, Add{&loom::report::add_simulate},
                  Add{[](loom::report::Report& r, const nlohmann::json& x, const std::string& w) {
                    for (auto& s : loom::report::validation_scatters(loom::report::validation_from_json(x, w)))
                      r.scatters.push_back(std::move(s));
                  }}}) {
    try {
      loom::report::Report r;
      add(r, j, "fuzz.json");
      (void)loom::report::render_html(r);
    } catch (const loom::InputError&) {
    }
  }
  return 0;
}
