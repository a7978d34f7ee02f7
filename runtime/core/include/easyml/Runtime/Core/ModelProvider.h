//===- ModelProvider.h - where compiled models come from -------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// The runtime never compiles a model and never looks for a compiler: what
// runs a simulation from a model path (a tool, the Python package) hands
// the runtime a ModelProvider. LibraryProvider loads compiled libraries
// only; a provider that compiles model files (the tools' runs the
// easyml-compile it is given, CompilerProcess.h) is the caller's choice.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_CORE_MODELPROVIDER_H
#define EASYML_RUNTIME_CORE_MODELPROVIDER_H

#include "easyml/Runtime/Core/ModelHandle.h"
#include "easyml/Runtime/Support/Status.h"

#include <memory>
#include <string>
#include <vector>

namespace easyml::rt {

/// A model asked for: a compiled library (`.so`) or a model file, and the
/// compiler flags a model file is compiled with.
struct ModelRequest {
  std::string path;
  std::vector<std::string> flags;
};

/// How a provided model was made.
struct ModelOrigin {
  bool compiled = false; // from a model file
  bool cached = false;   // the compiler's artifact cache had it
  double seconds = 0;    // spent compiling (or copying from the cache)
};

class ModelProvider {
public:
  virtual ~ModelProvider();
  /// The model of `request`, loaded, or an error naming the path: Invalid
  /// when the file is missing, not a model or does not compile, Failed
  /// when the provider could not do its work (a temporary file).
  virtual Expected<std::unique_ptr<ModelHandle>>
  load(const ModelRequest &request, ModelOrigin *origin = nullptr) = 0;
};

/// Whether `path` names a compiled library (ends in ".so").
bool isModelLibrary(const std::string &path);

/// Compiled libraries only: a model file is an error that says how to
/// compile it.
class LibraryProvider final : public ModelProvider {
public:
  Expected<std::unique_ptr<ModelHandle>>
  load(const ModelRequest &request, ModelOrigin *origin = nullptr) override;
};

} // namespace easyml::rt

#endif // EASYML_RUNTIME_CORE_MODELPROVIDER_H
