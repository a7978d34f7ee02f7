//===- EmulatedCudaDriver.cpp - a CUDA driver for tests without a GPU -----===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// A test double of libcuda.so.1: the entry points the runtime's GpuDriver
// binds, over the emulator (Emulator.h). It reports compute capability 9.0
// and accepts only fatbins.
//
// This exercises everything the runtime does around a GPU (device choice,
// code-object selection, allocation, transfers at events, state sync, NaN
// detection and replay, error reporting) on machines without one; the
// kernels themselves are checked on a real GPU.
//
//===----------------------------------------------------------------------===//

#include "Emulator.h"

#include <cstdio>
#include <cstring>

using namespace easyml::emulated;

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
int cuDeviceGet(int *handle, int ordinal) { return deviceGet(handle, ordinal); }
int cuDeviceGetName(char *name, int len, int) {
  std::snprintf(name, len, "EasyML emulated CUDA device");
  return kSuccess;
}
int cuDeviceTotalMem_v2(size_t *bytes, int) {
  *bytes = memoryPerDevice();
  return kSuccess;
}
int cuDeviceGetAttribute(int *value, int attribute, int) {
  // Compute capability 9.0 (attributes 75 and 76).
  *value = attribute == 75 ? 9 : 0;
  return kSuccess;
}
int cuGetErrorString(int code, const char **text) {
  *text = statusText(code);
  return *text ? kSuccess : kInvalidValue;
}
// A context is its device's ordinal plus one.
int cuDevicePrimaryCtxRetain(void **ctx, int device) {
  *ctx = reinterpret_cast<void *>(static_cast<uintptr_t>(device + 1));
  return kSuccess;
}
int cuDevicePrimaryCtxRelease_v2(int) { return kSuccess; }
int cuCtxSetCurrent(void *ctx) {
  return setCurrentDevice(static_cast<int>(reinterpret_cast<uintptr_t>(ctx)) -
                          1);
}

int cuModuleLoadData(void **module, const void *image) {
  // The runtime must hand over a fatbin (magic 0xBA55ED50).
  uint32_t magic = 0;
  std::memcpy(&magic, image, sizeof magic);
  if (magic != 0xBA55ED50u)
    return kInvalidImage;
  return loadModule(module, image);
}
int cuModuleGetFunction(void **fn, void *module, const char *name) {
  return getFunction(fn, module, name);
}

int cuMemGetInfo_v2(size_t *free, size_t *total) {
  return memoryInfo(free, total);
}
int cuMemAlloc_v2(uint64_t *p, size_t bytes) {
  void *mem = nullptr;
  int rc = allocate(&mem, bytes);
  *p = reinterpret_cast<uint64_t>(mem);
  return rc;
}
int cuMemFree_v2(uint64_t p) { return release(reinterpret_cast<void *>(p)); }
int cuMemcpyHtoDAsync_v2(uint64_t dst, const void *src, size_t n,
                         void *stream) {
  return copy(reinterpret_cast<void *>(dst), src, n, stream);
}
int cuMemcpyDtoHAsync_v2(void *dst, uint64_t src, size_t n, void *stream) {
  return copy(dst, reinterpret_cast<const void *>(src), n, stream);
}
int cuMemcpyDtoDAsync_v2(uint64_t dst, uint64_t src, size_t n, void *stream) {
  return copy(reinterpret_cast<void *>(dst), reinterpret_cast<void *>(src), n,
              stream);
}
int cuMemHostRegister_v2(void *, size_t, unsigned) { return kSuccess; }
int cuMemHostUnregister(void *) { return kSuccess; }

int cuLaunchKernel(void *fn, unsigned, unsigned, unsigned, unsigned, unsigned,
                   unsigned, unsigned, void *stream, void **params, void **) {
  return launch(fn, params, stream);
}
int cuStreamCreate(void **stream, unsigned) { return createStream(stream); }
int cuStreamSynchronize(void *stream) { return synchronizeStream(stream); }
int cuStreamDestroy_v2(void *stream) { return destroyStream(stream); }
int cuEventCreate(void **event, unsigned) { return createEvent(event); }
int cuEventRecord(void *event, void *stream) {
  return recordEvent(event, stream);
}
int cuEventSynchronize(void *event) { return synchronizeEvent(event); }
int cuEventElapsedTime(float *ms, void *start, void *stop) {
  return elapsedMs(ms, start, stop);
}
int cuEventDestroy_v2(void *event) { return destroyEvent(event); }
} // extern "C"
