// Makes the context loom-bench runs in: the whole GPU (primary context) or an N-SM green-context partition.
#pragma once
#include "common.h"
#include <string>

namespace bench {

struct Partition {
  CUcontext ctx = nullptr;
  CUgreenCtx green = nullptr;  ///< null when the whole GPU is used
  cudaStream_t stream = nullptr;
  int sms = 0;        ///< SMs actually obtained (the driver rounds up to its granularity, 8 on H100/H200)
  int sms_total = 0;  ///< SMs of the device
};

/// Opens `device`; with `sms_requested` > 0 and < the device's SM count, creates a green context of at least
/// that many SMs, makes it current and creates a stream in it. Throws CudaFailure on a driver error.
Partition make_partition(int device, int sms_requested);

/// Current SM clock in MHz read through NVML (dlopen'ed from the driver), or -1 when NVML is unavailable.
int nvml_sm_clock_mhz(int device);

}  // namespace bench
