//===- StepObserver.h - what follows the time loop step by step -*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_LIB_STEPOBSERVER_H
#define EASYML_RUNTIME_LIB_STEPOBSERVER_H

#include <cstdint>
#include <string>

namespace easyml::rt {

/// A study that follows a run wave by wave (biomarker beats, a tissue's
/// coupling to its neighbours, a caller's check): the time loop calls it
/// without knowing what it is. An observer that returns false stops the
/// run with `error` (or the failure it recorded itself).
class StepObserver {
public:
  virtual ~StepObserver() = default;
  /// Before the events and the wave that start at `step`.
  virtual bool beforeStep(int64_t step, std::string &error) {
    (void)step, (void)error;
    return true;
  }
  /// After the wave that ended at `step`.
  virtual bool afterStep(int64_t step, std::string &error) {
    (void)step, (void)error;
    return true;
  }
};

} // namespace easyml::rt

#endif // EASYML_RUNTIME_LIB_STEPOBSERVER_H
