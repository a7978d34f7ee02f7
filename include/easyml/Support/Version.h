//===- Version.h - EasyML version string ----------------------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_SUPPORT_VERSION_H
#define EASYML_SUPPORT_VERSION_H

#include "easyml/Support/VersionInfo.h" // generated in the build tree

#include "llvm/Config/llvm-config.h"
#include "llvm/Support/raw_ostream.h"

namespace easyml {

/// Prints `<tool> <version> (git <hash>)` and the LLVM/MLIR version used.
inline void printVersion(llvm::raw_ostream &os, llvm::StringRef tool) {
  os << tool << " " << EASYML_VERSION << " (git " << EASYML_GIT_HASH << ")\n"
     << "  built with LLVM/MLIR " << LLVM_VERSION_STRING << "\n";
}

} // namespace easyml

#endif // EASYML_SUPPORT_VERSION_H
