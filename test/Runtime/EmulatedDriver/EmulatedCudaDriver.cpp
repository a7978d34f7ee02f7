//===- EmulatedCudaDriver.cpp - a CUDA driver for tests without a GPU -----===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// A test double of libcuda.so.1: the entry points the runtime's GpuDriver
// binds, over host memory. "Device" pointers are host pointers, and a
// launched kernel runs the same entry point of a CPU variant with the
// GPU's storage layout (SoA, vector width 1) from the model library named
// by EASYML_EMULATED_KERNELS=<library.so>:<variant> (or =<variant>: the
// library holding the code object). It also counts
// non-finite cells after a compute kernel, as the GPU kernels do.
//
// This exercises everything the runtime does around a GPU (device choice,
// code-object selection, allocation, transfers at events, state sync, NaN
// detection and replay, error reporting) on machines without one; the
// kernels themselves are checked on a real GPU.
//
// Environment: EASYML_EMULATED_DEVICES (default 1), EASYML_EMULATED_MEMORY
// (bytes per device; allocations beyond fail with out-of-memory).
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/ABI.h"

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <map>
#include <string>

namespace {
enum : int {
  kSuccess = 0,
  kInvalidValue = 1,
  kOutOfMemory = 2,
  kInvalidImage = 200,
  kNotFound = 500,
  kInvalidDevice = 101,
};

struct Module {
  const easyml_model_desc *desc;
  const easyml_variant *variant;
};

struct Function {
  const easyml_model_desc *desc;
  easyml_kernel_fn fn;
  bool compute;
};

size_t allocated = 0;
std::map<uintptr_t, size_t> blocks;

int numDevices() {
  const char *n = std::getenv("EASYML_EMULATED_DEVICES");
  return n ? std::atoi(n) : 1;
}

double seconds() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

/// The model and CPU variant standing in for the GPU's kernels: from the
/// library named, or (spec "<variant>" alone) the library holding `image`.
bool substitute(Module &m, const void *image) {
  const char *spec = std::getenv("EASYML_EMULATED_KERNELS");
  if (!spec)
    return false;
  std::string s(spec), path;
  size_t colon = s.rfind(':');
  Dl_info where;
  if (colon != std::string::npos)
    path = s.substr(0, colon);
  else if (dladdr(image, &where) && where.dli_fname)
    path = where.dli_fname;
  else
    return false;
  void *lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib)
    return false;
  m.desc = static_cast<const easyml_model_desc *>(dlsym(lib, "easyml_model"));
  if (!m.desc)
    return false;
  std::string name = colon == std::string::npos ? s : s.substr(colon + 1);
  for (int64_t i = 0; i < m.desc->num_variants; ++i) {
    const easyml_variant &v = m.desc->variants[i];
    if (name == v.name && v.device == EASYML_DEVICE_CPU &&
        v.layout == EASYML_LAYOUT_SOA && v.vector_width == 1) {
      m.variant = &v;
      return true;
    }
  }
  return false;
}

bool endsWith(const std::string &s, const std::string &suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}
} // namespace

extern "C" {
int cuInit(unsigned) { return kSuccess; }
int cuDriverGetVersion(int *v) {
  *v = 13000;
  return kSuccess;
}
int cuDeviceGetCount(int *n) {
  *n = numDevices();
  return kSuccess;
}
int cuDeviceGet(int *handle, int ordinal) {
  if (ordinal < 0 || ordinal >= numDevices())
    return kInvalidDevice;
  *handle = ordinal;
  return kSuccess;
}
int cuDeviceGetName(char *name, int len, int) {
  std::snprintf(name, len, "EasyML emulated CUDA device");
  return kSuccess;
}
int cuDeviceTotalMem_v2(size_t *bytes, int) {
  const char *m = std::getenv("EASYML_EMULATED_MEMORY");
  *bytes = m ? std::strtoull(m, nullptr, 10) : (size_t(1) << 30);
  return kSuccess;
}
int cuDeviceGetAttribute(int *value, int attribute, int) {
  // Compute capability 9.0.
  *value = attribute == 75 ? 9 : attribute == 76 ? 0 : 0;
  return kSuccess;
}
int cuGetErrorString(int code, const char **text) {
  switch (code) {
  case kOutOfMemory:
    *text = "out of memory";
    return kSuccess;
  case kInvalidImage:
    *text = "device kernel image is invalid";
    return kSuccess;
  case kNotFound:
    *text = "named symbol not found";
    return kSuccess;
  case kInvalidDevice:
    *text = "invalid device ordinal";
    return kSuccess;
  default:
    *text = nullptr;
    return kInvalidValue;
  }
}
int cuDevicePrimaryCtxRetain(void **ctx, int device) {
  *ctx = reinterpret_cast<void *>(static_cast<uintptr_t>(device + 1));
  return kSuccess;
}
int cuCtxSetCurrent(void *) { return kSuccess; }

int cuModuleLoadData(void **module, const void *image) {
  // The runtime must hand over a fatbin (magic 0xBA55ED50).
  uint32_t magic = 0;
  std::memcpy(&magic, image, sizeof magic);
  auto *m = new Module{};
  if (magic != 0xBA55ED50u || !substitute(*m, image)) {
    delete m;
    return kInvalidImage;
  }
  *module = m;
  return kSuccess;
}
int cuModuleGetFunction(void **fn, void *module, const char *name) {
  auto *m = static_cast<Module *>(module);
  std::string n(name);
  auto *f = new Function{m->desc, nullptr, false};
  if (endsWith(n, "_init"))
    f->fn = m->variant->init;
  else if (endsWith(n, "_compute")) {
    f->fn = m->variant->compute;
    f->compute = true;
  } else if (endsWith(n, "_eval"))
    f->fn = m->variant->eval;
  if (!f->fn) {
    delete f;
    return kNotFound;
  }
  *fn = f;
  return kSuccess;
}

int cuMemAlloc_v2(uint64_t *p, size_t bytes) {
  size_t limit = 0;
  cuDeviceTotalMem_v2(&limit, 0);
  if (allocated + bytes > limit)
    return kOutOfMemory;
  void *mem = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
  if (!mem)
    return kOutOfMemory;
  allocated += bytes;
  blocks[reinterpret_cast<uintptr_t>(mem)] = bytes;
  *p = reinterpret_cast<uint64_t>(mem);
  return kSuccess;
}
int cuMemFree_v2(uint64_t p) {
  auto it = blocks.find(static_cast<uintptr_t>(p));
  if (it == blocks.end())
    return kInvalidValue;
  allocated -= it->second;
  blocks.erase(it);
  std::free(reinterpret_cast<void *>(p));
  return kSuccess;
}
int cuMemcpyHtoD_v2(uint64_t dst, const void *src, size_t n) {
  std::memcpy(reinterpret_cast<void *>(dst), src, n);
  return kSuccess;
}
int cuMemcpyDtoH_v2(void *dst, uint64_t src, size_t n) {
  std::memcpy(dst, reinterpret_cast<const void *>(src), n);
  return kSuccess;
}
int cuMemcpyDtoD_v2(uint64_t dst, uint64_t src, size_t n) {
  std::memcpy(reinterpret_cast<void *>(dst), reinterpret_cast<void *>(src), n);
  return kSuccess;
}

int cuLaunchKernel(void *fn, unsigned, unsigned, unsigned, unsigned, unsigned,
                   unsigned, unsigned, void *, void **params, void **) {
  auto *f = static_cast<Function *>(fn);
  const auto *args = *static_cast<easyml_kernel_args **>(params[0]);
  f->fn(args);
  if (f->compute) {
    // As the GPU compute kernels: count cells left non-finite.
    const easyml_model_desc &d = *f->desc;
    int64_t bad = 0;
    for (int64_t c = args->begin; c < args->end; ++c) {
      bool finite = true;
      for (int64_t v = 0; v < d.num_states; ++v)
        finite &= std::isfinite(args->sv[v * args->stride + c]);
      for (int64_t e = 0; e < d.num_externals; ++e)
        finite &= std::isfinite(args->ext[e][c]);
      bad += !finite;
    }
    args->counters[d.num_counters] += bad;
  }
  return kSuccess;
}
int cuStreamCreate(void **stream, unsigned) {
  *stream = new int(0);
  return kSuccess;
}
int cuStreamSynchronize(void *) { return kSuccess; }
int cuStreamDestroy_v2(void *stream) {
  delete static_cast<int *>(stream);
  return kSuccess;
}
int cuEventCreate(void **event, unsigned) {
  *event = new double(0);
  return kSuccess;
}
int cuEventRecord(void *event, void *) {
  *static_cast<double *>(event) = seconds();
  return kSuccess;
}
int cuEventSynchronize(void *) { return kSuccess; }
int cuEventElapsedTime(float *ms, void *start, void *stop) {
  *ms = static_cast<float>(
      (*static_cast<double *>(stop) - *static_cast<double *>(start)) * 1e3);
  return kSuccess;
}
int cuEventDestroy_v2(void *event) {
  delete static_cast<double *>(event);
  return kSuccess;
}
} // extern "C"
