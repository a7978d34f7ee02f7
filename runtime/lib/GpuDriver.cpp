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

  // Running kernels. Device pointers are 64-bit integers for CUDA
  // (CUdeviceptr) and pointers for HIP; both are stored as uint64_t.
  int (*primaryCtxRetain)(void **, int) = nullptr; // CUDA
  int (*ctxSetCurrent)(void *) = nullptr;          // CUDA
  int (*setDevice)(int) = nullptr;                 // HIP
  int (*moduleLoadData)(void **, const void *) = nullptr;
  int (*moduleGetFunction)(void **, void *, const char *) = nullptr;
  int (*cuMemAlloc)(uint64_t *, size_t) = nullptr;
  int (*cuMemFree)(uint64_t) = nullptr;
  int (*cuHtoD)(uint64_t, const void *, size_t) = nullptr;
  int (*cuDtoH)(void *, uint64_t, size_t) = nullptr;
  int (*cuDtoD)(uint64_t, uint64_t, size_t) = nullptr;
  int (*hipMalloc)(void **, size_t) = nullptr;
  int (*hipFree)(void *) = nullptr;
  int (*hipHtoD)(void *, const void *, size_t) = nullptr;
  int (*hipDtoH)(void *, void *, size_t) = nullptr;
  int (*hipDtoD)(void *, void *, size_t) = nullptr;
  int (*launchKernel)(void *, unsigned, unsigned, unsigned, unsigned, unsigned,
                      unsigned, unsigned, void *, void **, void **) = nullptr;
  // One stream per driver (per device in use): kernels and their events
  // go there. cuStreamCreate(stream, flags) / hipStreamCreate(stream).
  int (*cuStreamCreate)(void **, unsigned) = nullptr;
  int (*hipStreamCreate)(void **) = nullptr;
  int (*streamSynchronize)(void *) = nullptr;
  int (*streamDestroy)(void *) = nullptr;
  int (*eventCreate)(void **, unsigned) = nullptr; // cuEventCreate
  int (*hipEventCreate)(void **) = nullptr;
  int (*eventRecord)(void *, void *) = nullptr;
  int (*eventSynchronize)(void *) = nullptr;
  int (*eventElapsed)(float *, void *, void *) = nullptr;
  int (*eventDestroy)(void *) = nullptr;
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
  if (stream_)
    api_->streamDestroy(stream_);
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
         bind(library, "cuGetErrorString", api->cudaErrorString) &&
         bind(library, "cuDevicePrimaryCtxRetain", api->primaryCtxRetain) &&
         bind(library, "cuCtxSetCurrent", api->ctxSetCurrent) &&
         bind(library, "cuModuleLoadData", api->moduleLoadData) &&
         bind(library, "cuModuleGetFunction", api->moduleGetFunction) &&
         bind(library, "cuMemAlloc_v2", api->cuMemAlloc) &&
         bind(library, "cuMemFree_v2", api->cuMemFree) &&
         bind(library, "cuMemcpyHtoD_v2", api->cuHtoD) &&
         bind(library, "cuMemcpyDtoH_v2", api->cuDtoH) &&
         bind(library, "cuMemcpyDtoD_v2", api->cuDtoD) &&
         bind(library, "cuLaunchKernel", api->launchKernel) &&
         bind(library, "cuStreamCreate", api->cuStreamCreate) &&
         bind(library, "cuStreamSynchronize", api->streamSynchronize) &&
         bind(library, "cuStreamDestroy_v2", api->streamDestroy) &&
         bind(library, "cuEventCreate", api->eventCreate) &&
         bind(library, "cuEventRecord", api->eventRecord) &&
         bind(library, "cuEventSynchronize", api->eventSynchronize) &&
         bind(library, "cuEventElapsedTime", api->eventElapsed) &&
         bind(library, "cuEventDestroy_v2", api->eventDestroy);
  else
    ok = bind(library, "hipInit", api->init) &&
         bind(library, "hipDriverGetVersion", api->driverVersion) &&
         bind(library, "hipGetDeviceCount", api->deviceCount) &&
         bind(library, "hipDeviceGet", api->deviceGet) &&
         bind(library, "hipDeviceGetName", api->deviceName) &&
         bind(library, "hipDeviceTotalMem", api->totalMem) &&
         bind(library, "hipGetErrorString", api->hipErrorString) &&
         bind(library, "hipSetDevice", api->setDevice) &&
         bind(library, "hipModuleLoadData", api->moduleLoadData) &&
         bind(library, "hipModuleGetFunction", api->moduleGetFunction) &&
         bind(library, "hipMalloc", api->hipMalloc) &&
         bind(library, "hipFree", api->hipFree) &&
         bind(library, "hipMemcpyHtoD", api->hipHtoD) &&
         bind(library, "hipMemcpyDtoH", api->hipDtoH) &&
         bind(library, "hipMemcpyDtoD", api->hipDtoD) &&
         bind(library, "hipModuleLaunchKernel", api->launchKernel) &&
         bind(library, "hipStreamCreate", api->hipStreamCreate) &&
         bind(library, "hipStreamSynchronize", api->streamSynchronize) &&
         bind(library, "hipStreamDestroy", api->streamDestroy) &&
         bind(library, "hipEventCreate", api->hipEventCreate) &&
         bind(library, "hipEventRecord", api->eventRecord) &&
         bind(library, "hipEventSynchronize", api->eventSynchronize) &&
         bind(library, "hipEventElapsedTime", api->eventElapsed) &&
         bind(library, "hipEventDestroy", api->eventDestroy);
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

//===----------------------------------------------------------------------===//
// Running kernels
//===----------------------------------------------------------------------===//

/// Returns false (or null) from the enclosing function with `error` set to
/// `what` and the driver's message when `call` fails.
#define EASYML_GPU_CHECK(call, what)                                           \
  do {                                                                         \
    if (int rc_ = (call)) {                                                    \
      error = std::string(what) + ": " + describe(rc_);                        \
      return {};                                                               \
    }                                                                          \
  } while (false)

bool GpuDriver::setDevice(int index, std::string &error) {
  if (vendor_ == GpuVendor::Rocm) {
    EASYML_GPU_CHECK(api_->setDevice(index),
                     "cannot use device " + std::to_string(index));
    EASYML_GPU_CHECK(api_->hipStreamCreate(&stream_),
                     "cannot create a stream on device " +
                         std::to_string(index));
    return true;
  }
  int handle = 0;
  void *context = nullptr;
  EASYML_GPU_CHECK(api_->deviceGet(&handle, index),
                   "cannot open device " + std::to_string(index));
  EASYML_GPU_CHECK(api_->primaryCtxRetain(&context, handle),
                   "cannot create a context on device " +
                       std::to_string(index));
  EASYML_GPU_CHECK(api_->ctxSetCurrent(context), "cannot make device " +
                                                     std::to_string(index) +
                                                     "'s context current");
  // A blocking stream: it waits for the synchronous copies of the legacy
  // default stream, so transfers at events stay ordered with the kernels.
  EASYML_GPU_CHECK(api_->cuStreamCreate(&stream_, 0),
                   "cannot create a stream on device " + std::to_string(index));
  return true;
}

void *GpuDriver::loadModule(const void *image, std::string &error) {
  void *module = nullptr;
  EASYML_GPU_CHECK(api_->moduleLoadData(&module, image),
                   "the device refused the code object");
  return module;
}

void *GpuDriver::function(void *module, const char *name, std::string &error) {
  void *fn = nullptr;
  EASYML_GPU_CHECK(api_->moduleGetFunction(&fn, module, name),
                   std::string("no kernel ") + name + " in the code object");
  return fn;
}

uint64_t GpuDriver::allocate(size_t bytes, std::string &error) {
  if (bytes == 0)
    bytes = 8; // a valid, distinct pointer for empty arrays
  std::string what =
      "cannot allocate " + std::to_string(bytes) + " bytes of device memory";
  if (vendor_ == GpuVendor::Cuda) {
    uint64_t p = 0;
    EASYML_GPU_CHECK(api_->cuMemAlloc(&p, bytes), what);
    return p;
  }
  void *p = nullptr;
  EASYML_GPU_CHECK(api_->hipMalloc(&p, bytes), what);
  return reinterpret_cast<uint64_t>(p);
}

void GpuDriver::release(uint64_t pointer) {
  if (!pointer)
    return;
  if (vendor_ == GpuVendor::Cuda)
    api_->cuMemFree(pointer);
  else
    api_->hipFree(reinterpret_cast<void *>(pointer));
}

bool GpuDriver::toDevice(uint64_t dst, const void *src, size_t bytes,
                         std::string &error) {
  if (!bytes)
    return true;
  EASYML_GPU_CHECK(
      vendor_ == GpuVendor::Cuda
          ? api_->cuHtoD(dst, src, bytes)
          : api_->hipHtoD(reinterpret_cast<void *>(dst), src, bytes),
      "copy of " + std::to_string(bytes) + " bytes to the device");
  return true;
}

bool GpuDriver::toHost(void *dst, uint64_t src, size_t bytes,
                       std::string &error) {
  if (!bytes)
    return true;
  EASYML_GPU_CHECK(
      vendor_ == GpuVendor::Cuda
          ? api_->cuDtoH(dst, src, bytes)
          : api_->hipDtoH(dst, reinterpret_cast<void *>(src), bytes),
      "copy of " + std::to_string(bytes) + " bytes to the host");
  return true;
}

bool GpuDriver::deviceToDevice(uint64_t dst, uint64_t src, size_t bytes,
                               std::string &error) {
  if (!bytes)
    return true;
  EASYML_GPU_CHECK(vendor_ == GpuVendor::Cuda
                       ? api_->cuDtoD(dst, src, bytes)
                       : api_->hipDtoD(reinterpret_cast<void *>(dst),
                                       reinterpret_cast<void *>(src), bytes),
                   "copy of " + std::to_string(bytes) + " bytes on the device");
  return true;
}

bool GpuDriver::launch(void *fn, unsigned blocks, unsigned threads,
                       void **params, double &ms, std::string &error) {
  // The events are destroyed on every path out.
  struct Events {
    const Api &api;
    void *start = nullptr, *stop = nullptr;
    ~Events() {
      if (start)
        api.eventDestroy(start);
      if (stop)
        api.eventDestroy(stop);
    }
  } ev{*api_};
  if (vendor_ == GpuVendor::Cuda) {
    EASYML_GPU_CHECK(api_->eventCreate(&ev.start, 0), "cannot create an event");
    EASYML_GPU_CHECK(api_->eventCreate(&ev.stop, 0), "cannot create an event");
  } else {
    EASYML_GPU_CHECK(api_->hipEventCreate(&ev.start), "cannot create an event");
    EASYML_GPU_CHECK(api_->hipEventCreate(&ev.stop), "cannot create an event");
  }
  EASYML_GPU_CHECK(api_->eventRecord(ev.start, stream_),
                   "cannot record an event");
  EASYML_GPU_CHECK(api_->launchKernel(fn, blocks, 1, 1, threads, 1, 1, 0,
                                      stream_, params, nullptr),
                   "kernel launch (" + std::to_string(blocks) + " blocks of " +
                       std::to_string(threads) + " threads) failed");
  EASYML_GPU_CHECK(api_->eventRecord(ev.stop, stream_),
                   "cannot record an event");
  EASYML_GPU_CHECK(api_->eventSynchronize(ev.stop), "kernel failed");
  EASYML_GPU_CHECK(api_->streamSynchronize(stream_), "kernel failed");
  float elapsed = 0;
  api_->eventElapsed(&elapsed, ev.start, ev.stop);
  ms = elapsed;
  return true;
}
