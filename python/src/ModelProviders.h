//===- ModelProviders.h - models for the Python package --------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// The Python package finds easyml-compile (easyml._compiler) and passes its
// path down: model files are compiled by it, libraries loaded as they are.
// An empty path: libraries only.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_PYTHON_MODELPROVIDERS_H
#define EASYML_PYTHON_MODELPROVIDERS_H

#include "easyml/Runtime/Apps/CompilerProcess.h"
#include "easyml/Runtime/Core/ModelProvider.h"

#include <memory>
#include <string>

namespace easyml::rt {

inline std::unique_ptr<ModelProvider>
modelProvider(const std::string &compiler, const std::string &cacheDir) {
  if (compiler.empty())
    return std::make_unique<LibraryProvider>();
  return std::make_unique<CompilerProcess>(compiler, cacheDir);
}

} // namespace easyml::rt

#endif // EASYML_PYTHON_MODELPROVIDERS_H
