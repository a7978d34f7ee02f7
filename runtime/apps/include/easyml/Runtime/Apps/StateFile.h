//===- StateFile.h - openCARP's single-cell state files ---------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// The .sv files of openCARP's bench (--save-ini-file, --read-ini-file): the
// simulator's externals (Vm, Lambda, ..., one per line, '-' where the model
// has none), the model's name, then one line per state and nodal parameter,
// each "value # name". Written from cell 0; read into every cell.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_STATEFILE_H
#define EASYML_RUNTIME_STATEFILE_H

#include <string>

namespace easyml {
namespace rt {

class Simulation;

/// Writes cell 0's state; false (error set) if the file cannot be written.
bool writeStateFile(const std::string &path, Simulation &sim,
                    std::string &error);

/// Sets every cell to the file's state; false (error with the file and
/// line) if it is missing, damaged or for another model. Nothing is changed
/// unless the whole file reads.
bool readStateFile(const std::string &path, Simulation &sim,
                   std::string &error);

} // namespace rt
} // namespace easyml

#endif // EASYML_RUNTIME_STATEFILE_H
