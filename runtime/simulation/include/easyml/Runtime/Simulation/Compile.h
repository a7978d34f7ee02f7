//===- Compile.h - a model file compiled through easyml-compile -*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_COMPILE_H
#define EASYML_RUNTIME_COMPILE_H

#include <memory>
#include <string>
#include <vector>

namespace easyml::rt {

struct CompiledModel {
  /// A temporary shared library: remove it once loaded.
  std::string library;
  /// Whether easyml-compile's artifact cache had it.
  bool cached = false;
  double seconds = 0;
};

/// Compiles `model` (a .model file) to a shared library by running
/// easyml-compile ($EASYML_COMPILE, else the one next to this program,
/// else the PATH's) with `flags`, through its artifact cache (`cacheDir`,
/// else $EASYML_CACHE_DIR, $XDG_CACHE_HOME/easyml or ~/.cache/easyml).
/// False with `error` when the file cannot be read or does not compile
/// (the compiler's diagnostics went to stderr).
bool compileModelFile(const std::string &model,
                      const std::vector<std::string> &flags,
                      const std::string &cacheDir, CompiledModel &out,
                      std::string &error);

class ModelHandle;
/// The model at `path`: a library (`.so`) loaded as it is, or an EasyML
/// file compiled with `flags` (compileModelFile) and loaded; `compiled`,
/// when given, says whether and how it was compiled. Null with `error`.
std::unique_ptr<ModelHandle>
loadOrCompileModel(const std::string &path,
                   const std::vector<std::string> &flags,
                   const std::string &cacheDir, std::string &error,
                   CompiledModel *compiled = nullptr);

} // namespace easyml::rt

#endif // EASYML_RUNTIME_COMPILE_H
