//===- CompileCache.cpp - one compilation in the artifact cache -----------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Driver/CompileCache.h"

#include "easyml/Driver/ModelCompiler.h"
#include "easyml/Target/ArtifactCache.h"

#include "llvm/Config/llvm-config.h"
#include "llvm/Support/FileSystem.h"

using namespace easyml;

std::optional<CompileCacheEntry>
CompileCacheEntry::get(const ModelCompiler &compiler,
                       llvm::ArrayRef<const char *> argv,
                       llvm::StringRef outputFile, llvm::StringRef name,
                       llvm::StringRef content, llvm::StringRef cacheDir) {
  const ModelCompilerOptions &options = compiler.getOptions();
  EmitKind emit = options.emit;
  bool artifact = emit == EmitKind::Obj || emit == EmitKind::Shared ||
                  emit == EmitKind::Asm || emit == EmitKind::LLVMIR ||
                  emit == EmitKind::Header || emit == EmitKind::GpuAsm;
  if (!artifact || options.verifyDiagnostics)
    return std::nullopt;
  std::string dir = artifactCacheDirectory(cacheDir);
  if (dir.empty())
    return std::nullopt;
  ArtifactKey key;
  key.add(options.compilerId + " llvm " LLVM_VERSION_STRING);
  key.addExecutable(argv.front(), reinterpret_cast<void *>(&emitKindValues));
  compiler.addToCacheKey(key);
  for (size_t i = 1; i < argv.size(); ++i) {
    llvm::StringRef arg(argv[i]);
    if (arg == "-o" && i + 1 < argv.size()) {
      ++i;
      continue;
    }
    if (arg.starts_with("-o") && arg.substr(2) == outputFile)
      continue;
    key.add(arg);
  }
  key.add(name);
  key.add(content);
  const char *ext = emit == EmitKind::Obj      ? ".o"
                    : emit == EmitKind::Shared ? ".so"
                    : emit == EmitKind::Header ? ".h"
                                               : ".txt";
  return CompileCacheEntry(key.path(dir, ext));
}

std::unique_ptr<llvm::MemoryBuffer> CompileCacheEntry::read() const {
  if (!llvm::sys::fs::exists(path))
    return nullptr;
  auto hit = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                         /*RequiresNullTerminator=*/false);
  return hit ? std::move(*hit) : nullptr;
}

void CompileCacheEntry::replayDiagnostics(bool noWarnings) const {
  if (auto warnings = llvm::MemoryBuffer::getFile(path + ".diag"))
    if (!noWarnings)
      llvm::errs() << (*warnings)->getBuffer();
}

void CompileCacheEntry::store(llvm::StringRef output,
                              llvm::StringRef diagnostics) const {
  if (!diagnostics.empty())
    storeArtifact(path + ".diag", diagnostics);
  storeArtifact(path, output);
}
