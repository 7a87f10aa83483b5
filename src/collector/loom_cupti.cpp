// loom_cupti.cpp: CUPTI Activity-API injection library. Loaded by the CUDA driver through CUDA_INJECTION64_PATH,
// it traces any CUDA process unchanged and writes one `.lct` file per process (traces/FORMAT.md section 1).
//
// Environment:
//   LOOM_TRACE_OUT        output path; `%p` becomes the pid (default ./loom-<pid>.lct)
//   NVTX_INJECTION64_PATH set to this library (or to libcupti.so) so NVTX ranges reach CUPTI; if unset when CUDA
//                         initialises, this library sets it to itself (works when NVTX is first used after cuInit).
//   LOOM_CUPTI_QUIET=1    no summary line on stderr at exit (warnings are still printed)
#include <cupti.h>
#include <dlfcn.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "lct_writer.h"

#define LOOM_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

using loom::collector::LctWriter;

// Large host buffers keep the number of buffer round-trips low; CUPTI drops records only when it has no buffer.
constexpr size_t kBufferBytes = 16u << 20;
constexpr size_t kBufferAlign = 8;  // CUPTI requires 8-byte aligned activity buffers (cupti_activity.h)
// Device-side record buffer per context (CUPTI's default is 3 MiB per cupti_activity.h; bigger = fewer drops
// when thousands of short kernels complete between two host flushes).
constexpr size_t kDeviceBufferBytes = 8u << 20;

LctWriter* g_writer = nullptr;  // intentionally leaked: used from atexit and signal handlers
pid_t g_owner_pid = 0;          // a fork()ed child must not write into its parent's file
std::atomic<bool> g_finalized{false};
struct sigaction g_old_int {};
struct sigaction g_old_term {};

void warn(const char* fmt, ...) {
  char msg[512];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(msg, sizeof(msg), fmt, args);
  va_end(args);
  std::fprintf(stderr, "loom_cupti: %s\n", msg);
}

bool cupti_ok(CUptiResult status, const char* call) {
  if (status == CUPTI_SUCCESS) return true;
  const char* text = "unknown error";
  cuptiGetResultString(status, &text);
  warn("%s failed: %s", call, text);
  return false;
}

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  void* memory = nullptr;
  if (posix_memalign(&memory, kBufferAlign, kBufferBytes) != 0) memory = nullptr;
  *buffer = static_cast<uint8_t*>(memory);
  *size = memory != nullptr ? kBufferBytes : 0;  // a null buffer makes CUPTI drop (and count) records
  *max_records = 0;                              // as many as fit
}

void CUPTIAPI buffer_completed(CUcontext context, uint32_t stream_id, uint8_t* buffer, size_t, size_t valid_bytes) {
  if (g_writer != nullptr && getpid() == g_owner_pid) {
    if (valid_bytes > 0) g_writer->consume_buffer(buffer, valid_bytes);
    size_t dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(context, stream_id, &dropped) == CUPTI_SUCCESS && dropped > 0) {
      g_writer->add_dropped(dropped);
    }
  }
  std::free(buffer);
}

// Flushes every CUPTI buffer, writes the `#end` line and closes the file. Runs once per process.
void finalize() {
  if (g_writer == nullptr || getpid() != g_owner_pid) return;
  if (g_finalized.exchange(true)) return;
  cupti_ok(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), "cuptiActivityFlushAll");
  size_t dropped = 0;
  if (cuptiActivityGetNumDroppedRecords(nullptr, 0, &dropped) == CUPTI_SUCCESS) g_writer->add_dropped(dropped);
  g_writer->finish();
  if (g_writer->dropped() > 0) {
    warn("%llu activity records were DROPPED (see #end line of %s)",
         static_cast<unsigned long long>(g_writer->dropped()), g_writer->path().c_str());
  }
  if (g_writer->unparsed() > 0) {
    warn("%llu buffers stopped parsing early on a CUPTI error", static_cast<unsigned long long>(g_writer->unparsed()));
  }
  if (g_writer->open_ranges() > 0) {
    warn("%zu NVTX ranges were still open at exit (not written)", g_writer->open_ranges());
  }
  const char* quiet = std::getenv("LOOM_CUPTI_QUIET");
  if (quiet == nullptr || *quiet == '\0' || *quiet == '0') {
    warn("wrote %llu records (dropped %llu) to %s", static_cast<unsigned long long>(g_writer->records()),
         static_cast<unsigned long long>(g_writer->dropped()), g_writer->path().c_str());
  }
}

void at_exit() { finalize(); }

// SIGINT/SIGTERM: if the process had its own handler (Python's KeyboardInterrupt, say), chain to it and let the
// normal exit path flush; if the signal would have killed the process, flush first, then re-raise it with the
// original disposition so the exit status is unchanged.
void on_signal(int sig, siginfo_t* info, void* ucontext) {
  const struct sigaction& old = (sig == SIGINT) ? g_old_int : g_old_term;
  if (old.sa_flags & SA_SIGINFO) {
    if (old.sa_sigaction != nullptr) old.sa_sigaction(sig, info, ucontext);
    return;
  }
  if (old.sa_handler == SIG_IGN) return;
  if (old.sa_handler != SIG_DFL) {
    old.sa_handler(sig);
    return;
  }
  finalize();  // not async-signal-safe, but the process is about to die anyway: best effort
  sigaction(sig, &old, nullptr);
  raise(sig);
}

void install_signal_handlers() {
  struct sigaction action {};
  action.sa_sigaction = on_signal;
  action.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&action.sa_mask);
  if (sigaction(SIGINT, &action, &g_old_int) != 0) warn("cannot install SIGINT handler");
  if (sigaction(SIGTERM, &action, &g_old_term) != 0) warn("cannot install SIGTERM handler");
}

std::string output_path() {
  const std::string pid = std::to_string(static_cast<long>(getpid()));
  const char* env = std::getenv("LOOM_TRACE_OUT");
  if (env == nullptr || *env == '\0') return "./loom-" + pid + ".lct";
  std::string path(env);
  for (size_t at = path.find("%p"); at != std::string::npos; at = path.find("%p", at + pid.size())) {
    path.replace(at, 2, pid);
  }
  return path;
}

// NVTX only calls a tool whose library NVTX_INJECTION64_PATH names. Point it at this library unless the user chose.
void point_nvtx_here() {
  if (std::getenv("NVTX_INJECTION64_PATH") != nullptr) return;
  Dl_info self{};
  if (dladdr(reinterpret_cast<void*>(&point_nvtx_here), &self) != 0 && self.dli_fname != nullptr) {
    setenv("NVTX_INJECTION64_PATH", self.dli_fname, 0);
  }
}

void start_tracing() {
  g_owner_pid = getpid();
  const std::string path = output_path();
  std::string error;
  LctWriter* writer = LctWriter::open(path, &error);
  if (writer == nullptr) {
    warn("%s; tracing disabled", error.c_str());
    return;
  }
  g_writer = writer;
  bool ok = cupti_ok(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed),
                     "cuptiActivityRegisterCallbacks");
  size_t device_bytes = kDeviceBufferBytes;
  size_t attr_size = sizeof(device_bytes);
  if (ok) {
    // Not fatal: CUPTI keeps its default size.
    cupti_ok(cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE, &attr_size, &device_bytes),
             "cuptiActivitySetAttribute(DEVICE_BUFFER_SIZE)");
  }
  ok = ok && cupti_ok(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), "enable CONCURRENT_KERNEL");
  ok = ok && cupti_ok(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY), "enable MEMCPY");
  ok = ok && cupti_ok(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMSET), "enable MEMSET");
  ok = ok && cupti_ok(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MARKER), "enable MARKER");
  if (!ok) {
    warn("tracing disabled; removing %s", path.c_str());
    cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    cuptiActivityDisable(CUPTI_ACTIVITY_KIND_MEMCPY);
    cuptiActivityDisable(CUPTI_ACTIVITY_KIND_MEMSET);
    cuptiActivityDisable(CUPTI_ACTIVITY_KIND_MARKER);
    g_writer = nullptr;  // leaked on purpose: CUPTI may still call buffer_completed, which then skips it
    std::remove(path.c_str());
    return;
  }
  point_nvtx_here();
  std::atexit(at_exit);
  // Python (3.8+) ends a run killed by an unhandled KeyboardInterrupt by re-raising SIGINT with the default
  // disposition after Py_FinalizeEx, so C atexit handlers never run; Py_FinalizeEx does call Py_AtExit functions.
  using PyAtExit = int (*)(void (*)());
  if (auto py_at_exit = reinterpret_cast<PyAtExit>(dlsym(RTLD_DEFAULT, "Py_AtExit"))) py_at_exit(at_exit);
  install_signal_handlers();
}

}  // namespace

/// Entry point the CUDA driver calls once (from cuInit) when CUDA_INJECTION64_PATH names this library.
/// Returns 1 (success) even when tracing could not start: the host program must run on regardless.
LOOM_EXPORT int InitializeInjection(void) {
  static std::atomic<bool> started{false};
  if (!started.exchange(true)) start_tracing();
  return 1;
}

namespace {
// Forwards one NVTX tool entry point to the libcupti already loaded (the app's, e.g. PyTorch's wheel copy, or
// ours: both carry the soname libcupti.so.13, so only one is ever mapped).
int forward_nvtx(const char* symbol, void* arg) {
  using Init = int (*)(void*);
  void* cupti = dlopen("libcupti.so.13", RTLD_LAZY | RTLD_NOLOAD);
  if (cupti == nullptr) cupti = dlopen("libcupti.so", RTLD_LAZY | RTLD_NOLOAD);
  if (cupti == nullptr) cupti = dlopen("libcupti.so.13", RTLD_LAZY);
  auto init = cupti != nullptr ? reinterpret_cast<Init>(dlsym(cupti, symbol)) : nullptr;
  if (init == nullptr) {
    warn("libcupti has no %s; NVTX ranges will not be recorded", symbol);
    return 0;
  }
  return init(arg);
}
}  // namespace

/// NVTX's tool entry point (NVTX_INJECTION64_PATH names this library): hands NVTX over to CUPTI's own handler,
/// which turns ranges into CUPTI_ACTIVITY_KIND_MARKER records. Returns 0 (NVTX stays a no-op) if CUPTI lacks it.
LOOM_EXPORT int InitializeInjectionNvtx2(void* get_export_table) {
  return forward_nvtx("InitializeInjectionNvtx2", get_export_table);
}

/// The same for NVTX v1 clients (old libnvToolsExt.so builds), which look for this name instead.
LOOM_EXPORT int InitializeInjectionNvtx(void* get_export_table) {
  return forward_nvtx("InitializeInjectionNvtx", get_export_table);
}
