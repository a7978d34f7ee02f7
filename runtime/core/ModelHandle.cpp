//===- ModelHandle.cpp - loading compiled models --------------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/Core/ModelHandle.h"
#include "easyml/ABI/Backend.h"

#include <dlfcn.h>

using namespace easyml::rt;

ModelHandle::~ModelHandle() {
  if (library_)
    dlclose(library_);
}

Expected<std::unique_ptr<ModelHandle>>
ModelHandle::load(const std::string &path) {
  // dlopen searches the library path for names without a slash.
  std::string p = path.find('/') == std::string::npos ? "./" + path : path;
  void *lib = dlopen(p.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char *msg = dlerror();
    return Status::invalid("cannot load model library '" + path +
                           "': " + (msg ? msg : "unknown error"));
  }
  auto *desc =
      static_cast<const easyml_model_desc *>(dlsym(lib, "easyml_model"));
  if (!desc) {
    dlclose(lib);
    return Status::invalid(
        "'" + path +
        "' is not an EasyML model library (no 'easyml_model' symbol; "
        "build it with easyml-compile --emit=shared)");
  }
  if (desc->abi_version != EASYML_ABI_VERSION) {
    dlclose(lib);
    return Status::invalid("'" + path + "' was built for model ABI version " +
                           std::to_string(desc->abi_version) +
                           ", this runtime reads " +
                           std::to_string(EASYML_ABI_VERSION));
  }
  auto handle = std::make_unique<ModelHandle>(desc);
  handle->library_ = lib;
  return std::unique_ptr<ModelHandle>(std::move(handle));
}

const easyml_variant *ModelHandle::variant(const std::string &name) const {
  if (name.empty()) {
    // The CPU's default: the vectorised variant where it was compiled.
    if (const easyml_variant *simd = variant("cpu-simd"))
      return simd;
    for (int64_t i = 0; i < desc_->num_variants; ++i)
      if (backendOf(desc_->variants[i]) == Backend::Cpu)
        return &desc_->variants[i];
    return nullptr;
  }
  for (int64_t i = 0; i < desc_->num_variants; ++i)
    if (name == desc_->variants[i].name)
      return &desc_->variants[i];
  return nullptr;
}
