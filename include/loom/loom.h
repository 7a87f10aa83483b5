/* loom C API: predict GPU kernel latency and take tile-config decisions from C (or any language with a C FFI),
 * e.g. inside a serving engine's scheduler. C89-compatible; no C++ exception crosses it; every call that can fail
 * returns a status and leaves a one-line message (the CLI's `FILE:LINE: what; what to do`) in loom_last_error(),
 * valid UTF-8 (bytes of an argument that are not are shown as '?').
 * A handle is not thread-safe: use one per thread (they share nothing mutable). */
#ifndef LOOM_LOOM_H
#define LOOM_LOOM_H

#include <stddef.h>

#if defined(__GNUC__)
#define LOOM_API __attribute__((visibility("default")))
#else
#define LOOM_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Status codes: LOOM_OK, LOOM_EINPUT (bad input: unknown GPU, family, key, impossible shape...), LOOM_EINTERNAL. */
#define LOOM_OK 0
#define LOOM_EINPUT 2
#define LOOM_EINTERNAL 1

typedef struct loom_handle loom_handle;

typedef struct loom_prediction {
  double latency_us;          /* the prediction */
  double ceiling_us;          /* the analytical speed-of-light ceiling */
  double analytical_us;       /* the pure analytical prediction */
  int learned;                /* 1: corrected by the learned efficiency model; 0: analytical only */
  char bottleneck[32];        /* pipeline at the ceiling, e.g. "tensor", "dram" */
  char config[64];            /* tile config modelled, e.g. "128x256x64_s4_w8" */
} loom_prediction;

/* Opens the GPU catalogue and, for model "learned" (or NULL), the committed efficiency model; "analytical" skips
 * it. data_dir NULL = the built-in data directory. Returns NULL on failure with the message in err (if non-NULL,
 * err_len bytes, NUL-terminated). */
LOOM_API loom_handle* loom_open(const char* data_dir, const char* model, char* err, size_t err_len);
/* Frees a handle (NULL is fine). */
LOOM_API void loom_close(loom_handle* h);
/* The message of the last failed call on h ("" after a success). Valid until the next call on h. */
LOOM_API const char* loom_last_error(const loom_handle* h);
/* Predicts one kernel ("gemm m=4096 n=4096 k=4096 dtype=bf16") on a catalogue GPU ("h200") or GPU YAML path. */
LOOM_API int loom_predict(loom_handle* h, const char* gpu, const char* kernel, loom_prediction* out);
/* Tile-config decision from the committed tune tables (GEMM/MoE of loom's own kernels): config name into
 * config (config_len bytes), its predicted latency into *latency_us. */
LOOM_API int loom_tune(loom_handle* h, const char* gpu, const char* kernel, char* config, size_t config_len,
              double* latency_us);
/* Library version, e.g. "0.1.0". */
LOOM_API const char* loom_version(void);

#ifdef __cplusplus
}
#endif

#endif /* LOOM_LOOM_H */
