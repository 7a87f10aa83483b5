/* The C API's bad input (ctest capi.bad_input): every call that is refused returns LOOM_EINPUT and one printable
 * line naming the argument; nothing is cut or ignored silently. Exits 0 when every check holds. */
#include <stdio.h>
#include <string.h>

#include "loom/loom.h"

static int failures = 0;

static void expect(int ok, const char* what, const char* msg) {
  if (!ok) {
    ++failures;
    fprintf(stderr, "FAIL %s: %s\n", what, msg ? msg : "");
  }
}

/* A refusal: status LOOM_EINPUT, one line (no newline) that contains `want`. */
static void refused(loom_handle* h, int rc, const char* what, const char* want) {
  const char* msg = loom_last_error(h);
  expect(rc == LOOM_EINPUT, what, msg);
  expect(strstr(msg, want) != NULL, what, msg);
  expect(strchr(msg, '\n') == NULL, what, msg);
}

/* Round 18: every message is valid UTF-8 (a caller decoding it as such failed on bytes of the input echoed raw). */
static int valid_utf8(const char* s) {
  const unsigned char* u = (const unsigned char*)s;
  while (*u) {
    int n = *u < 0x80 ? 0 : *u >= 0xc2 && *u <= 0xdf ? 1 : (*u & 0xf0) == 0xe0 ? 2 : *u >= 0xf0 && *u <= 0xf4 ? 3 : -1;
    if (n < 0) return 0;
    for (++u; n > 0; --n, ++u)
      if ((*u & 0xc0) != 0x80) return 0;
  }
  return 1;
}

int main(void) {
  char err[512];
  char cfg[64];
  double us = -1;
  loom_prediction p;
  const char* tk = "gemm m=3000 n=6144 k=4096 dtype=bf16";
  loom_handle* h = loom_open("/etc", "analytical", err, sizeof err); /* a folder without GPU files */
  expect(h == NULL && strstr(err, "data_dir") != NULL, "open folder without GPUs", err);
  loom_close(h);
  h = loom_open("/nonexistent/\377\376", "analytical", err, sizeof err);
  expect(h == NULL && valid_utf8(err) && strstr(err, "nonexistent") != NULL, "data_dir not UTF-8, message UTF-8", err);
  loom_close(h);
  h = loom_open(NULL, "learn\377ed", err, 12);
  expect(h == NULL && valid_utf8(err), "a message cut to err_len ends on a whole character", err);
  loom_close(h);
  h = loom_open(NULL, "bogus", err, sizeof err);
  expect(h == NULL && strncmp(err, "model:", 6) == 0, "open unknown model", err);
  h = loom_open(NULL, "analytical", err, sizeof err);
  if (!h) {
    fprintf(stderr, "loom_open: %s\n", err);
    return 1;
  }
  refused(h, loom_predict(h, "", "gemm m=64 n=64 k=64 dtype=bf16", &p), "empty GPU", "gpu: unknown GPU");
  refused(h, loom_predict(h, NULL, "gemm m=64 n=64 k=64 dtype=bf16", &p), "NULL GPU", "gpu");
  refused(h, loom_predict(h, "h2\377\001", "gemm m=64 n=64 k=64 dtype=bf16", &p), "GPU of bad bytes", "gpu");
  expect(strchr(loom_last_error(h), 1) == NULL,
         "a control byte of the GPU name is not printed raw", loom_last_error(h));
  expect(valid_utf8(loom_last_error(h)), "bytes of the GPU name that are not UTF-8 show as '?'", loom_last_error(h));
  refused(h, loom_predict(h, "h200", "gemm m=64 n=64 k=64 dtype=bf\377\376", &p), "dtype of bad bytes", "dtype");
  expect(valid_utf8(loom_last_error(h)), "a kernel spec that is not UTF-8 shows as '?'", loom_last_error(h));
  refused(h, loom_predict(h, "h200", NULL, &p), "NULL kernel", "kernel");
  refused(h, loom_tune(h, "h200", tk, cfg, 4, &us), "config buffer too small", "config_len");
  refused(h, loom_tune(h, "h200", tk, NULL, 64, &us), "NULL config with a length", "config");
  refused(h, loom_tune(h, NULL, tk, cfg, sizeof cfg, &us), "NULL GPU in tune", "gpu: no GPU given");
  refused(h, loom_predict(h, "h200", "softmax rows=64 cols=64 dtype=bf16 impl=cutlass", &p), "impl of another family",
          "impl=cutlass exists for gemm");
  refused(h, loom_tune(h, "h200", "gemm m=3000 n=6144 k=4096 dtype=bf16 batch=4", cfg, sizeof cfg, &us),
          "tune key the tables do not model", "batch=4");
  refused(h, loom_tune(h, "h200", "gemm m=1000000000 n=1000000000 k=1000000000 dtype=bf16", cfg, sizeof cfg, &us),
          "tune shape beyond DRAM", "DRAM");
  expect(loom_tune(h, "h200", tk, NULL, 0, &us) == LOOM_OK && us > 0, "tune latency only", loom_last_error(h));
  expect(loom_tune(h, "h200", tk, cfg, sizeof cfg, NULL) == LOOM_OK && strlen(cfg) > 4, "tune config", cfg);
  /* impl=triton is decided from the Triton tables (their configs end in _g<GROUP_SIZE_M>), as `loom tune` does. */
  expect(loom_tune(h, "h200", "moe tokens=256 experts=64 topk=8 hidden=2048 inter=1408 dtype=bf16 impl=triton", cfg,
                   sizeof cfg, NULL) == LOOM_OK && strstr(cfg, "_g") != NULL, "tune impl=triton from its tables", cfg);
  expect(loom_last_error(h)[0] == '\0', "message cleared after a success", loom_last_error(h));
  loom_close(h);
  loom_close(NULL);
  if (!failures) printf("capi bad input: all checks hold\n");
  return failures ? 1 : 0;
}
