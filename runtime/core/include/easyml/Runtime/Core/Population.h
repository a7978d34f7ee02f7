//===- Population.h - per-cell parameters and biomarker tables -*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// Populations of one model: per-cell parameter values read from a table
// (CSV with a header of parameter names, or a structured .npy) or sampled
// from a spec such as "GNa*lognormal(1,0.2),GKr*uniform(0.5,1.5)", and the
// tables of per-cell results (biomarkers) written as CSV or .npy.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_POPULATION_H
#define EASYML_RUNTIME_POPULATION_H

#include "easyml/ABI/ABI.h"
#include "easyml/Runtime/Support/Status.h"

#include <cstdint>
#include <string>
#include <vector>

namespace easyml::rt {

/// Named columns of one value per cell.
struct Columns {
  std::vector<std::string> names;
  std::vector<std::vector<double>> values; // values[column][cell]
};

/// Reads per-cell parameter values: a CSV file (first line: names, then
/// one row of numbers per cell) or a .npy file holding a structured array
/// of float64 fields. Every error names the file, and the row and column
/// where there is one ("cells.csv:3:2: 'abc' is not a number"). Names are
/// not checked against a model here (see checkParamNames). Invalid for a
/// missing or bad file.
Expected<Columns> readParamTable(const std::string &path, int64_t cells);

/// Samples `cells` values per item of `spec`: comma-separated items
/// NAME*DIST (the parameter's value in `params` times a sample) or
/// NAME=DIST (a sample), DIST one of uniform(lo,hi), normal(mean,sd),
/// lognormal(median,sigma) (exp of a normal of mean ln(median) and
/// standard deviation sigma). The same spec and seed give the same values
/// on every machine (64-bit Mersenne Twister, Box-Muller).
///
/// With `grouped` (the default), the drawn samples are handed to the cells
/// in Z-order (Morton order) of their ranks in every sampled parameter, so
/// neighbouring cells, which share a SIMD vector or a GPU warp, have
/// similar parameters and take similar numbers of adaptive sub-steps. The
/// population is the same set of samples either way; without `grouped`,
/// cell c gets the c-th draw. Invalid for a bad specification.
Expected<Columns> samplePopulation(const std::string &spec, uint64_t seed,
                                   const easyml_model_desc &desc,
                                   const std::vector<double> &params,
                                   int64_t cells, bool grouped = true);

/// Reorders the rows of `table` (every column alike) in Z-order of their
/// per-column ranks: the permutation samplePopulation applies when
/// grouping.
void groupSimilarRows(Columns &table);

/// Every name in `table` is a parameter or flag of `desc`; `what` names
/// the table's source in the error ("cells.csv"); Invalid otherwise.
Status checkParamNames(const Columns &table, const easyml_model_desc &desc,
                       const std::string &what);

/// Writes rows of `names.size()` values as CSV (".csv", or any other
/// extension) or as a structured .npy of float64 fields (".npy"); Failed
/// when it cannot be written (nothing is left half-written).
Status writeTable(const std::string &path,
                  const std::vector<std::string> &names,
                  const std::vector<double> &rows);

/// The bytes of a .npy version 1.0 header: magic, length and the
/// dictionary {'descr': descr, 'fortran_order': False, 'shape': shape},
/// padded so the data starts on a multiple of 64 bytes.
std::string npyHeader(const std::string &descr, const std::string &shape);
/// writeTable's .npy header for `rows` rows of float64 fields `names`.
std::string tableNpyHeader(const std::vector<std::string> &names,
                           int64_t rows);
/// writeTable's CSV header line and rows (n rows of k values; "nan" for
/// NaN, else %.10g), newline-terminated.
std::string csvHeader(const std::vector<std::string> &names);
std::string csvRows(const double *rows, size_t n, size_t k);
/// The `q`-quantile (0..1, linear interpolation as numpy's default) of the
/// finite values of `v`; NaN when there are none.
double quantile(std::vector<double> v, double q);

} // namespace easyml::rt

#endif // EASYML_RUNTIME_POPULATION_H
