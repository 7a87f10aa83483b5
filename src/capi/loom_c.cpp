// The C API (include/loom/loom.h): a thin driver over libloom that turns every exception into a status and a message.
#include "loom/loom.h"

#include <cstring>
#include <map>
#include <memory>
#include <string>

#include "core/c_locale.h"
#include "core/error.h"
#include "hw/catalog.h"
#include "kernels/kernel_spec.h"
#include "learned/predictor.h"
#include "wave/decide.h"
#include "wave/mapping.h"
#include "wave/tables.h"
#include "wave/tune_request.h"

struct loom_handle {
  loom::Catalog catalog;
  std::unique_ptr<loom::Predictor> predictor;
  std::map<std::string, loom::GpuSpec> gpus;                       // resolved once per name
  std::map<std::string, loom::wave::CompiledTables> tune_tables;   // "gpu/family" -> tables
  std::string error;
};

namespace {

void copy_out(char* dst, size_t len, const std::string& s) {
  if (!dst || len == 0) return;
  size_t n = std::min(len - 1, s.size());
  while (n > 0 && n < s.size() && (static_cast<unsigned char>(s[n]) & 0xc0) == 0x80) --n;  // not inside a character
  std::memcpy(dst, s.data(), n);
  dst[n] = '\0';
}

// The C API's arguments are gpu, model and kernel, not the CLI's flags: a message names the argument.
std::string c_where(const std::string& where) {
  if (where == "--gpu") return "gpu";
  if (where == "--model") return "model";
  if (where == "--kernel") return "kernel";
  return where;
}

// Text as valid UTF-8, each byte of an invalid sequence shown as '?': a data_dir or GPU name that is not UTF-8 was
// echoed raw, and a caller decoding the message as UTF-8 (Python's ctypes, Java, Rust) failed on it (round 18).
std::string valid_utf8(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    const size_t n = c < 0x80                 ? 1
                     : c >= 0xc2 && c <= 0xdf ? 2
                     : (c & 0xf0) == 0xe0     ? 3
                     : c >= 0xf0 && c <= 0xf4 ? 4
                                              : 0;  // a continuation byte, an overlong lead, beyond U+10FFFF
    bool ok = n > 0 && i + n <= s.size();
    for (size_t k = 1; ok && k < n; ++k) ok = (static_cast<unsigned char>(s[i + k]) & 0xc0) == 0x80;
    if (ok && n == 3) {  // no overlong form, no surrogate
      const auto d = static_cast<unsigned char>(s[i + 1]);
      ok = !(c == 0xe0 && d < 0xa0) && !(c == 0xed && d >= 0xa0);
    }
    if (ok && n == 4) {
      const auto d = static_cast<unsigned char>(s[i + 1]);
      ok = !(c == 0xf0 && d < 0x90) && !(c == 0xf4 && d >= 0x90);
    }
    out += ok ? s.substr(i, n) : "?";
    i += ok ? n : 1;
  }
  return out;
}

// One printable line (a GPU name with invalid UTF-8 or a control character was copied into the message raw).
std::string c_message(const loom::InputError& e) {
  const std::string w = c_where(e.where());
  return valid_utf8(loom::printable_error(w.empty() ? e.detail() : w + ": " + e.detail()));
}

// Runs f, mapping exceptions to status codes and the handle's message.
template <class F>
int guarded(loom_handle* h, F&& f) {
  if (!h) return LOOM_EINPUT;
  const loom::CLocaleScope c_locale;  // a host's setlocale(LC_ALL, "de_DE.UTF-8") does not reach loom's numbers
  try {
    h->error.clear();
    f();
    return LOOM_OK;
  } catch (const loom::InputError& e) {
    h->error = c_message(e);
    return LOOM_EINPUT;
  } catch (const std::exception& e) {
    h->error = valid_utf8(loom::printable_error(std::string("internal error: ") + e.what()));
    return LOOM_EINTERNAL;
  } catch (...) {
    h->error = "internal error";
    return LOOM_EINTERNAL;
  }
}

const loom::GpuSpec& gpu_of(loom_handle* h, const char* name) {
  if (!name) throw loom::InputError("gpu", "no GPU given; pass a catalogue name such as h200");
  auto it = h->gpus.find(name);
  if (it == h->gpus.end()) it = h->gpus.emplace(name, h->catalog.get(name)).first;
  return it->second;
}

}  // namespace

extern "C" {

loom_handle* loom_open(const char* data_dir, const char* model, char* err, size_t err_len) {
  const loom::CLocaleScope c_locale;
  try {
    auto h = std::make_unique<loom_handle>();
    h->catalog = loom::Catalog::load(data_dir ? data_dir : "");
    if (h->catalog.names().empty())  // a folder without GPU files opened, then every GPU was unknown ("known: ")
      throw loom::InputError(std::string("data_dir ") + data_dir,
                             "no GPU files (*.yaml) in this folder; pass the catalogue folder (loom's gpus/) or NULL");
    h->predictor = std::make_unique<loom::Predictor>(model ? model : "learned");
    copy_out(err, err_len, "");
    return h.release();
  } catch (const loom::InputError& e) {
    copy_out(err, err_len, c_message(e));
  } catch (const std::exception& e) {
    copy_out(err, err_len, valid_utf8(loom::printable_error(e.what())));
  } catch (...) {
    copy_out(err, err_len, "internal error");
  }
  return nullptr;
}

void loom_close(loom_handle* h) { delete h; }

const char* loom_last_error(const loom_handle* h) { return h ? h->error.c_str() : "no handle"; }

int loom_predict(loom_handle* h, const char* gpu, const char* kernel, loom_prediction* out) {
  return guarded(h, [&] {
    if (!kernel || !out) throw loom::InputError("kernel", "no kernel spec or output given");
    const loom::GpuSpec& g = gpu_of(h, gpu);
    const loom::Prediction p = h->predictor->predict(g, loom::parse_kernel_spec(kernel, "kernel"), false);
    loom::require_fits_memory(p, g, "kernel");
    out->latency_us = p.latency_us;
    out->ceiling_us = p.ceiling_us();
    out->analytical_us = p.analysis->latency_us;
    out->learned = p.model == "learned";
    copy_out(out->bottleneck, sizeof out->bottleneck, p.bottleneck());
    copy_out(out->config, sizeof out->config, p.analysis->config);
  });
}

int loom_tune(loom_handle* h, const char* gpu, const char* kernel, char* config, size_t config_len,
              double* latency_us) {
  return guarded(h, [&] {
    if (!gpu) throw loom::InputError("gpu", "no GPU given; pass a catalogue name such as h200");
    if (!kernel) throw loom::InputError("kernel", "no kernel spec given");
    if (!config && config_len > 0)
      throw loom::InputError("config", "NULL with config_len " + std::to_string(config_len) +
                                           "; pass a buffer, or NULL with config_len 0 for the latency only");
    const loom::GpuSpec& g = gpu_of(h, gpu);  // validates the GPU name
    const loom::KernelSpec spec = loom::parse_kernel_spec(kernel, "kernel");
    const loom::wave::TuneShape shape = loom::wave::parse_tune_request(spec, g);
    // The shape's tuning target (moe-triton, gemm-triton, ... as `loom tune --kernel` takes it), not its family.
    const std::string target = loom::wave::target_of(shape);
    const std::string key = std::string(gpu) + "/" + target;
    auto it = h->tune_tables.find(key);
    if (it == h->tune_tables.end())
      it = h->tune_tables
               .emplace(key, loom::wave::compile_tables(
                                 loom::wave::load_tables(loom::wave::tables_path(gpu, target), gpu, target)))
               .first;
    const loom::wave::Choice c = loom::wave::decide(it->second, shape);
    if (c.config < 0) throw loom::InputError("kernel", "no tile config fits this shape");
    const std::string& name = it->second.configs[c.config];
    if (config && config_len <= name.size())  // a cut name ("128") is another tile config, not this one
      throw loom::InputError("config_len", std::to_string(config_len) + " bytes cannot hold the config '" + name +
                                               "' and its NUL; pass a buffer of at least 64 bytes");
    copy_out(config, config_len, name);
    if (latency_us) *latency_us = c.predicted_us;
  });
}

const char* loom_version(void) { return LOOM_VERSION; }

}  // extern "C"
