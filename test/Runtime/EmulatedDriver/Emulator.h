//===- Emulator.h - GPUs over host memory for tests -------------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// The vendor-neutral core of the emulated GPU drivers (the CUDA driver
// libcuda.so.1 and the HIP runtime libamdhip64.so): "device" pointers are
// host pointers; every stream is a thread that runs its queue in order
// (copies, kernels, event records), so emulated devices work concurrently
// with the host as real ones do. A launched kernel runs, by
// EASYML_EMULATED_KERNELS:
//   host                   the GPU kernel's own code compiled for the host
//                          (`<kernel>_host`, from easyml-compile
//                          --emulate-gpu-kernels) in the library holding
//                          the code object: everything of the GPU variant
//                          but its device back end;
//   <library.so>:<variant> the same entry point of a CPU variant with the
//                          GPU's storage layout (SoA, vector width 1),
//   <variant>              from the library holding the code object
//                          (the diffusion kernel: the variant's `diffuse`).
// Either way a kernel gets its arguments and parameters by value (ABI 4),
// copied when the launch is queued.
//
// Environment:
//   EASYML_EMULATED_DEVICES    devices (default 1)
//   EASYML_EMULATED_MEMORY     bytes per device (allocations beyond fail)
//   EASYML_EMULATED_RATE       modelled speed in cell-steps per second,
//                              one per device ("1e9,3e8"; the last repeats).
//                              Events then carry modelled times: a kernel
//                              takes latency + cells*steps/rate, a copy
//                              bytes/bandwidth. Unset: events carry host
//                              time.
//   EASYML_EMULATED_PHASE      "P:F:X0,X1,...": with a rate, the steps in
//                              the first fraction F of every P steps cost
//                              device d Xd times as much (the last factor
//                              repeats): a cost that follows the phase of
//                              a paced cycle, differently per device
//   EASYML_EMULATED_LATENCY    modelled seconds per launch (default 5e-6)
//   EASYML_EMULATED_BANDWIDTH  modelled bytes per second (default 2.5e10)
//   EASYML_EMULATED_FAIL       comma-separated faults (tests of mid-run
//                              errors): "D:N" fails device D's launch N,
//                              "D:copy:N" its copy N, "D:lost:N" loses it
//                              from launch N on, "D:step:S" loses it at
//                              the first kernel that would compute global
//                              step S or a later one
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
  kLaunchFailed = 719,
};

/// The text of a status code, or null for codes the emulator never returns.
const char *statusText(int code);

int numDevices();
int deviceGet(int *handle, int ordinal);
size_t memoryPerDevice();
/// The device the calling thread works on.
int setCurrentDevice(int ordinal);
int currentDevice();

/// Loads a code object whose format the vendor front end has checked:
/// finds the host code standing in for its kernels.
int loadModule(void **module, const void *image);
int getFunction(void **function, void *module, const char *name);

int allocate(void **pointer, size_t bytes);
int release(void *pointer);
int memoryInfo(size_t *free, size_t *total);

/// Queues work on `stream` (null: a synchronous copy).
int copy(void *dst, const void *src, size_t bytes, void *stream);
/// Queues a kernel: params[0] points at its easyml_kernel_args, params[1]
/// (when the variant passes them by value) at its parameters; for the
/// diffusion kernel (ABI 6) params[0] points at its easyml_diffusion_args.
int launch(void *function, void **params, void *stream);

int createStream(void **stream);
int synchronizeStream(void *stream);
int destroyStream(void *stream);
int createEvent(void **event);
int recordEvent(void *event, void *stream);
int synchronizeEvent(void *event);
int elapsedMs(float *ms, void *start, void *stop);
int destroyEvent(void *event);

} // namespace easyml::emulated

#endif // EASYML_TEST_RUNTIME_EMULATEDDRIVER_EMULATOR_H
