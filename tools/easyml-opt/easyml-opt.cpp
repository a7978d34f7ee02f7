//===- easyml-opt.cpp - EasyML optimizer driver ---------------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// Parses MLIR containing the easyml dialect, runs passes and pipelines, and
// prints the result: the tool behind the IR-level lit tests.
//
//===----------------------------------------------------------------------===//

#include "easyml/InitAll.h"
#include "easyml/Support/Version.h"

#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/CommandLine.h"

namespace easyml::test {
void registerTestDifferentiatePass();
} // namespace easyml::test

int main(int argc, char **argv) {
  llvm::cl::SetVersionPrinter(
      [](llvm::raw_ostream &os) { easyml::printVersion(os, "easyml-opt"); });
  mlir::DialectRegistry registry;
  easyml::registerAllDialects(registry);
  easyml::registerAllPasses();
  easyml::test::registerTestDifferentiatePass();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "EasyML optimizer driver\n", registry));
}
