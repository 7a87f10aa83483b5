/* What a serving engine's scheduler would copy: open loom once, predict kernels, take a tile decision, close.
 * Build: cc -std=c89 -Iinclude examples/capi_example.c -Lbuild -lloom_c  (CMake builds it as build/capi_example).
 * Exits 0 when every call behaves (the ctest `capi.example` runs it). */
#include <stdio.h>

#include "loom/loom.h"

int main(void) {
  char err[512];
  loom_prediction p;
  char config[64];
  double tuned_us = 0;
  int rc;
  loom_handle* h = loom_open(NULL, "learned", err, sizeof err);
  if (!h) {
    fprintf(stderr, "loom_open: %s\n", err);
    return 1;
  }
  rc = loom_predict(h, "h200", "gemm m=4096 n=4096 k=4096 dtype=bf16", &p);
  if (rc != LOOM_OK) {
    fprintf(stderr, "loom_predict: %s\n", loom_last_error(h));
    loom_close(h);
    return 1;
  }
  printf("gemm 4096^3 bf16 on h200: %.1f us (%s, ceiling %.1f us, %s-bound, config %s)\n", p.latency_us,
         p.learned ? "learned" : "analytical", p.ceiling_us, p.bottleneck, p.config);
  rc = loom_tune(h, "h200", "gemm m=3000 n=6144 k=4096 dtype=bf16", config, sizeof config, &tuned_us);
  if (rc != LOOM_OK) {
    fprintf(stderr, "loom_tune: %s\n", loom_last_error(h));
    loom_close(h);
    return 1;
  }
  printf("tune gemm 3000x6144x4096 on h200: %s, %.1f us\n", config, tuned_us);
  /* Bad input is a status and one line, never a crash. */
  rc = loom_predict(h, "h200", "gemm m=-1 n=4096 k=4096 dtype=bf16", &p);
  printf("bad shape: status %d: %s\n", rc, loom_last_error(h));
  if (rc != LOOM_EINPUT) {
    loom_close(h);
    return 1;
  }
  rc = loom_predict(h, "no-such-gpu", "gemm m=1 n=1 k=1 dtype=bf16", &p);
  printf("bad gpu: status %d: %s\n", rc, loom_last_error(h));
  loom_close(h);
  return rc == LOOM_EINPUT ? 0 : 1;
}
