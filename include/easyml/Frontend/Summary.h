//===- Summary.h - readable model summaries -------------------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_FRONTEND_SUMMARY_H
#define EASYML_FRONTEND_SUMMARY_H

#include "easyml/Frontend/Sema.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

namespace easyml {

/// Prints what the front end understood: states with kind, method and
/// initial value, parameters, flags, externals, tables and counts.
void printSummary(llvm::raw_ostream &os, const Model &model);

/// The same information as JSON (`--emit=summary-json`).
llvm::json::Value summaryToJSON(const Model &model);

} // namespace easyml

#endif // EASYML_FRONTEND_SUMMARY_H
