//===- GpuDriver.cpp - GPU drivers opened at run time ---------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/GpuDriver.h"

#include <cstdlib>
#include <cstring>
#include <dlfcn.h>

using namespace easyml::rt;

const char *easyml::rt::vendorName(GpuVendor vendor) {
  return vendor == GpuVendor::Cuda ? "cuda" : "rocm";
}

/// The entry points used. CUDA's driver API and HIP take the same
/// arguments for these (devices are ints; results are int status codes).
struct GpuDriver::Api {
  int (*init)(unsigned) = nullptr;
  int (*driverVersion)(int *) = nullptr;
  int (*deviceCount)(int *) = nullptr;
  // cuDeviceGet / hipDeviceGet: the device handle of an ordinal.
  int (*deviceGet)(int *, int) = nullptr;
  int (*deviceName)(char *, int, int) = nullptr;
  int (*totalMem)(size_t *, int) = nullptr;
  // CUDA only: cuDeviceGetAttribute(value, attribute, device).
  int (*attribute)(int *, int, int) = nullptr;
  // cuGetErrorString(code, &string) / hipGetErrorString(code).
  int (*cudaErrorString)(int, const char **) = nullptr;
  const char *(*hipErrorString)(int) = nullptr;
};

namespace {
template <typename F> bool bind(void *library, const char *name, F &fn) {
  fn = reinterpret_cast<F>(dlsym(library, name));
  return fn != nullptr;
}

// cuDeviceGetAttribute: compute capability.
constexpr int kComputeCapabilityMajor = 75;
constexpr int kComputeCapabilityMinor = 76;
} // namespace

GpuDriver::GpuDriver(GpuVendor vendor, void *library, std::unique_ptr<Api> api)
    : vendor_(vendor), library_(library), api_(std::move(api)) {}

GpuDriver::~GpuDriver() {
  if (library_)
    dlclose(library_);
}

std::unique_ptr<GpuDriver> GpuDriver::open(GpuVendor vendor,
                                           std::string &error) {
  bool cuda = vendor == GpuVendor::Cuda;
  const char *names[] = {cuda ? "libcuda.so.1" : "libamdhip64.so",
                         cuda ? "libcuda.so" : "libamdhip64.so.6"};
  void *library = nullptr;
  std::string dlerrors;
  for (const char *name : names) {
    library = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (library)
      break;
    const char *e = dlerror();
    dlerrors += std::string(dlerrors.empty() ? "" : "; ") + (e ? e : name);
  }
  if (!library) {
    error = std::string("no ") + (cuda ? "CUDA driver" : "HIP runtime") +
            " on this machine (" + dlerrors + ")";
    return nullptr;
  }
  auto api = std::make_unique<Api>();
  bool ok;
  if (cuda)
    ok = bind(library, "cuInit", api->init) &&
         bind(library, "cuDriverGetVersion", api->driverVersion) &&
         bind(library, "cuDeviceGetCount", api->deviceCount) &&
         bind(library, "cuDeviceGet", api->deviceGet) &&
         bind(library, "cuDeviceGetName", api->deviceName) &&
         bind(library, "cuDeviceTotalMem_v2", api->totalMem) &&
         bind(library, "cuDeviceGetAttribute", api->attribute) &&
         bind(library, "cuGetErrorString", api->cudaErrorString);
  else
    ok = bind(library, "hipInit", api->init) &&
         bind(library, "hipDriverGetVersion", api->driverVersion) &&
         bind(library, "hipGetDeviceCount", api->deviceCount) &&
         bind(library, "hipDeviceGet", api->deviceGet) &&
         bind(library, "hipDeviceGetName", api->deviceName) &&
         bind(library, "hipDeviceTotalMem", api->totalMem) &&
         bind(library, "hipGetErrorString", api->hipErrorString);
  if (!ok) {
    error = std::string(cuda ? "the CUDA driver" : "the HIP runtime") +
            " lacks an entry point the runtime needs (too old?)";
    dlclose(library);
    return nullptr;
  }
  std::unique_ptr<GpuDriver> driver(
      new GpuDriver(vendor, library, std::move(api)));
  if (int rc = driver->api_->init(0)) {
    error = std::string(cuda ? "cuInit" : "hipInit") +
            " failed: " + driver->describe(rc);
    return nullptr;
  }
  return driver;
}

std::string GpuDriver::describe(int code) const {
  const char *text = nullptr;
  if (api_->cudaErrorString) {
    if (api_->cudaErrorString(code, &text) != 0)
      text = nullptr;
    // The codes a machine without a working driver gives, for drivers
    // (such as the toolkit's stub) that cannot name them.
    if (!text && code == 34)
      text = "CUDA_ERROR_STUB_LIBRARY: this libcuda is the toolkit's stub, "
             "not a driver";
    if (!text && code == 35)
      text = "CUDA_ERROR_INSUFFICIENT_DRIVER: the driver is older than the "
             "runtime needs";
    if (!text && code == 100)
      text = "CUDA_ERROR_NO_DEVICE: no CUDA-capable device";
  } else if (api_->hipErrorString) {
    text = api_->hipErrorString(code);
  }
  return std::string(text ? text : "unknown error") + " (code " +
         std::to_string(code) + ")";
}

std::string GpuDriver::version() const {
  int v = 0;
  api_->driverVersion(&v);
  if (vendor_ == GpuVendor::Cuda)
    return "CUDA driver " + std::to_string(v / 1000) + "." +
           std::to_string(v % 1000 / 10);
  return "HIP runtime " + std::to_string(v / 10000000) + "." +
         std::to_string(v / 100000 % 100);
}

std::vector<GpuDeviceInfo> GpuDriver::devices(std::string &error) const {
  std::vector<GpuDeviceInfo> result;
  int count = 0;
  if (int rc = api_->deviceCount(&count)) {
    error = "cannot count devices: " + describe(rc);
    return result;
  }
  for (int i = 0; i < count; ++i) {
    GpuDeviceInfo info;
    info.index = i;
    int handle = 0;
    if (int rc = api_->deviceGet(&handle, i)) {
      error = "cannot open device " + std::to_string(i) + ": " + describe(rc);
      continue;
    }
    char name[256] = {0};
    if (api_->deviceName(name, sizeof name - 1, handle) == 0)
      info.name = name;
    api_->totalMem(&info.memoryBytes, handle);
    if (api_->attribute) {
      int major = 0, minor = 0;
      if (api_->attribute(&major, kComputeCapabilityMajor, handle) == 0 &&
          api_->attribute(&minor, kComputeCapabilityMinor, handle) == 0)
        info.arch = "sm_" + std::to_string(major * 10 + minor);
    }
    result.push_back(info);
  }
  return result;
}

const easyml_gpu_image *GpuDriver::selectImage(const easyml_variant &variant,
                                               const GpuDeviceInfo &device,
                                               std::string &error) const {
  auto smNumber = [](const char *chip) {
    return std::strncmp(chip, "sm_", 3) == 0 ? std::atoi(chip + 3) : -1;
  };
  const easyml_gpu_image *best = nullptr;
  std::string chips;
  for (int64_t i = 0; i < variant.num_images; ++i) {
    const easyml_gpu_image &image = variant.images[i];
    chips += (chips.empty() ? "" : ", ") + std::string(image.chip);
    if (vendor_ == GpuVendor::Cuda) {
      int want = smNumber(device.arch.c_str()), have = smNumber(image.chip);
      if (have > 0 && have <= want && (!best || have > smNumber(best->chip)))
        best = &image;
    } else if (device.arch.empty() || device.arch == image.chip) {
      // Without the chip name the loader tries each image in turn.
      return &image;
    }
  }
  if (!best)
    error = "no code object of variant " + std::string(variant.name) +
            " fits device " + std::to_string(device.index) + " (" +
            device.name + (device.arch.empty() ? "" : ", " + device.arch) +
            "); compiled for: " + (chips.empty() ? "nothing" : chips) +
            " (recompile with --" + vendorName(vendor_) + "-chips)";
  return best;
}
