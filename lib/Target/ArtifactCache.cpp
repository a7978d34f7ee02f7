//===- ArtifactCache.cpp - compiled artifacts by content ------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Target/ArtifactCache.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

using namespace easyml;

static std::string environment(const char *name) {
  const char *v = std::getenv(name);
  return v ? v : "";
}

std::string easyml::artifactCacheDirectory(llvm::StringRef explicitDir) {
  if (!explicitDir.empty())
    return explicitDir.str();
  if (std::string dir = environment("EASYML_CACHE_DIR"); !dir.empty())
    return dir;
  if (std::string xdg = environment("XDG_CACHE_HOME"); !xdg.empty())
    return xdg + "/easyml";
  if (std::string home = environment("HOME"); !home.empty())
    return home + "/.cache/easyml";
  return "";
}

void ArtifactKey::add(llvm::StringRef piece) {
  hash.update(piece);
  hash.update(llvm::StringRef("\0", 1));
}

void ArtifactKey::addExecutable(const char *argv0, void *symbolInExecutable) {
  std::string self =
      llvm::sys::fs::getMainExecutable(argv0, symbolInExecutable);
  llvm::sys::fs::file_status status;
  if (!llvm::sys::fs::status(self, status))
    add(self + " " + std::to_string(status.getSize()) + " " +
        std::to_string(
            status.getLastModificationTime().time_since_epoch().count()));
}

std::string ArtifactKey::path(llvm::StringRef dir, llvm::StringRef ext) {
  std::array<uint8_t, 32> digest = hash.final();
  std::string key = llvm::toHex(digest, /*LowerCase=*/true);
  return (dir + "/compile/" + key.substr(0, 2) + "/" + key + ext).str();
}

bool easyml::storeArtifact(const std::string &path, llvm::StringRef data) {
  llvm::StringRef dir = llvm::sys::path::parent_path(path);
  if (llvm::sys::fs::create_directories(dir))
    return false;
  llvm::SmallString<256> tmp;
  int fd;
  if (llvm::sys::fs::createUniqueFile(path + ".tmp%%%%%%", fd, tmp))
    return false;
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << data;
    os.close();
    if (os.has_error()) {
      os.clear_error();
      llvm::sys::fs::remove(tmp);
      return false;
    }
  }
  if (llvm::sys::fs::rename(tmp, path)) {
    llvm::sys::fs::remove(tmp);
    return false;
  }
  return true;
}
