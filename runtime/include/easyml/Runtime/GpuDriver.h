//===- GpuDriver.h - GPU drivers opened at run time -----------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// The CUDA driver (libcuda.so.1) and HIP (libamdhip64.so) opened with
// dlopen, so one build of the runtime runs on machines with and without
// GPUs and can say what it found. No CUDA or ROCm headers are needed: the
// few types and entry points used are declared here.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_GPUDRIVER_H
#define EASYML_RUNTIME_GPUDRIVER_H

#include "easyml/Runtime/ABI.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace easyml::rt {

enum class GpuVendor { Cuda, Rocm };

/// "cuda" or "rocm".
const char *vendorName(GpuVendor vendor);

struct GpuDeviceInfo {
  int index = 0;
  std::string name;
  /// "sm_90" (CUDA); empty where the driver does not say (HIP).
  std::string arch;
  size_t memoryBytes = 0;
};

class GpuDriver {
public:
  /// Opens the vendor's driver library and initialises it; null with
  /// `error` saying what is missing when it cannot.
  static std::unique_ptr<GpuDriver> open(GpuVendor vendor, std::string &error);
  ~GpuDriver();

  GpuVendor vendor() const { return vendor_; }
  /// "CUDA driver 13.0", "HIP runtime 6.2".
  std::string version() const;
  /// The devices the driver reports (possibly none).
  std::vector<GpuDeviceInfo> devices(std::string &error) const;

  /// The code object of `variant` that device `device` loads: for CUDA the
  /// image of the highest chip not above the device's (its PTX JIT-compiles
  /// forward), for ROCm the image of the device's own chip when known;
  /// null with `error` when none fits.
  const easyml_gpu_image *selectImage(const easyml_variant &variant,
                                      const GpuDeviceInfo &device,
                                      std::string &error) const;

  //===--- Running kernels (on the device chosen by setDevice) ---------===//
  /// Makes device `index` current for this thread (CUDA: its primary
  /// context) and creates the stream kernels are launched on.
  bool setDevice(int index, std::string &error);
  /// Loads a code object; null with `error` if the driver refuses it.
  void *loadModule(const void *image, std::string &error);
  void *function(void *module, const char *name, std::string &error);
  /// Device memory; 0 with `error` when allocation fails.
  uint64_t allocate(size_t bytes, std::string &error);
  void release(uint64_t pointer);
  bool toDevice(uint64_t dst, const void *src, size_t bytes,
                std::string &error);
  bool toHost(void *dst, uint64_t src, size_t bytes, std::string &error);
  bool deviceToDevice(uint64_t dst, uint64_t src, size_t bytes,
                      std::string &error);
  /// Launches `fn` on `blocks` x `threads` with the argument array
  /// `params` (pointers to each argument) and waits for it; `ms` gets the
  /// kernel time measured with device events.
  bool launch(void *fn, unsigned blocks, unsigned threads, void **params,
              double &ms, std::string &error);

private:
  struct Api;
  GpuDriver(GpuVendor vendor, void *library, std::unique_ptr<Api> api);
  std::string describe(int code) const;

  GpuVendor vendor_;
  void *library_;
  /// The stream kernels run on, made by setDevice.
  void *stream_ = nullptr;
  std::unique_ptr<Api> api_;
};

} // namespace easyml::rt

#endif // EASYML_RUNTIME_GPUDRIVER_H
