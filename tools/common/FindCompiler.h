//===- FindCompiler.h - the easyml-compile beside a tool -------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// The runtime's tools (easyml-bench, easyml-tissue, easyml-drug) accept
// model files: they compile them with the easyml-compile installed beside
// them (the build puts every tool in one bin/, cmake --install too), or
// the one $EASYML_COMPILE names, else the one the PATH finds, and hand it
// to the runtime as its model provider.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_TOOLS_FINDCOMPILER_H
#define EASYML_TOOLS_FINDCOMPILER_H

#include <cstdlib>
#include <string>
#include <unistd.h>

namespace easyml::tools {

inline std::string findCompiler() {
  if (const char *named = std::getenv("EASYML_COMPILE"); named && *named)
    return named;
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n > 0) {
    std::string path(self, static_cast<size_t>(n));
    std::string beside = path.substr(0, path.rfind('/') + 1) + "easyml-compile";
    if (access(beside.c_str(), X_OK) == 0)
      return beside;
  }
  return "easyml-compile";
}

} // namespace easyml::tools

#endif // EASYML_TOOLS_FINDCOMPILER_H
