//===- Diagnostics.cpp - front-end diagnostics ----------------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Frontend/Diagnostics.h"

using namespace easyml;

static llvm::SourceMgr::DiagKind toKind(Severity sev) {
  switch (sev) {
  case Severity::Error:
    return llvm::SourceMgr::DK_Error;
  case Severity::Warning:
    return llvm::SourceMgr::DK_Warning;
  case Severity::Note:
    return llvm::SourceMgr::DK_Note;
  }
  return llvm::SourceMgr::DK_Error;
}

void DiagnosticEngine::print(llvm::raw_ostream &os) const {
  for (const Diagnostic &d : diags) {
    sm.PrintMessage(os, d.loc, toKind(d.severity), d.message);
    for (const DiagNote &n : d.notes)
      sm.PrintMessage(os, n.loc, llvm::SourceMgr::DK_Note, n.message);
  }
}
