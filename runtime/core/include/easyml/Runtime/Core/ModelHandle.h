//===- ModelHandle.h - a compiled model, linked in or loaded ---*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_CORE_MODELHANDLE_H
#define EASYML_RUNTIME_CORE_MODELHANDLE_H

#include "easyml/ABI/ABI.h"
#include "easyml/Runtime/Support/Status.h"

#include <memory>
#include <string>

namespace easyml::rt {

/// A model descriptor and, when loaded with dlopen, the library holding it.
class ModelHandle {
public:
  /// Wraps a descriptor linked into the program.
  explicit ModelHandle(const easyml_model_desc *desc) : desc_(desc) {}
  ~ModelHandle();
  ModelHandle(const ModelHandle &) = delete;
  ModelHandle &operator=(const ModelHandle &) = delete;

  /// Opens a shared library made by `easyml-compile --emit=shared`; Invalid
  /// for a file that is missing, not a model library or of another ABI.
  static Expected<std::unique_ptr<ModelHandle>> load(const std::string &path);

  const easyml_model_desc &desc() const { return *desc_; }
  /// The variant called `name`, or null. An empty name picks the CPU's
  /// default: `cpu-simd` when compiled, else the first CPU variant.
  const easyml_variant *variant(const std::string &name) const;

private:
  const easyml_model_desc *desc_;
  void *library_ = nullptr;
};

} // namespace easyml::rt

#endif // EASYML_RUNTIME_CORE_MODELHANDLE_H
