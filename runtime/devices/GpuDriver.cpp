//===- GpuDriver.cpp - GPU drivers opened at run time ---------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/Devices/GpuDriver.h"

#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <mutex>

using namespace easyml::rt;


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
  int (*primaryCtxRelease)(int) = nullptr;         // CUDA
  int (*ctxSetCurrent)(void *) = nullptr;          // CUDA
  int (*setDevice)(int) = nullptr;                 // HIP
  int (*moduleLoadData)(void **, const void *) = nullptr;
  int (*moduleGetFunction)(void **, void *, const char *) = nullptr;
  int (*memGetInfo)(size_t *, size_t *) = nullptr;
  int (*cuMemAlloc)(uint64_t *, size_t) = nullptr;
  int (*cuMemFree)(uint64_t) = nullptr;
  int (*cuHtoDAsync)(uint64_t, const void *, size_t, void *) = nullptr;
  int (*cuDtoHAsync)(void *, uint64_t, size_t, void *) = nullptr;
  int (*cuDtoDAsync)(uint64_t, uint64_t, size_t, void *) = nullptr;
  int (*hipMalloc)(void **, size_t) = nullptr;
  int (*hipFree)(void *) = nullptr;
  int (*hipHtoDAsync)(void *, void *, size_t, void *) = nullptr;
  int (*hipDtoHAsync)(void *, void *, size_t, void *) = nullptr;
  int (*hipDtoDAsync)(void *, void *, size_t, void *) = nullptr;
  // cuMemHostRegister_v2 / hipHostRegister(pointer, bytes, flags).
  int (*hostRegister)(void *, size_t, unsigned) = nullptr;
  int (*hostUnregister)(void *) = nullptr;
  int (*launchKernel)(void *, unsigned, unsigned, unsigned, unsigned, unsigned,
                      unsigned, unsigned, void *, void **, void **) = nullptr;
  // One stream per device in use: copies, kernels and their events go
  // there. cuStreamCreate(stream, flags) / hipStreamCreate(stream).
  int (*cuStreamCreate)(void **, unsigned) = nullptr;
  int (*hipStreamCreate)(void **) = nullptr;
  int (*streamSynchronize)(void *) = nullptr;
  int (*streamDestroy)(void *) = nullptr;
  // cuEventCreate / hipEventCreateWithFlags(event, flags).
  int (*eventCreate)(void **, unsigned) = nullptr;
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
// CU_EVENT_BLOCKING_SYNC / hipEventBlockingSync.
constexpr unsigned kEventBlockingSync = 1;
// CU_MEMHOSTREGISTER_PORTABLE / hipHostRegisterPortable: pinned for every
// context, so one registration serves all GPUs of a vendor.
constexpr unsigned kHostRegisterPortable = 1;
} // namespace

GpuDriver::GpuDriver(Backend vendor, void *library, std::unique_ptr<Api> api)
    : vendor_(vendor), library_(library), api_(std::move(api)) {}

GpuDriver::~GpuDriver() {
  for (auto &entry : pinned_)
    api_->hostUnregister(entry.first);
  // The library stays loaded: drivers do not support being unloaded and
  // reloaded within a process.
  (void)library_;
}

std::shared_ptr<GpuDriver> GpuDriver::open(Backend vendor,
                                           std::string &error) {
  // One instance per vendor: cuInit/hipInit and the library load happen
  // once, and pinned memory is tracked in one place.
  static std::mutex mutex;
  static std::weak_ptr<GpuDriver> cache[2];
  std::lock_guard<std::mutex> lock(mutex);
  int slot = vendor == Backend::Cuda ? 0 : 1;
  if (auto existing = cache[slot].lock())
    return existing;
  std::shared_ptr<GpuDriver> driver = openLibrary(vendor, error);
  cache[slot] = driver;
  return driver;
}

std::shared_ptr<GpuDriver> GpuDriver::openLibrary(Backend vendor,
                                                  std::string &error) {
  bool cuda = vendor == Backend::Cuda;
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
    ok =
        bind(library, "cuInit", api->init) &&
        bind(library, "cuDriverGetVersion", api->driverVersion) &&
        bind(library, "cuDeviceGetCount", api->deviceCount) &&
        bind(library, "cuDeviceGet", api->deviceGet) &&
        bind(library, "cuDeviceGetName", api->deviceName) &&
        bind(library, "cuDeviceTotalMem_v2", api->totalMem) &&
        bind(library, "cuDeviceGetAttribute", api->attribute) &&
        bind(library, "cuGetErrorString", api->cudaErrorString) &&
        bind(library, "cuDevicePrimaryCtxRetain", api->primaryCtxRetain) &&
        bind(library, "cuDevicePrimaryCtxRelease_v2", api->primaryCtxRelease) &&
        bind(library, "cuCtxSetCurrent", api->ctxSetCurrent) &&
        bind(library, "cuModuleLoadData", api->moduleLoadData) &&
        bind(library, "cuModuleGetFunction", api->moduleGetFunction) &&
        bind(library, "cuMemGetInfo_v2", api->memGetInfo) &&
        bind(library, "cuMemAlloc_v2", api->cuMemAlloc) &&
        bind(library, "cuMemFree_v2", api->cuMemFree) &&
        bind(library, "cuMemcpyHtoDAsync_v2", api->cuHtoDAsync) &&
        bind(library, "cuMemcpyDtoHAsync_v2", api->cuDtoHAsync) &&
        bind(library, "cuMemcpyDtoDAsync_v2", api->cuDtoDAsync) &&
        bind(library, "cuMemHostRegister_v2", api->hostRegister) &&
        bind(library, "cuMemHostUnregister", api->hostUnregister) &&
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
         bind(library, "hipMemGetInfo", api->memGetInfo) &&
         bind(library, "hipMalloc", api->hipMalloc) &&
         bind(library, "hipFree", api->hipFree) &&
         bind(library, "hipMemcpyHtoDAsync", api->hipHtoDAsync) &&
         bind(library, "hipMemcpyDtoHAsync", api->hipDtoHAsync) &&
         bind(library, "hipMemcpyDtoDAsync", api->hipDtoDAsync) &&
         bind(library, "hipHostRegister", api->hostRegister) &&
         bind(library, "hipHostUnregister", api->hostUnregister) &&
         bind(library, "hipModuleLaunchKernel", api->launchKernel) &&
         bind(library, "hipStreamCreate", api->hipStreamCreate) &&
         bind(library, "hipStreamSynchronize", api->streamSynchronize) &&
         bind(library, "hipStreamDestroy", api->streamDestroy) &&
         bind(library, "hipEventCreateWithFlags", api->eventCreate) &&
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
  std::shared_ptr<GpuDriver> driver(
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
  if (vendor_ == Backend::Cuda)
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
    if (vendor_ == Backend::Cuda) {
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
            " (recompile with --" + backendName(vendor_) + "-chips)";
  return best;
}

//===----------------------------------------------------------------------===//
// Pinned host memory
//===----------------------------------------------------------------------===//

bool GpuDriver::pin(void *pointer, size_t bytes) {
  if (!pointer || !bytes)
    return false;
  std::lock_guard<std::mutex> lock(pinMutex_);
  auto it = pinned_.find(pointer);
  if (it != pinned_.end()) {
    ++it->second;
    return true;
  }
  if (api_->hostRegister(pointer, bytes, kHostRegisterPortable) != 0)
    return false;
  pinned_[pointer] = 1;
  return true;
}

void GpuDriver::unpin(void *pointer) {
  std::lock_guard<std::mutex> lock(pinMutex_);
  auto it = pinned_.find(pointer);
  if (it == pinned_.end())
    return;
  if (--it->second == 0) {
    api_->hostUnregister(pointer);
    pinned_.erase(it);
  }
}

//===----------------------------------------------------------------------===//
// Devices
//===----------------------------------------------------------------------===//

/// Returns false (or null) from the enclosing function with `error` set to
/// `what` and the driver's message when `call` fails.
#define EASYML_GPU_CHECK(call, what)                                           \
  do {                                                                         \
    if (int rc_ = (call)) {                                                    \
      error = std::string(what) + ": " + driver_->describe(rc_);               \
      return {};                                                               \
    }                                                                          \
  } while (false)

std::unique_ptr<GpuContext> GpuDriver::context(int index, std::string &error) {
  // The context keeps the driver alive.
  std::unique_ptr<GpuContext> ctx(new GpuContext(shared_from_this(), index));
  const Api &a = *api_;
  std::string where = "device " + std::to_string(index);
  if (vendor_ == Backend::Cuda) {
    int handle = 0;
    if (int rc = a.deviceGet(&handle, index)) {
      error = "cannot open " + where + ": " + describe(rc);
      return nullptr;
    }
    if (int rc = a.primaryCtxRetain(&ctx->context_, handle)) {
      error = "cannot create a context on " + where + ": " + describe(rc);
      return nullptr;
    }
  }
  if (!ctx->bind(error))
    return nullptr;
  // A blocking stream: it also orders after work on the legacy default
  // stream.
  int rc = vendor_ == Backend::Cuda ? a.cuStreamCreate(&ctx->stream_, 0)
                                      : a.hipStreamCreate(&ctx->stream_);
  if (rc) {
    error = "cannot create a stream on " + where + ": " + describe(rc);
    return nullptr;
  }
  return ctx;
}

GpuContext::GpuContext(std::shared_ptr<GpuDriver> driver, int index)
    : driver_(std::move(driver)), index_(index) {}

GpuContext::~GpuContext() {
  std::string ignored;
  if (!bind(ignored))
    return;
  const GpuDriver::Api &a = driver_->api();
  if (stream_) {
    a.streamSynchronize(stream_);
    a.streamDestroy(stream_);
  }
  if (context_) {
    int handle = 0;
    if (a.deviceGet(&handle, index_) == 0)
      a.primaryCtxRelease(handle);
  }
}

bool GpuContext::bind(std::string &error) {
  const GpuDriver::Api &a = driver_->api();
  if (driver_->vendor() == Backend::Cuda)
    EASYML_GPU_CHECK(a.ctxSetCurrent(context_), "cannot make device " +
                                                    std::to_string(index_) +
                                                    "'s context current");
  else
    EASYML_GPU_CHECK(a.setDevice(index_),
                     "cannot use device " + std::to_string(index_));
  return true;
}

void *GpuContext::loadModule(const void *image, std::string &error) {
  if (!bind(error))
    return nullptr;
  void *module = nullptr;
  EASYML_GPU_CHECK(driver_->api().moduleLoadData(&module, image),
                   "the device refused the code object");
  return module;
}

void *GpuContext::loadVariant(const easyml_variant &variant,
                              const GpuDeviceInfo &info,
                              const easyml_gpu_image *&image,
                              std::string &error) {
  image = nullptr;
  if (driver_->vendor() == Backend::Cuda) {
    image = driver_->selectImage(variant, info, error);
    return image ? loadModule(image->data, error) : nullptr;
  }
  // HIP does not name the chip here: each code object in turn until one
  // loads.
  std::string chips, reason;
  for (int64_t i = 0; i < variant.num_images; ++i) {
    const easyml_gpu_image &candidate = variant.images[i];
    chips += (chips.empty() ? "" : ", ") + std::string(candidate.chip);
    reason.clear();
    if (void *module = loadModule(candidate.data, reason)) {
      image = &candidate;
      return module;
    }
  }
  error = "no code object of variant " + std::string(variant.name) +
          " loads on device " + std::to_string(info.index) + " (" + info.name +
          "); compiled for: " + (chips.empty() ? "nothing" : chips) +
          (reason.empty() ? "" : "; the last said: " + reason) +
          " (recompile with --rocm-chips)";
  return nullptr;
}

void *GpuContext::function(void *module, const char *name, std::string &error) {
  void *fn = nullptr;
  EASYML_GPU_CHECK(driver_->api().moduleGetFunction(&fn, module, name),
                   std::string("no kernel ") + name + " in the code object");
  return fn;
}

uint64_t GpuContext::allocate(size_t bytes, std::string &error) {
  if (!bind(error))
    return 0;
  if (bytes == 0)
    bytes = 8; // a valid, distinct pointer for empty arrays
  std::string what =
      "cannot allocate " + std::to_string(bytes) + " bytes of device memory";
  const GpuDriver::Api &a = driver_->api();
  if (driver_->vendor() == Backend::Cuda) {
    uint64_t p = 0;
    EASYML_GPU_CHECK(a.cuMemAlloc(&p, bytes), what);
    return p;
  }
  void *p = nullptr;
  EASYML_GPU_CHECK(a.hipMalloc(&p, bytes), what);
  return reinterpret_cast<uint64_t>(p);
}

void GpuContext::release(uint64_t pointer) {
  std::string ignored;
  if (!pointer || !bind(ignored))
    return;
  const GpuDriver::Api &a = driver_->api();
  if (driver_->vendor() == Backend::Cuda)
    a.cuMemFree(pointer);
  else
    a.hipFree(reinterpret_cast<void *>(pointer));
}

bool GpuContext::memoryInfo(size_t &free, size_t &total) {
  std::string ignored;
  return bind(ignored) && driver_->api().memGetInfo(&free, &total) == 0;
}

bool GpuContext::copyToDevice(uint64_t dst, const void *src, size_t bytes,
                              std::string &error) {
  if (!bytes)
    return true;
  if (!bind(error))
    return false;
  const GpuDriver::Api &a = driver_->api();
  EASYML_GPU_CHECK(driver_->vendor() == Backend::Cuda
                       ? a.cuHtoDAsync(dst, src, bytes, stream_)
                       : a.hipHtoDAsync(reinterpret_cast<void *>(dst),
                                        const_cast<void *>(src), bytes,
                                        stream_),
                   "copy of " + std::to_string(bytes) + " bytes to the device");
  return true;
}

bool GpuContext::copyToHost(void *dst, uint64_t src, size_t bytes,
                            std::string &error) {
  if (!bytes)
    return true;
  if (!bind(error))
    return false;
  const GpuDriver::Api &a = driver_->api();
  EASYML_GPU_CHECK(
      driver_->vendor() == Backend::Cuda
          ? a.cuDtoHAsync(dst, src, bytes, stream_)
          : a.hipDtoHAsync(dst, reinterpret_cast<void *>(src), bytes, stream_),
      "copy of " + std::to_string(bytes) + " bytes to the host");
  return true;
}

bool GpuContext::copyOnDevice(uint64_t dst, uint64_t src, size_t bytes,
                              std::string &error) {
  if (!bytes)
    return true;
  if (!bind(error))
    return false;
  const GpuDriver::Api &a = driver_->api();
  EASYML_GPU_CHECK(driver_->vendor() == Backend::Cuda
                       ? a.cuDtoDAsync(dst, src, bytes, stream_)
                       : a.hipDtoDAsync(reinterpret_cast<void *>(dst),
                                        reinterpret_cast<void *>(src), bytes,
                                        stream_),
                   "copy of " + std::to_string(bytes) + " bytes on the device");
  return true;
}

bool GpuContext::launch(void *fn, unsigned blocks, unsigned threads,
                        void **params, std::string &error) {
  if (!bind(error))
    return false;
  EASYML_GPU_CHECK(driver_->api().launchKernel(fn, blocks, 1, 1, threads, 1, 1,
                                               0, stream_, params, nullptr),
                   "kernel launch (" + std::to_string(blocks) + " blocks of " +
                       std::to_string(threads) + " threads) failed");
  return true;
}

void *GpuContext::createEvent(std::string &error) {
  if (!bind(error))
    return nullptr;
  void *event = nullptr;
  EASYML_GPU_CHECK(driver_->api().eventCreate(&event, kEventBlockingSync),
                   "cannot create an event");
  return event;
}

void GpuContext::destroyEvent(void *event) {
  if (event)
    driver_->api().eventDestroy(event);
}

bool GpuContext::record(void *event, std::string &error) {
  if (!bind(error))
    return false;
  EASYML_GPU_CHECK(driver_->api().eventRecord(event, stream_),
                   "cannot record an event");
  return true;
}

bool GpuContext::waitFor(void *event, std::string &error) {
  if (!bind(error))
    return false;
  EASYML_GPU_CHECK(driver_->api().eventSynchronize(event),
                   "the device failed while running queued work");
  return true;
}

bool GpuContext::elapsedMs(void *start, void *stop, double &ms,
                           std::string &error) {
  float elapsed = 0;
  EASYML_GPU_CHECK(driver_->api().eventElapsed(&elapsed, start, stop),
                   "cannot time events");
  ms = elapsed;
  return true;
}

bool GpuContext::synchronize(std::string &error) {
  if (!bind(error))
    return false;
  EASYML_GPU_CHECK(driver_->api().streamSynchronize(stream_),
                   "the device failed while running queued work");
  return true;
}
