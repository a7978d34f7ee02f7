//===- TissueFiles.h - grid fields as .npy and VTK image data ---*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// Fields on a TissueGrid (Vm, activation times, masks, per-point
// parameters) in and out of files: NumPy arrays of shape (nz, ny, nx)
// (x fastest, as the grid numbers its points; a flat array of the same
// length is accepted when reading) and VTK XML image data (.vti, raw
// appended float64), which ParaView opens.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_TISSUEFILES_H
#define EASYML_RUNTIME_TISSUEFILES_H

#include "easyml/Runtime/Tissue/TissueGrid.h"

#include <string>
#include <vector>

namespace easyml {
namespace rt {

/// The shape of a field on `grid` in files and arrays: (nz, ny, nx), or
/// (ny, nx) for a 2D grid and (nx) for a 1D one.
std::vector<int64_t> gridShape(const TissueGrid &grid);

/// Reads a numeric .npy (float64/32, signed/unsigned integers, bool) with
/// grid.points() values, shaped as gridShape(), as (nz, ny, nx), or flat; false with `error` naming the file and the mismatch.
bool readGridNpy(const std::string &path, const TissueGrid &grid,
                 std::vector<double> &values, std::string &error);

/// Writes `values` (grid.points() of them) as float64 of shape (nz, ny, nx).
bool writeGridNpy(const std::string &path, const TissueGrid &grid,
                  const std::vector<double> &values, std::string &error);

/// Writes `values` as the point field `name` of VTK image data, with the
/// grid's spacing (mm).
bool writeGridVti(const std::string &path, const TissueGrid &grid,
                  const std::string &name, const std::vector<double> &values,
                  std::string &error);

} // namespace rt
} // namespace easyml

#endif // EASYML_RUNTIME_TISSUEFILES_H
