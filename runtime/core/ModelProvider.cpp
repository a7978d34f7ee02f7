//===- ModelProvider.cpp - where compiled models come from ----------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/Core/ModelProvider.h"

#include <cerrno>
#include <cstring>
#include <unistd.h>

using namespace easyml::rt;

ModelProvider::~ModelProvider() = default;

bool easyml::rt::isModelLibrary(const std::string &path) {
  return path.size() > 3 && path.compare(path.size() - 3, 3, ".so") == 0;
}

Expected<std::unique_ptr<ModelHandle>>
easyml::rt::loadModelLibrary(const std::string &path) {
  std::string error;
  std::unique_ptr<ModelHandle> model = ModelHandle::load(path, error);
  if (!model)
    return Status::invalid(error);
  return model;
}

Expected<std::unique_ptr<ModelHandle>>
LibraryProvider::load(const ModelRequest &request, ModelOrigin *origin) {
  if (origin)
    *origin = ModelOrigin();
  if (access(request.path.c_str(), R_OK) != 0)
    return Status::invalid("cannot read model '" + request.path +
                           "': " + std::strerror(errno));
  if (!isModelLibrary(request.path))
    return Status::invalid(
        "'" + request.path +
        "' is a model file and this program loads compiled models only: "
        "compile it with easyml-compile --emit=shared");
  return loadModelLibrary(request.path);
}
