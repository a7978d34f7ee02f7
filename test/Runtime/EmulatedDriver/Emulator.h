//===- Emulator.h - a GPU over host memory for tests ------------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// The vendor-neutral core of the emulated GPU drivers (the CUDA driver
// libcuda.so.1 and the HIP runtime libamdhip64.so): "device" pointers are
// host pointers, and a launched kernel runs the same entry point of a CPU
// variant with the GPU's storage layout (SoA, vector width 1) from the
// model library named by EASYML_EMULATED_KERNELS=<library.so>:<variant>
// (or =<variant>: the library holding the code object). After a compute
// kernel it counts the cells left non-finite, as the GPU kernels do.
//
// Environment: EASYML_EMULATED_DEVICES (default 1), EASYML_EMULATED_MEMORY
// (bytes per device; allocations beyond fail with out-of-memory).
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_TEST_RUNTIME_EMULATEDDRIVER_EMULATOR_H
#define EASYML_TEST_RUNTIME_EMULATEDDRIVER_EMULATOR_H

#include <cstddef>
#include <cstdint>

namespace easyml::emulated {

/// Status codes; CUDA's driver API and HIP use the same numbers for these.
enum Status : int {
  kSuccess = 0,
  kInvalidValue = 1,
  kOutOfMemory = 2,
  kInvalidDevice = 101,
  kInvalidImage = 200,
  kNoBinaryForGpu = 209,
  kNotFound = 500,
};

/// The text of a status code, or null for codes the emulator never returns.
const char *statusText(int code);

int numDevices();
int deviceGet(int *handle, int ordinal);
size_t memoryPerDevice();

/// Loads a code object whose format the vendor front end has checked:
/// finds the CPU variant standing in for its kernels.
int loadModule(void **module, const void *image);
int getFunction(void **function, void *module, const char *name);

int allocate(void **pointer, size_t bytes);
int release(void *pointer);

/// Runs a kernel: params[0] points at the device pointer of its
/// easyml_kernel_args.
int launch(void *function, void **params);

int createStream(void **stream);
int destroyStream(void *stream);
int createEvent(void **event);
int recordEvent(void *event);
int elapsedMs(float *ms, void *start, void *stop);
int destroyEvent(void *event);

} // namespace easyml::emulated

#endif // EASYML_TEST_RUNTIME_EMULATEDDRIVER_EMULATOR_H
