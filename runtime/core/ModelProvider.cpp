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
  return ModelHandle::load(request.path);
}
