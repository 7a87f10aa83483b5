// device_info.cpp: reads the facts of the `.lct` header (GPU name, SMs, cc, clocks, L2, versions) from the driver.
#include <cuda.h>
#include <dlfcn.h>
#include <link.h>

#include <cstring>
#include <string>

#include "lct_writer.h"

namespace loom::collector {
namespace {

// Finds a libcudart already loaded by the traced process (PyTorch loads libcudart.so.13 from its wheel; a C++
// program linked with -cudart shared loads it too). Statically linked runtimes export nothing to find.
int find_cudart(dl_phdr_info* info, size_t, void* out) {
  const char* name = info->dlpi_name;
  if (name != nullptr && std::strstr(name, "libcudart.so") != nullptr) {
    *static_cast<std::string*>(out) = name;
    return 1;
  }
  return 0;
}

int loaded_runtime_version() {
  std::string path;
  dl_iterate_phdr(find_cudart, &path);
  if (path.empty()) return 0;
  void* handle = dlopen(path.c_str(), RTLD_LAZY | RTLD_NOLOAD);
  if (handle == nullptr) return 0;
  using GetVersion = int (*)(int*);
  auto fn = reinterpret_cast<GetVersion>(dlsym(handle, "cudaRuntimeGetVersion"));
  int version = 0;
  if (fn == nullptr || fn(&version) != 0) version = 0;
  dlclose(handle);
  return version;
}

}  // namespace

DeviceInfo query_device_info() {
  DeviceInfo info;
  CUdevice dev = 0;
  cuDriverGetVersion(&info.driver_version);
  info.runtime_version = loaded_runtime_version();
  if (info.runtime_version != 0) {
    info.runtime_source = "libcudart";
  } else {
    info.runtime_version = CUDA_VERSION;  // toolkit this collector was built with (static runtime not visible)
    info.runtime_source = "collector_build";
  }
  if (cuDeviceGet(&dev, 0) != CUDA_SUCCESS) return info;
  char name[256] = {0};
  if (cuDeviceGetName(name, sizeof(name) - 1, dev) == CUDA_SUCCESS) info.name = name;
  int major = 0, minor = 0, clock_khz = 0, l2 = 0;
  cuDeviceGetAttribute(&info.sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev);
  cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
  cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
  // CLOCK_RATE is the device's maximum ("typical" in cuda.h) SM clock in kHz; 1980 MHz on an H200 (GPU-NOTES.md).
  cuDeviceGetAttribute(&clock_khz, CU_DEVICE_ATTRIBUTE_CLOCK_RATE, dev);
  cuDeviceGetAttribute(&l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, dev);
  info.cc = major * 10 + minor;
  info.clock_mhz = clock_khz / 1000;
  info.l2_bytes = l2;
  return info;
}

}  // namespace loom::collector
