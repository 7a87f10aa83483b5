// loom.e2e (see python/loom_py.h): one LLM step with the CLI's length checks, limits and warnings.
#include <pybind11/stl.h>

#include <algorithm>
#include <optional>
#include <vector>

#include "core/error.h"
#include "e2e/e2e.h"
#include "e2e/model_config.h"
#include "loom_py.h"

namespace py = pybind11;

namespace loom_py {

py::dict e2e_step(const std::string& gpu, const std::string& model_name, const std::string& phase, int64_t batch,
                  int64_t seq, int64_t context, int tp, const std::string& profile, const std::string& mode,
                  const std::string& kernel_model) {
  const loom::ModelConfig mc = loom::load_model(model_name);
  const loom::ServingProfile prof = loom::load_profile(profile);
  // The CLI's length checks: a negative context was silently replaced by seq.
  if (seq < 1) throw loom::InputError("seq", "must be >= 1 (new tokens per request)");
  if (context < 0) throw loom::InputError("context", "must be >= 0 (tokens already in the KV cache)");
  // The CLI's limits: beyond 2^30 a length is a typo (it was refused naming the model's config.json).
  if (seq > (int64_t{1} << 30))
    throw loom::InputError("seq", std::to_string(seq) + " is above 2^30; give a realistic length");
  if (context > (int64_t{1} << 30))
    throw loom::InputError("context", std::to_string(context) + " is above 2^30; give a realistic length");
  // A decode step computes one token per request: seq=5 with a context was silently ignored (the CLI refuses).
  if (phase == "decode" && context > 0 && seq != 1)
    throw loom::InputError("seq", std::to_string(seq) +
                                      ": a decode step computes one new token per request; give "
                                      "seq=1 (the default) with context=, or phase='prefill' for more");
  loom::Workload w;
  if (phase == "prefill")
    w = loom::prefill_workload(batch, {seq}, context > 0 ? std::vector<int64_t>{context} : std::vector<int64_t>{}, tp);
  else if (phase == "decode")
    w = loom::decode_workload(batch, {context > 0 ? context : seq}, tp);
  else
    throw loom::InputError("phase", "'" + phase + "' is not a phase; use prefill or decode");
  double tokens = 0, kv = 0;  // as the CLI: one step beyond 2^26 tokens / 2^30 KV positions names its arguments
  for (size_t i = 0; i < w.new_tokens.size(); ++i)
    tokens += double(w.new_tokens[i]), kv += double(w.new_tokens[i]) + double(w.context[i]);
  if (tokens > double(int64_t{1} << 26) || kv > double(int64_t{1} << 30))
    throw loom::InputError(phase == "prefill" ? "batch x seq" : "batch x context",
                           "one step of " + std::to_string(int64_t(tokens)) + " new tokens over " +
                               std::to_string(int64_t(kv)) +
                               " KV positions is beyond loom's limits (2^26 tokens, 2^30 KV positions a step); "
                               "use smaller sizes");
  std::optional<loom::ExecMode> em;
  if (!mode.empty()) em = loom::parse_mode(mode, "mode");
  const loom::StepPrediction st =
      loom::predict_step(catalog().get(gpu), mc, prof, w, em, kernel_predictor(kernel_model));
  py::dict d;
  d["gpu"] = st.gpu, d["model"] = st.model, d["profile"] = st.profile;
  d["gpu_time_us"] = st.timing.gpu_time_us;
  d["wall_time_us"] = st.timing.wall_time_us;
  d["tokens_per_s"] = st.tokens_per_s;
  d["kernels"] = st.timing.kernels.size();
  py::dict fam;
  for (const auto& s : st.by_family) fam[py::str(s.key)] = s.wall_us;
  d["wall_us_by_family"] = fam;
  // The CLI's warnings (a context beyond max_position_embeddings, attention past a sliding window, a step that does
  // not fit in GPU memory): the dict held none, so a priced-as-asked step read as a plain answer.
  int64_t positions = 0;
  for (size_t i = 0; i < w.context.size(); ++i) positions = std::max(positions, w.context[i] + w.new_tokens[i]);
  py::list warnings;
  for (const std::string& s : {loom::position_warning(mc, positions), loom::sliding_window_warning(mc, positions),
                               st.memory.fits ? std::string() : st.memory.note})
    if (!s.empty()) warnings.append(s);
  d["warnings"] = warnings;
  py::dict mem;
  mem["fits"] = st.memory.fits, mem["total_bytes"] = st.memory.total_bytes,
  mem["usable_bytes"] = st.memory.usable_bytes;
  mem["note"] = st.memory.note;
  d["memory"] = mem;
  return d;
}

}  // namespace loom_py
