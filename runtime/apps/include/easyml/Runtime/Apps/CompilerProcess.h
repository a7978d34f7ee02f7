//===- CompilerProcess.h - models compiled by easyml-compile -*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// The model provider of the runtime's tools: a compiled library is loaded
// as it is; a model file is compiled by running the easyml-compile the
// tool names (the one installed beside it), through that compiler's
// artifact cache, so an unchanged model is a copy.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_APPS_COMPILERPROCESS_H
#define EASYML_RUNTIME_APPS_COMPILERPROCESS_H

#include "easyml/Runtime/Core/ModelProvider.h"

#include <string>

namespace easyml::rt {

class CompilerProcess final : public ModelProvider {
public:
  /// Runs `compiler` (a path, or a name the PATH resolves) with the
  /// artifact cache `cacheDir` ("" for the compiler's default:
  /// $EASYML_CACHE_DIR, $XDG_CACHE_HOME/easyml or ~/.cache/easyml).
  CompilerProcess(std::string compiler, std::string cacheDir)
      : compiler_(std::move(compiler)), cacheDir_(std::move(cacheDir)) {}

  /// A library loaded, or a model file compiled with `request.flags` and
  /// loaded; an Invalid error when the file cannot be read or does not
  /// compile (the compiler's diagnostics went to stderr).
  Expected<std::unique_ptr<ModelHandle>>
  load(const ModelRequest &request, ModelOrigin *origin = nullptr) override;

private:
  Status compile(const ModelRequest &request, std::string &library,
                 ModelOrigin &origin) const;

  std::string compiler_, cacheDir_;
};

} // namespace easyml::rt

#endif // EASYML_RUNTIME_APPS_COMPILERPROCESS_H
