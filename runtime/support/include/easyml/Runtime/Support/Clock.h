//===- Clock.h - wall-clock seconds for measurements ------------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_SUPPORT_CLOCK_H
#define EASYML_RUNTIME_SUPPORT_CLOCK_H

#include <chrono>

namespace easyml::rt {

/// Seconds on a monotonic clock: differences of two readings time a part
/// of a run.
inline double monotonicSeconds() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

} // namespace easyml::rt

#endif // EASYML_RUNTIME_SUPPORT_CLOCK_H
