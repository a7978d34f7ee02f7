//===- Diagnostics.h - front-end diagnostics ------------------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// The front end reports every problem through a DiagnosticEngine: errors,
// warnings and notes anchored at source locations in an llvm::SourceMgr.
// Tools decide how to present them (printed with a caret, or handed to MLIR's
// diagnostic verifier); the front end itself never prints or aborts.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_FRONTEND_DIAGNOSTICS_H
#define EASYML_FRONTEND_DIAGNOSTICS_H

#include "llvm/ADT/Twine.h"
#include "llvm/Support/SMLoc.h"
#include "llvm/Support/SourceMgr.h"

#include <deque>
#include <string>
#include <vector>

namespace easyml {

enum class Severity { Error, Warning, Note };

/// A secondary location that explains a diagnostic.
struct DiagNote {
  llvm::SMLoc loc;
  std::string message;
};

/// One reported problem.
struct Diagnostic {
  Severity severity;
  llvm::SMLoc loc;
  std::string message;
  std::vector<DiagNote> notes;

  /// Attaches a note at `noteLoc`.
  Diagnostic &note(llvm::SMLoc noteLoc, const llvm::Twine &msg) {
    notes.push_back({noteLoc, msg.str()});
    return *this;
  }
};

/// Collects the diagnostics of one front-end run.
class DiagnosticEngine {
public:
  explicit DiagnosticEngine(llvm::SourceMgr &sourceMgr) : sm(sourceMgr) {}

  Diagnostic &error(llvm::SMLoc loc, const llvm::Twine &msg) {
    ++errors;
    return report(Severity::Error, loc, msg);
  }
  Diagnostic &warning(llvm::SMLoc loc, const llvm::Twine &msg) {
    ++warnings;
    return report(Severity::Warning, loc, msg);
  }

  unsigned getNumErrors() const { return errors; }
  unsigned getNumWarnings() const { return warnings; }
  bool hasErrors() const { return errors != 0; }

  /// True once so many errors were reported that going on is pointless.
  bool tooManyErrors() const { return errors >= errorLimit; }
  void setErrorLimit(unsigned limit) { errorLimit = limit; }

  const std::deque<Diagnostic> &getDiagnostics() const { return diags; }
  llvm::SourceMgr &getSourceMgr() { return sm; }

  /// Prints every diagnostic as `file:line:col: kind: message`, the source
  /// line and a caret.
  void print(llvm::raw_ostream &os) const;

private:
  Diagnostic &report(Severity sev, llvm::SMLoc loc, const llvm::Twine &msg) {
    diags.push_back({sev, loc, msg.str(), {}});
    return diags.back();
  }

  llvm::SourceMgr &sm;
  std::deque<Diagnostic> diags;
  unsigned errors = 0, warnings = 0;
  unsigned errorLimit = 200;
};

} // namespace easyml

#endif // EASYML_FRONTEND_DIAGNOSTICS_H
