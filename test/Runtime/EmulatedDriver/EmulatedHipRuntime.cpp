//===- EmulatedHipRuntime.cpp - a HIP runtime for tests without a GPU -----===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// A test double of libamdhip64.so: the entry points the runtime's GpuDriver
// binds for ROCm, over the emulator (Emulator.h). Its devices are the chip
// named by EASYML_EMULATED_HIP_ARCH (default gfx942): a code object loads
// only if it is an AMDGPU HSA ELF for that chip, as on a real device, so
// the runtime's search through a variant's code objects is exercised.
//
//===----------------------------------------------------------------------===//

#include "Emulator.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

using namespace easyml::emulated;

namespace {
/// EF_AMDGPU_MACH of the chips the compiler builds for by default and
/// their neighbours.
int machOf(const std::string &chip) {
  struct {
    const char *chip;
    int mach;
  } const table[] = {{"gfx908", 0x30}, {"gfx90a", 0x3f}, {"gfx940", 0x40},
                     {"gfx941", 0x4b}, {"gfx942", 0x4c}, {"gfx1030", 0x36},
                     {"gfx1100", 0x41}};
  for (const auto &entry : table)
    if (chip == entry.chip)
      return entry.mach;
  return -1;
}

std::string deviceChip() {
  const char *arch = std::getenv("EASYML_EMULATED_HIP_ARCH");
  return arch ? arch : "gfx942";
}
} // namespace

extern "C" {
int hipInit(unsigned) { return kSuccess; }
int hipDriverGetVersion(int *v) {
  *v = 60241134; // HIP 6.2
  return kSuccess;
}
int hipGetDeviceCount(int *n) {
  *n = numDevices();
  return kSuccess;
}
int hipDeviceGet(int *handle, int ordinal) {
  return deviceGet(handle, ordinal);
}
int hipDeviceGetName(char *name, int len, int) {
  std::snprintf(name, len, "EasyML emulated HIP device (%s)",
                deviceChip().c_str());
  return kSuccess;
}
int hipDeviceTotalMem(size_t *bytes, int) {
  *bytes = memoryPerDevice();
  return kSuccess;
}
const char *hipGetErrorString(int code) {
  const char *text = statusText(code);
  return text ? text : "unknown error";
}
int hipSetDevice(int ordinal) { return setCurrentDevice(ordinal); }

int hipModuleLoadData(void **module, const void *image) {
  // An AMDGPU code object: ELF, OS ABI AMDGPU_HSA (64), machine EM_AMDGPU
  // (224), the chip in the low byte of e_flags.
  const auto *bytes = static_cast<const unsigned char *>(image);
  if (std::memcmp(bytes,
                  "\x7f"
                  "ELF",
                  4) != 0 ||
      bytes[7] != 64)
    return kInvalidImage;
  uint16_t machine = 0;
  uint32_t flags = 0;
  std::memcpy(&machine, bytes + 18, sizeof machine);
  std::memcpy(&flags, bytes + 48, sizeof flags);
  if (machine != 224)
    return kInvalidImage;
  if (static_cast<int>(flags & 0xff) != machOf(deviceChip()))
    return kNoBinaryForGpu;
  return loadModule(module, image);
}
int hipModuleGetFunction(void **fn, void *module, const char *name) {
  return getFunction(fn, module, name);
}

int hipMemGetInfo(size_t *free, size_t *total) {
  return memoryInfo(free, total);
}
int hipMalloc(void **p, size_t bytes) { return allocate(p, bytes); }
int hipFree(void *p) { return release(p); }
int hipMemcpyHtoDAsync(void *dst, void *src, size_t n, void *stream) {
  return copy(dst, src, n, stream);
}
int hipMemcpyDtoHAsync(void *dst, void *src, size_t n, void *stream) {
  return copy(dst, src, n, stream);
}
int hipMemcpyDtoDAsync(void *dst, void *src, size_t n, void *stream) {
  return copy(dst, src, n, stream);
}
int hipHostRegister(void *, size_t, unsigned) { return kSuccess; }
int hipHostUnregister(void *) { return kSuccess; }

int hipModuleLaunchKernel(void *fn, unsigned, unsigned, unsigned, unsigned,
                          unsigned, unsigned, unsigned, void *stream,
                          void **params, void **) {
  return launch(fn, params, stream);
}
int hipStreamCreate(void **stream) { return createStream(stream); }
int hipStreamSynchronize(void *stream) { return synchronizeStream(stream); }
int hipStreamDestroy(void *stream) { return destroyStream(stream); }
int hipEventCreateWithFlags(void **event, unsigned) {
  return createEvent(event);
}
int hipEventRecord(void *event, void *stream) {
  return recordEvent(event, stream);
}
int hipEventSynchronize(void *event) { return synchronizeEvent(event); }
int hipEventElapsedTime(float *ms, void *start, void *stop) {
  return elapsedMs(ms, start, stop);
}
int hipEventDestroy(void *event) { return destroyEvent(event); }
} // extern "C"
