//===- ExitStatus.h - one exit status convention for the tools -*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// Every runtime tool (easyml-bench, easyml-tissue, easyml-drug) exits with
// the status its error's kind gives (Support/Status.h), and says so in its
// --help (docs/tools.md):
//
//   0  success
//   1  the run failed (a file that cannot be written, a device lost beyond
//      recovery, a rank that stopped)
//   2  what was given is wrong (an option, a configuration, a model, a
//      file's contents)
//   3  the simulation produced a non-finite value
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_APPS_EXITSTATUS_H
#define EASYML_RUNTIME_APPS_EXITSTATUS_H

#include "easyml/Runtime/Support/Status.h"

namespace easyml::rt {

enum ExitStatus : int {
  kExitSuccess = 0,
  kExitFailed = 1,
  kExitInvalid = 2,
  kExitNonFinite = 3,
};

inline int exitStatus(const Status &status) {
  if (status.ok())
    return kExitSuccess;
  switch (status.kind()) {
  case ErrorKind::Invalid:
    return kExitInvalid;
  case ErrorKind::Failed:
    return kExitFailed;
  case ErrorKind::NonFinite:
    return kExitNonFinite;
  }
  return kExitFailed;
}

/// The lines --help ends with.
inline const char *exitStatusHelp() {
  return "Exit status: 0 success; 1 the run failed (a file that cannot be "
         "written,\na device lost beyond recovery, a rank that stopped); 2 "
         "what was given is\nwrong (an option, a configuration, a model, a "
         "file's contents); 3 the\nsimulation produced a non-finite value.\n";
}

} // namespace easyml::rt

#endif // EASYML_RUNTIME_APPS_EXITSTATUS_H
