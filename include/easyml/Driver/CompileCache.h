//===- CompileCache.h - one compilation in the artifact cache -*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// Repeated builds of an unchanged model are a copy: easyml-compile looks its
// output up in the artifact cache (easyml/Target/ArtifactCache.h) before
// compiling, and stores it, with the diagnostics printed making it, after.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_DRIVER_COMPILECACHE_H
#define EASYML_DRIVER_COMPILECACHE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MemoryBuffer.h"

#include <memory>
#include <optional>
#include <string>

namespace easyml {

class ModelCompiler;

/// The artifact cache entry of one compilation. Its key covers the
/// compiler's identity and executable, LLVM's version, what the compiler
/// resolved its options to, every command-line argument but the output
/// path, the model's name and its content. The input path is part of it:
/// the descriptor records it and the warnings replayed from the cache name
/// it.
class CompileCacheEntry {
public:
  /// The entry for compiling model `name` (`content`) with `compiler`, as
  /// the command line `argv` asks (writing to `outputFile`), under
  /// `cacheDir` or the default directory; none when caching does not apply
  /// (not a back-end artifact, diagnostics being checked, no directory).
  static std::optional<CompileCacheEntry>
  get(const ModelCompiler &compiler, llvm::ArrayRef<const char *> argv,
      llvm::StringRef outputFile, llvm::StringRef name, llvm::StringRef content,
      llvm::StringRef cacheDir);

  /// The cached output, if the entry exists and can be read.
  std::unique_ptr<llvm::MemoryBuffer> read() const;
  /// Prints the diagnostics stored with the output, unless `noWarnings`.
  void replayDiagnostics(bool noWarnings) const;
  /// Stores `output` and the diagnostics printed making it (those first:
  /// an entry is complete once its output exists).
  void store(llvm::StringRef output, llvm::StringRef diagnostics) const;

private:
  explicit CompileCacheEntry(std::string path) : path(std::move(path)) {}
  std::string path;
};

} // namespace easyml

#endif // EASYML_DRIVER_COMPILECACHE_H
