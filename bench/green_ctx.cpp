// Green-context partitions (CUDA driver API, cuda.h "Green Contexts" section) and an NVML clock probe.
#include "green_ctx.h"
#include <dlfcn.h>

namespace bench {
namespace {
// Driver entry points fetched through the runtime, so the binary has no link-time libcuda dependency and
// --list runs on machines without a driver.
template <typename F>
F entry(const char* name) {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult q{};
  CK(cudaGetDriverEntryPointByVersion(name, &fn, CUDART_VERSION, cudaEnableDefault, &q));
  if (!fn || q != cudaDriverEntryPointSuccess) throw CudaFailure(std::string("driver has no ") + name + " (green contexts need a CUDA 12.5+ driver)");
  return reinterpret_cast<F>(fn);
}
#define DRV(name) static auto name##_ = entry<decltype(&name)>(#name)
}  // namespace

Partition make_partition(int device, int sms_requested) {
  Partition p;
  CK(cudaSetDevice(device));
  CK(cudaFree(nullptr));  // loads the driver and creates the device's primary context
  DRV(cuDeviceGet); DRV(cuDeviceGetDevResource); DRV(cuCtxGetCurrent); DRV(cuDevSmResourceSplitByCount);
  DRV(cuDevResourceGenerateDesc); DRV(cuGreenCtxCreate); DRV(cuCtxFromGreenCtx); DRV(cuCtxSetCurrent);
  DRV(cuGreenCtxStreamCreate); DRV(cuGreenCtxGetDevResource);
  CUdevice dev;
  CU(cuDeviceGet_(&dev, device));
  CUdevResource all{};
  CU(cuDeviceGetDevResource_(dev, &all, CU_DEV_RESOURCE_TYPE_SM));
  p.sms_total = (int)all.sm.smCount;
  if (sms_requested <= 0 || sms_requested >= p.sms_total) {
    CU(cuCtxGetCurrent_(&p.ctx));
    CK(cudaStreamCreateWithFlags(&p.stream, cudaStreamNonBlocking));
    p.sms = p.sms_total;
    return p;
  }
  CUdevResource part{}, rest{};
  unsigned int groups = 1;
  CU(cuDevSmResourceSplitByCount_(&part, &groups, &all, &rest, 0, (unsigned)sms_requested));
  if (groups < 1) throw CudaFailure("green context: the device cannot split off " + std::to_string(sms_requested) + " SMs");
  CUdevResourceDesc desc;
  CU(cuDevResourceGenerateDesc_(&desc, &part, 1));
  CU(cuGreenCtxCreate_(&p.green, desc, dev, CU_GREEN_CTX_DEFAULT_STREAM));
  CU(cuCtxFromGreenCtx_(&p.ctx, p.green));
  CU(cuCtxSetCurrent_(p.ctx));
  CUstream s;
  CU(cuGreenCtxStreamCreate_(&s, p.green, CU_STREAM_NON_BLOCKING, 0));
  p.stream = (cudaStream_t)s;
  CUdevResource got{};
  CU(cuGreenCtxGetDevResource_(p.green, &got, CU_DEV_RESOURCE_TYPE_SM));
  p.sms = (int)got.sm.smCount;
  return p;
}

int nvml_sm_clock_mhz(int device) {
  // NVML is part of the driver (libnvidia-ml.so.1); declared here so no nvml.h is needed at build time.
  using init_t = int (*)();
  using by_bus_t = int (*)(const char*, void**);
  using clock_t_ = int (*)(void*, int, unsigned int*);
  static void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW);
  if (!lib) return -1;
  auto init = (init_t)dlsym(lib, "nvmlInit_v2");
  auto by_bus = (by_bus_t)dlsym(lib, "nvmlDeviceGetHandleByPciBusId_v2");
  auto clock = (clock_t_)dlsym(lib, "nvmlDeviceGetClockInfo");
  if (!init || !by_bus || !clock) return -1;
  static bool inited = init() == 0;
  if (!inited) return -1;
  char bus[64] = {0};
  if (cudaDeviceGetPCIBusId(bus, sizeof bus, device) != cudaSuccess) return -1;
  void* h = nullptr;
  if (by_bus(bus, &h) != 0) return -1;
  unsigned int mhz = 0;
  if (clock(h, /*NVML_CLOCK_SM*/ 1, &mhz) != 0) return -1;
  return (int)mhz;
}

}  // namespace bench
