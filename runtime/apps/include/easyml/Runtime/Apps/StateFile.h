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

#include "easyml/ABI/ABI.h"
#include "easyml/Runtime/Support/Status.h"

#include <string>

namespace easyml {
namespace rt {

class CellValues;

/// Writes cell 0's state; a Failed error if the file cannot be written.
Status writeStateFile(const std::string &path, const easyml_model_desc &desc,
                      CellValues &cells);

/// Sets every cell to the file's state; an Invalid error (with the file
/// and line) if it is missing, damaged or for another model. Nothing is
/// changed unless the whole file reads.
Status readStateFile(const std::string &path, const easyml_model_desc &desc,
                     CellValues &cells);

} // namespace rt
} // namespace easyml

#endif // EASYML_RUNTIME_STATEFILE_H
