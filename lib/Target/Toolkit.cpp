//===- Toolkit.cpp - where GPU toolkits are -------------------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Target/Toolkit.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"

#include <cstdlib>
#include <map>
#include <mutex>
#include <vector>

using namespace easyml;

namespace {
/// The ROCm root built of links (see findRocm), removed at exit.
struct RocmShim {
  llvm::SmallString<128> dir;
  ~RocmShim() {
    if (!dir.empty())
      llvm::sys::fs::remove_directories(dir);
  }
};
} // namespace

static std::string environment(const char *name) {
  const char *v = std::getenv(name);
  return v ? v : "";
}

static bool exists(const llvm::Twine &path) {
  return llvm::sys::fs::exists(path);
}

static llvm::Error failure(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

static llvm::Expected<std::string> findCuda(llvm::StringRef explicitPath) {
  std::vector<std::string> candidates;
  if (!explicitPath.empty())
    candidates = {explicitPath.str()};
  else
    candidates = {environment("CUDA_PATH"), environment("CUDA_HOME"),
                  "/usr/local/cuda"};
  for (const std::string &c : candidates)
    if (!c.empty() && exists(c + "/bin/ptxas") &&
        exists(c + "/nvvm/libdevice/libdevice.10.bc")) {
      if (!exists(c + "/bin/fatbinary"))
        return failure("the cuda variant needs fatbinary, not found in '" + c +
                       "/bin'");
      return c;
    }
  std::string where =
      explicitPath.empty()
          ? std::string("none in $CUDA_PATH, $CUDA_HOME or /usr/local/cuda")
          : "not found in '" + explicitPath.str() + "'";
  return failure("the cuda variant needs the CUDA toolkit (bin/ptxas, "
                 "nvvm/libdevice/libdevice.10.bc); " +
                 where + " (install it or give --cuda-path)");
}

// ROCm: a root with amdgcn/bitcode and llvm/bin/ld.lld, as MLIR's ROCDL
// target expects; Debian's rocm-device-libs and lld-19 are laid out
// differently, so they are linked into that shape.
static llvm::Expected<std::string> findRocm(llvm::StringRef explicitPath) {
  std::vector<std::string> roots;
  if (!explicitPath.empty())
    roots = {explicitPath.str()};
  else
    roots = {environment("ROCM_PATH"), "/opt/rocm"};
  for (const std::string &r : roots)
    if (!r.empty() && exists(r + "/amdgcn/bitcode/ocml.bc") &&
        exists(r + "/llvm/bin/ld.lld"))
      return r;
  if (!explicitPath.empty())
    return failure("the rocm variant needs the ROCm device libraries and "
                   "ld.lld: '" +
                   explicitPath +
                   "' has no amdgcn/bitcode/ocml.bc or llvm/bin/ld.lld");
  std::string bitcode = "/usr/lib/x86_64-linux-gnu/amdgcn";
  auto lld = llvm::sys::findProgramByName("ld.lld-19");
  if (!lld)
    lld = llvm::sys::findProgramByName("ld.lld");
  bool haveBitcode = exists(bitcode + "/bitcode/ocml.bc");
  if (!haveBitcode || !lld)
    return failure(
        std::string("the rocm variant needs the ROCm device libraries "
                    "(amdgcn/bitcode/ocml.bc) and ld.lld: none in $ROCM_PATH "
                    "or /opt/rocm") +
        (haveBitcode ? "" : ", no Debian rocm-device-libs") +
        (lld ? "" : ", no ld.lld") +
        " (apt-get install rocm-device-libs lld-19, or give --rocm-path)");
  static RocmShim shim;
  if (shim.dir.empty()) {
    llvm::SmallString<128> dir;
    if (llvm::sys::fs::createUniqueDirectory("easyml-rocm", dir) ||
        llvm::sys::fs::create_directories(dir + "/llvm/bin") ||
        llvm::sys::fs::create_link(bitcode, dir + "/amdgcn") ||
        llvm::sys::fs::create_link(*lld, dir + "/llvm/bin/ld.lld")) {
      if (!dir.empty())
        llvm::sys::fs::remove_directories(dir);
      return failure("cannot prepare the ROCm toolkit links in a temporary "
                     "directory");
    }
    shim.dir = dir;
  }
  return std::string(shim.dir);
}

/// The toolkit of `backend`, looked for.
static llvm::Expected<std::string> findToolkit(Backend backend,
                                               llvm::StringRef explicitPath) {
  switch (backend) {
  case Backend::Cuda:
    return findCuda(explicitPath);
  case Backend::Rocm:
    return findRocm(explicitPath);
  case Backend::Cpu:
    return failure("the cpu backend has no GPU toolkit");
  }
  llvm_unreachable("unknown backend");
}

llvm::Expected<std::string>
easyml::findGpuToolkit(Backend backend, llvm::StringRef explicitPath) {
  static std::mutex mutex;
  static std::map<std::pair<Backend, std::string>, std::string> found;
  std::lock_guard<std::mutex> lock(mutex);
  auto key = std::make_pair(backend, explicitPath.str());
  if (auto it = found.find(key); it != found.end())
    return it->second;
  llvm::Expected<std::string> path = findToolkit(backend, explicitPath);
  if (path)
    found[key] = *path;
  return path;
}

llvm::Error easyml::checkGpuChip(Backend backend, llvm::StringRef name) {
  llvm::StringRef chip = name;
  static std::once_flag initialized;
  std::call_once(initialized, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeAMDGPUTargetInfo();
    LLVMInitializeAMDGPUTargetMC();
  });
  if (backend == Backend::Cpu)
    return llvm::createStringError("the cpu backend has no GPU chips");
  bool cuda = backend == Backend::Cuda;
  llvm::StringRef triple = cuda ? "nvptx64-nvidia-cuda" : "amdgcn-amd-amdhsa";
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple.str(), error);
  if (!target)
    return llvm::createStringError("LLVM has no " + triple +
                                   " back end: " + error);
  std::unique_ptr<llvm::MCSubtargetInfo> info(
      target->createMCSubtargetInfo(triple, "", ""));
  if (!info)
    return llvm::createStringError("cannot describe the processors of " +
                                   triple);
  // AMDGPU's generic processors compile, then fail to link or load.
  if (!chip.empty() && !chip.starts_with("generic") &&
      info->isCPUStringValid(chip))
    return llvm::Error::success();
  // ptxas, not LLVM, has the last word on NVIDIA chips: one newer than the
  // back end (sm_100 with LLVM 19) gets PTX for its generic processor, which
  // a CUDA toolkit that knows the chip assembles.
  if (cuda && chip.consume_front("sm_")) {
    if (!chip.consume_back("a"))
      chip.consume_back("f");
    if (!chip.empty() && llvm::all_of(chip, llvm::isDigit))
      return llvm::Error::success();
  }
  // The known processors one edit away from the name given.
  std::vector<std::string> close;
  for (const llvm::SubtargetSubTypeKV &kv :
       info->getAllProcessorDescriptions()) {
    llvm::StringRef known = kv.Key;
    if (!known.starts_with("generic") && name.edit_distance(known) == 1)
      close.push_back("'" + known.str() + "'");
  }
  std::string message = "unknown " + std::string(backendName(backend)) +
                        " chip '" + name.str() + "'";
  if (!close.empty())
    message += " (did you mean " + llvm::join(close, " or ") + "?)";
  if (cuda)
    message += "; expected sm_<number> with an optional 'a' or 'f' (sm_80, "
               "sm_90a)";
  else
    message += "; LLVM " + std::to_string(LLVM_VERSION_MAJOR) +
               " lists the chips it knows with: llc -march=amdgcn -mcpu=help";
  return llvm::createStringError(message);
}
