//===- ModelInfo.h - a model and the machine, for people -------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_MODELINFO_H
#define EASYML_RUNTIME_MODELINFO_H

#include "easyml/Runtime/Core/Params.h"

#include <cstdio>

namespace easyml::rt {

/// What each GPU driver reports; with a model, the code object of its GPU
/// variants each device would load. Finding no GPU is an answer, not an
/// error.
void describeDevices(FILE *out, const easyml_model_desc *desc);

/// A compiled model (easyml-bench --imp-info): free parameters with their
/// values, derived ones with their definition and what they read, flags,
/// states with methods and bounds, externals, tables, variants with their
/// GPU code objects.
void describeModel(FILE *out, const ParamSet &params);

} // namespace easyml::rt

#endif // EASYML_RUNTIME_MODELINFO_H
