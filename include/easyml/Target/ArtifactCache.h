//===- ArtifactCache.h - compiled artifacts by content ---------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// A content-addressed cache of compiled artifacts: a key over everything
// that decides the artifact (tool, versions, target, options, the model),
// entries written aside and renamed into place so concurrent builds never
// see half an entry.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_TARGET_ARTIFACTCACHE_H
#define EASYML_TARGET_ARTIFACTCACHE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SHA256.h"

#include <string>

namespace easyml {

/// Where artifacts are cached: `explicitDir`, else $EASYML_CACHE_DIR,
/// $XDG_CACHE_HOME/easyml or ~/.cache/easyml; "" when none applies.
std::string artifactCacheDirectory(llvm::StringRef explicitDir);

/// The key of one artifact, fed piece by piece.
class ArtifactKey {
public:
  /// Adds one piece (pieces are separated, so "ab","c" differs from "a","bc").
  void add(llvm::StringRef piece);
  /// Adds the running executable's path, size and modification time: a
  /// rebuild of the tool at the same commit is another compiler.
  /// `symbolInExecutable` is any function of the executable.
  void addExecutable(const char *argv0, void *symbolInExecutable);
  /// The entry's path under `dir`: dir/compile/ab/ab...ef`ext`. Ends the
  /// key: nothing may be added afterwards.
  std::string path(llvm::StringRef dir, llvm::StringRef ext);

private:
  llvm::SHA256 hash;
};

/// Stores `data` at `path` (written aside, then renamed). Failing to cache
/// is not an error: returns false and leaves nothing behind.
bool storeArtifact(const std::string &path, llvm::StringRef data);

} // namespace easyml

#endif // EASYML_TARGET_ARTIFACTCACHE_H
