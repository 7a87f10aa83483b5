// The Python module `loom` (pybind11): a thin driver over libloom. Kernel predictions, batches (list of dicts, NumPy
// structured array or pandas DataFrame) returned as NumPy arrays, diagnose, e2e (python/loom_py_e2e.cpp) and tune;
// libloom's InputError becomes ValueError with the same one-line message. loom.simulate belongs to src/serving (see
// python/README.md).
#include <pybind11/eval.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <memory>

#include "core/c_locale.h"
#include "core/error.h"
#include "e2e/e2e.h"
#include "hw/catalog.h"
#include "kernels/kernel_spec.h"
#include "learned/predictor.h"
#include "wave/decide.h"
#include "wave/mapping.h"
#include "wave/tables.h"
#include "wave/tune_request.h"

#include "loom_py.h"

namespace py = pybind11;

namespace loom_py {

// One catalogue and one predictor per model kind for the process: the forests load once, lazily.
const loom::Catalog& catalog() {
  static const loom::Catalog c = loom::Catalog::load();
  return c;
}

const loom::Predictor& predictor(const std::string& model) {
  static std::map<std::string, std::unique_ptr<loom::Predictor>> cache;
  auto it = cache.find(model);
  if (it == cache.end()) it = cache.emplace(model, std::make_unique<loom::Predictor>(model)).first;
  return *it->second;
}

/// The e2e kernel predictor of a --kernel-model: pure (its costs are cached across calls), or empty = analytical.
const loom::KernelPredictor& kernel_predictor(const std::string& model) {
  static std::map<std::string, loom::KernelPredictor> cache;
  auto it = cache.find(model);
  if (it == cache.end()) {
    const loom::Predictor* p = nullptr;
    try {
      p = &predictor(model);
    } catch (const loom::InputError& e) {  // the CLI's --model; here it is e2e's kernel_model= (model= is the LLM)
      throw loom::InputError(e.where() == "--model" ? "kernel_model" : e.where(), e.detail());
    }
    const loom::Predictor& pr = *p;
    it = cache.emplace(model, pr.learned() ? loom::as_kernel_predictor(pr) : loom::KernelPredictor{}).first;
  }
  return it->second;
}

}  // namespace loom_py

namespace {

using loom_py::catalog;
using loom_py::kernel_predictor;
using loom_py::predictor;

py::dict prediction_dict(const loom::Prediction& p) {
  py::dict d;
  d["gpu"] = p.analysis->gpu;
  d["kernel"] = p.analysis->kernel;
  d["latency_us"] = p.latency_us;
  d["model"] = p.model;
  d["ceiling_us"] = p.ceiling_us();
  d["analytical_latency_us"] = p.analysis->latency_us;
  d["bottleneck"] = p.bottleneck();
  d["config"] = p.analysis->config;
  d["achievable_us"] = p.achievable_us ? py::object(py::float_(*p.achievable_us)) : py::object(py::none());
  d["transfer_weight"] = p.transfer_weight;  // < 1: the family was never measured on this architecture
  return d;
}

py::dict predict_batch(const std::string& gpu_name, const py::object& rows, const std::string& model, int threads) {
  if (threads < 1 || threads > 256)  // as the CLI's --threads: 0 or -3 ran on one thread, 10**6 was taken as given
    throw loom::InputError("threads", std::to_string(threads) + " is not a thread count; give an integer from 1 to 256");
  const loom_py::BatchRows batch = loom_py::batch_rows(rows);
  const auto& cells = batch.cells;
  std::map<std::string, loom::GpuSpec> gpus;
  auto gpu_of = [&](const std::string& name, const std::string& where) -> const loom::GpuSpec* {
    auto it = gpus.find(name);
    if (it == gpus.end()) {
      try {
        it = gpus.emplace(name, catalog().get(name)).first;
      } catch (const loom::InputError& e) {  // a `gpu` cell names its row, not gpu=
        if (e.where() != "--gpu" || name == gpu_name) throw;
        throw loom::InputError(where, e.detail());
      }
    }
    return &it->second;
  };
  std::vector<loom::KernelSpec> specs;
  std::vector<const loom::GpuSpec*> gp;
  for (size_t r = 0; r < cells.size(); ++r) {
    loom::KernelSpec spec;
    spec.where = batch.where[r];
    std::string g = gpu_name;
    for (const auto& [k, v] : cells[r]) {
      if (v.empty()) continue;
      if (k == "family") spec.family = v;
      else if (k == "gpu") g = v;
      else spec.params[k] = v;
    }
    if (spec.family.empty()) throw loom::InputError(spec.where, "no `family`; every row needs one");
    if (g.empty()) throw loom::InputError(spec.where, "no GPU for this row; pass gpu= or a `gpu` column");
    gp.push_back(gpu_of(g, spec.where + " gpu"));
    specs.push_back(std::move(spec));
  }
  std::vector<loom::Prediction> preds;
  {
    py::gil_scoped_release release;
    predictor(model).predict_many(gp, specs, false, preds, threads, false);  // no analysis text is returned
  }
  for (size_t i = 0; i < preds.size(); ++i) loom::require_fits_memory(preds[i], *gp[i], specs[i].where);
  const size_t n = preds.size();
  std::vector<double> lat(n), ceil(n), ana(n);
  std::vector<bool> learned(n);
  py::list bottleneck, config;
  for (size_t i = 0; i < n; ++i) {
    lat[i] = preds[i].latency_us;
    ceil[i] = preds[i].ceiling_us();
    ana[i] = preds[i].analysis->latency_us;
    learned[i] = preds[i].model == "learned";
    bottleneck.append(preds[i].bottleneck());
    config.append(preds[i].analysis->config);
  }
  // NumPy arrays when NumPy is installed, plain lists otherwise (the module itself does not need NumPy).
  py::object np;
  try {
    np = py::module_::import("numpy");
  } catch (const py::error_already_set&) {
  }
  auto column = [&](auto&& v) -> py::object {
    py::object list = py::cast(v);
    return np ? np.attr("asarray")(list) : list;
  };
  py::dict d;
  d["latency_us"] = column(lat);
  d["ceiling_us"] = column(ceil);
  d["analytical_latency_us"] = column(ana);
  d["learned"] = column(learned);
  d["bottleneck"] = bottleneck;
  d["config"] = config;
  return d;
}

/// The library names the CLI's flags (--tp, --gpu, --kernel-model); here they are keyword arguments (tp=, gpu=,
/// kernel_model=), and the kernel spec is spec=. Other places (files, rows[3]) pass through.
std::string python_name(const std::string& where) {
  if (where.rfind("--", 0) != 0 || where.find(' ') != std::string::npos) return where;
  if (where == "--kernel") return "spec";
  std::string n = where.substr(2);
  std::replace(n.begin(), n.end(), '-', '_');
  return n;
}

/// The same for flags inside a message ("give --tp 1, 2, 4 or 8"): each `--name` becomes the keyword `name=`.
std::string python_text(const std::string& text) {
  std::string out;
  bool code = false;  // inside `...`: a CLI command quoted as such (`loom tune --kernel`) keeps its flags
  for (size_t i = 0; i < text.size();) {
    if (text[i] == '`') code = !code;
    const bool starts = !code && text.compare(i, 2, "--") == 0 && i + 2 < text.size() &&
                        std::islower(static_cast<unsigned char>(text[i + 2])) &&
                        (i == 0 || std::string(" (`'\"/,").find(text[i - 1]) != std::string::npos);
    if (!starts) {
      out += text[i++];
      continue;
    }
    size_t j = i + 2;
    while (j < text.size() && (std::islower(static_cast<unsigned char>(text[j])) || text[j] == '-')) ++j;
    const std::string name = python_name(text.substr(i, j - i));
    out += name == "spec" ? name : name + "=";
    if (j < text.size() && (text[j] == ' ' || text[j] == '=') && name != "spec") ++j;  // "--tp 3" -> "tp=3"
    i = j;
  }
  return out;
}

}  // namespace

PYBIND11_MODULE(loom, m) {
  m.doc() = "loom: GPU kernel and LLM inference latency prediction (thin bindings over libloom)";
  m.attr("__version__") = LOOM_VERSION;
  // InputError (and other library errors) -> ValueError with the CLI's one-line message.
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const loom::InputError& e) {
      // Bytes of the input that are not UTF-8 (a GPU name passed as bytes) show as U+FFFD: PyErr_SetString decodes
      // strictly, and its failure left a ValueError with no message.
      const std::string line = loom::printable_error(
          python_text(e.where().empty() ? e.detail() : python_name(e.where()) + ": " + e.detail()));
      PyObject* msg = PyUnicode_DecodeUTF8(line.data(), static_cast<Py_ssize_t>(line.size()), "replace");
      if (msg) {
        PyErr_SetObject(PyExc_ValueError, msg);
        Py_DECREF(msg);
      }
    }
  });
  m.def("gpus", [] { return catalog().names(); }, "Catalogue GPU names.");
  m.def(
      "predict",
      [](const std::string& gpu, const std::string& spec, const std::string& model) {
        const loom::GpuSpec g = catalog().get(gpu);
        const loom::Prediction p = predictor(model).predict(g, loom::parse_kernel_spec(spec, "spec"));
        loom::require_fits_memory(p, g, "spec");
        return prediction_dict(p);
      },
      py::arg("gpu"), py::arg("spec"), py::arg("model") = "learned", py::call_guard<loom::CLocaleScope>(), 
      "Predicts one kernel spec (\"gemm m=4096 n=4096 k=4096 dtype=bf16\") on a GPU: a dict.");
  m.def("predict_batch", &predict_batch, py::call_guard<loom::CLocaleScope>(), py::arg("gpu"), py::arg("rows"), py::arg("model") = "learned",
        py::arg("threads") = 1,
        "Predicts many kernels: rows = list of dicts / NumPy structured array / pandas DataFrame with a `family` "
        "column and the spec's keys (an optional `gpu` column overrides gpu). Returns a dict of arrays.");
  m.def(
      "diagnose",
      [](const std::string& gpu, const std::string& spec, const std::string& model) {
        const loom::GpuSpec g = catalog().get(gpu);
        const loom::Prediction p = predictor(model).predict(g, loom::parse_kernel_spec(spec, "spec"));
        loom::require_fits_memory(p, g, "spec");  // as predict and the CLI's diagnose (6,000 GB of operands answered)
        py::dict d = prediction_dict(p);
        py::list pipes;
        const std::shared_ptr<const loom::Analysis> a = p.shown_analysis();  // with a warm ceiling's note
        for (const auto& pl : a->pipes) {
          py::dict q;
          q["pipe"] = pl.pipe, q["unit"] = pl.unit, q["total"] = pl.total, q["busiest_sm"] = pl.busiest_sm;
          q["time_us"] = pl.time_us;
          q["share_of_ceiling"] = a->ceiling_us > 0 ? pl.time_us / a->ceiling_us : 0.0;
          pipes.append(q);
        }
        d["pipelines"] = pipes;
        d["notes"] = a->notes;
        return d;
      },
      py::arg("gpu"), py::arg("spec"), py::arg("model") = "learned", py::call_guard<loom::CLocaleScope>(), 
      "Speed-of-light table of one kernel: the prediction plus every pipeline's demand and time at peak.");
  m.def("e2e", &loom_py::e2e_step, py::call_guard<loom::CLocaleScope>(), 
      py::arg("gpu"), py::arg("model"), py::arg("phase"), py::arg("batch") = 1, py::arg("seq") = 1,
      py::arg("context") = 0, py::arg("tp") = 1, py::arg("profile") = "vllm", py::arg("mode") = "",
      py::arg("kernel_model") = "learned",
      "One LLM step (prefill of `seq` tokens, or decode over `context` tokens) on a GPU: times and breakdown.");
  m.def(
      "tune",
      [](const std::string& gpu, const std::string& spec) {
        const loom::GpuSpec g = catalog().get(gpu);  // validates the name
        const loom::KernelSpec ks = loom::parse_kernel_spec(spec, "spec");
        const loom::wave::TuneShape shape = loom::wave::parse_tune_request(ks, g);
        // The shape's tuning target (moe-triton, gemm-triton, ... as `loom tune --kernel` takes it), not its family.
        const std::string target = loom::wave::target_of(shape);
        const auto ct = loom::wave::compile_tables(
            loom::wave::load_tables(loom::wave::tables_path(gpu, target), gpu, target));
        const loom::wave::Choice c = loom::wave::decide(ct, shape);
        if (c.config < 0) throw loom::InputError("spec", "no tile config fits this shape");
        py::dict d;
        d["config"] = ct.configs[c.config];
        d["predicted_us"] = c.predicted_us;
        d["waves"] = c.waves;
        d["extrapolated"] = c.borrowed;
        return d;
      },
      py::arg("gpu"), py::arg("spec"), py::call_guard<loom::CLocaleScope>(), "Tile-config decision of loom's own GEMM/MoE kernels from the tune tables.");
  // loom.simulate: helper "serving" adds the binding of src/serving here (m.def("simulate", ...)).

  // An argument of the wrong type (loom.e2e(..., batch=1.5), a None for a string) fails pybind11's conversion with a
  // TypeError listing every overload; bad input is a ValueError with one line, as everywhere else in loom.
  py::dict scope;
  scope["m"] = m;
  py::exec(R"PY(
import functools
def _param_names(f):
    d = (f.__doc__ or "").split("\n")[0]
    i, j = d.find("("), d.rfind(")")
    return [p.split(":")[0].strip() for p in d[i + 1:j].split(",")] if 0 <= i < j else []
def _one_line_value_errors(f):
    names = _param_names(f)
    @functools.wraps(f)
    def call(*args, **kwargs):
        # A bool is an int to pybind11: batch=True ran batch 1, threads=True one thread. No argument takes a bool.
        for k, v in list(enumerate(args)) + list(kwargs.items()):
            if isinstance(v, bool):
                n = k if isinstance(k, str) else names[k] if k < len(names) else "argument %d" % (k + 1)
                raise ValueError("%s: %r is a bool; give %s" % (n, v, "an integer" if n in (
                    "batch", "seq", "context", "tp", "threads") else "the value the signature names"))
        try:
            return f(*args, **kwargs)
        except TypeError as e:
            lines = [l.strip() for l in str(e).splitlines() if l.strip()]
            sig = next((l for l in lines if l.startswith("1.")), "")
            got = next((l for l in lines if l.startswith("Invoked with:")), "")
            msg = lines[0].split(". ")[0] if lines else "bad argument types"
            if sig:
                msg += "; expected " + sig[2:].strip()
            if got:
                msg += "; got " + got[len("Invoked with:"):].strip()[:200]
            raise ValueError(msg) from None
    return call
for _name in [n for n in dir(m) if not n.startswith("_") and callable(getattr(m, n))]:
    setattr(m, _name, _one_line_value_errors(getattr(m, _name)))
)PY", scope);
}
