//===- GpuDriver.h - GPU drivers opened at run time -----------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// The CUDA driver (libcuda.so.1) and HIP (libamdhip64.so) opened with
// dlopen, so one build of the runtime runs on machines with and without
// GPUs and can say what it found. No CUDA or ROCm headers are needed: the
// few types and entry points used are declared in GpuDriver.cpp.
//
// A GpuDriver is the vendor's library (one per vendor and process); a
// GpuContext is one device of it with the stream its work is queued on.
// Every GpuContext call makes its device current on the calling thread
// first, so one host thread can drive several GPUs.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_GPUDRIVER_H
#define EASYML_RUNTIME_GPUDRIVER_H

#include "easyml/ABI/ABI.h"
#include "easyml/ABI/Backend.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace easyml::rt {


struct GpuDeviceInfo {
  int index = 0;
  std::string name;
  /// "sm_90" (CUDA); empty where the driver does not say (HIP).
  std::string arch;
  size_t memoryBytes = 0;
};

class GpuContext;

class GpuDriver : public std::enable_shared_from_this<GpuDriver> {
public:
  /// The vendor's driver library, opened and initialised once per process;
  /// null with `error` saying what is missing when it cannot be.
  static std::shared_ptr<GpuDriver> open(Backend vendor, std::string &error);
  ~GpuDriver();

  Backend vendor() const { return vendor_; }
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

  /// Device `index` with a stream of its own; null with `error`.
  std::unique_ptr<GpuContext> context(int index, std::string &error);

  /// Page-locks host memory so asynchronous copies overlap with other
  /// work (reference-counted per range; false where the driver refuses,
  /// which only costs overlap).
  bool pin(void *pointer, size_t bytes);
  void unpin(void *pointer);

  /// The driver's text for status `code`.
  std::string describe(int code) const;

  struct Api;
  const Api &api() const { return *api_; }

private:
  GpuDriver(Backend vendor, void *library, std::unique_ptr<Api> api);
  static std::shared_ptr<GpuDriver> openLibrary(Backend vendor,
                                                std::string &error);

  Backend vendor_;
  /// The library: never closed (drivers do not support being unloaded).
  void *library_;
  std::unique_ptr<Api> api_;
  std::mutex pinMutex_;
  std::map<void *, int> pinned_;
};

/// One GPU: its context (CUDA) or ordinal (HIP), a stream, and the work
/// queued on it. Copies, launches and events are asynchronous on the
/// stream; synchronize() waits for them.
class GpuContext {
public:
  ~GpuContext();
  GpuContext(const GpuContext &) = delete;
  GpuContext &operator=(const GpuContext &) = delete;

  GpuDriver &driver() const { return *driver_; }
  int index() const { return index_; }

  /// Loads a code object; null with `error` if the driver refuses it.
  void *loadModule(const void *image, std::string &error);
  /// Loads the code object of GPU variant `variant` that this device
  /// (`info`) takes: for CUDA GpuDriver::selectImage's, for HIP, whose
  /// driver does not name the chip, the first that loads. Sets `image`;
  /// null with `error` when none does.
  void *loadVariant(const easyml_variant &variant, const GpuDeviceInfo &info,
                    const easyml_gpu_image *&image, std::string &error);
  void *function(void *module, const char *name, std::string &error);

  /// Device memory; 0 with `error` when allocation fails.
  uint64_t allocate(size_t bytes, std::string &error);
  void release(uint64_t pointer);
  /// Free and total device memory (bytes); false when unknown.
  bool memoryInfo(size_t &free, size_t &total);

  bool copyToDevice(uint64_t dst, const void *src, size_t bytes,
                    std::string &error);
  bool copyToHost(void *dst, uint64_t src, size_t bytes, std::string &error);
  bool copyOnDevice(uint64_t dst, uint64_t src, size_t bytes,
                    std::string &error);
  /// Queues `fn` on `blocks` x `threads` with the argument array `params`
  /// (pointers to each argument).
  bool launch(void *fn, unsigned blocks, unsigned threads, void **params,
              std::string &error);

  /// Device events: created with blocking synchronisation, so a host
  /// thread waiting for one sleeps instead of spinning on a core the CPU
  /// pool needs.
  void *createEvent(std::string &error);
  void destroyEvent(void *event);
  bool record(void *event, std::string &error);
  bool waitFor(void *event, std::string &error);
  /// Milliseconds between two recorded, completed events.
  bool elapsedMs(void *start, void *stop, double &ms, std::string &error);
  /// Waits for everything queued on the stream.
  bool synchronize(std::string &error);

private:
  friend class GpuDriver;
  GpuContext(std::shared_ptr<GpuDriver> driver, int index);
  /// Makes this device current for the calling thread.
  bool bind(std::string &error);

  std::shared_ptr<GpuDriver> driver_;
  int index_;
  void *context_ = nullptr; // CUDA primary context
  void *stream_ = nullptr;
};

} // namespace easyml::rt

#endif // EASYML_RUNTIME_GPUDRIVER_H
