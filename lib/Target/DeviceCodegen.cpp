//===- DeviceCodegen.cpp - LLVM back-end settings for GPU kernels ---------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Target/DeviceCodegen.h"

#include "llvm/Support/CommandLine.h"

#include <condition_variable>
#include <mutex>

using namespace easyml;

namespace {
/// The settings held now, by how many scopes, and what they replaced.
struct State {
  std::mutex mutex;
  std::condition_variable released;
  unsigned holders = 0;
  DeviceCodegenSettings held;
  bool savedDisableMachineSink = false;
};

State &state() {
  static State s;
  return s;
}

llvm::cl::opt<bool> *boolOption(llvm::StringRef name) {
  llvm::StringMap<llvm::cl::Option *> &options =
      llvm::cl::getRegisteredOptions();
  auto it = options.find(name);
  // Registered by LLVM's CodeGen library as a cl::opt<bool>, whose value
  // is optional (`--name` or `--name=false`).
  if (it == options.end() ||
      it->second->getValueExpectedFlag() != llvm::cl::ValueOptional)
    return nullptr;
  return static_cast<llvm::cl::opt<bool> *>(it->second);
}

constexpr const char *kDisableMachineSink = "disable-machine-sink";
} // namespace

DeviceCodegenScope::DeviceCodegenScope(const DeviceCodegenSettings &settings) {
  llvm::cl::opt<bool> *disableSink = boolOption(kDisableMachineSink);
  if (!settings.machineSink && !disableSink) {
    missing = kDisableMachineSink;
    return;
  }
  State &s = state();
  std::unique_lock<std::mutex> lock(s.mutex);
  s.released.wait(lock, [&] { return s.holders == 0 || s.held == settings; });
  if (s.holders++ == 0) {
    s.held = settings;
    if (disableSink) {
      s.savedDisableMachineSink = *disableSink;
      if (!settings.machineSink)
        *disableSink = true;
    }
  }
  held = true;
}

DeviceCodegenScope::~DeviceCodegenScope() {
  if (!held)
    return;
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (--s.holders == 0) {
    if (llvm::cl::opt<bool> *disableSink = boolOption(kDisableMachineSink))
      *disableSink = s.savedDisableMachineSink;
    s.released.notify_all();
  }
}

llvm::Error DeviceCodegenScope::status() const {
  if (missing.empty())
    return llvm::Error::success();
  return llvm::createStringError(
      "this LLVM has no option '" + missing +
      "': GPU kernels are compiled with its default");
}

bool easyml::machineSinkDisabled() {
  llvm::cl::opt<bool> *disableSink = boolOption(kDisableMachineSink);
  return disableSink && *disableSink;
}
