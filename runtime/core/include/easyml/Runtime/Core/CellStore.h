//===- CellStore.h - every per-cell value of a simulation ------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// `CellStore`: the canonical host copy of every per-cell value of a
// simulation (SoA rows of `stride` cells, 64-byte aligned): states,
// externals, traced values and per-cell parameters; with the cell ranges
// devices own and what a first non-finite value was.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_CORE_CELLSTORE_H
#define EASYML_RUNTIME_CORE_CELLSTORE_H

#include "easyml/ABI/ABI.h"

#include <cstdint>
#include <new>
#include <string>
#include <vector>

namespace easyml::rt {

/// An allocator of storage aligned to 64 bytes (a cache line, an AVX-512
/// vector).
template <typename T> struct AlignedAllocator {
  using value_type = T;
  AlignedAllocator() = default;
  template <typename U> AlignedAllocator(const AlignedAllocator<U> &) {}
  T *allocate(size_t n) {
    size_t bytes = (n * sizeof(T) + 63) / 64 * 64;
    return static_cast<T *>(::operator new(bytes, std::align_val_t(64)));
  }
  void deallocate(T *p, size_t) { ::operator delete(p, std::align_val_t(64)); }
  bool operator==(const AlignedAllocator &) const { return true; }
  bool operator!=(const AlignedAllocator &) const { return false; }
};
using AlignedVector = std::vector<double, AlignedAllocator<double>>;

/// Cells [begin, end).
struct CellRange {
  int64_t begin = 0, end = 0;
  int64_t size() const { return end > begin ? end - begin : 0; }
  bool empty() const { return end <= begin; }
  bool contains(int64_t cell) const { return cell >= begin && cell < end; }
  bool contains(CellRange r) const {
    return r.empty() || (r.begin >= begin && r.end <= end);
  }
  CellRange intersect(CellRange r) const {
    CellRange x{begin > r.begin ? begin : r.begin, end < r.end ? end : r.end};
    return x.empty() ? CellRange{} : x;
  }
  bool operator==(const CellRange &r) const {
    return (empty() && r.empty()) || (begin == r.begin && end == r.end);
  }
  bool operator!=(const CellRange &r) const { return !(*this == r); }
};

/// Every device range starts on a multiple of this many cells, and host
/// rows are padded to it: a multiple of every CPU vector width (up to 64
/// doubles), of a warp (32) and of a wavefront (64).
constexpr int64_t kCellAlignment = 64;

/// Where a simulation first produced a non-finite value.
struct NonFinite {
  int64_t cell = -1;
  std::string variable;
  int64_t step = -1;
  double time = 0;
  double value = 0;
  /// What the kernels warned of that may explain it: an adaptive
  /// integrator's sub-steps accepted above its tolerance ("" if none).
  std::string cause;
  /// "cell 0, variable x = inf at step 113 (t = 1.1300 ms)", then "; " and
  /// the cause where there is one.
  std::string message() const;
};

/// Per-cell arrays a transfer moves.
enum RowSet : unsigned {
  kStateRows = 1,    // sv rows: states, nodal parameters, hidden states
  kExternalRows = 2, // externals (Vm, Iion, ...)
  kParamRows = 4,    // per-cell parameter rows
  kTraceRows = 8,    // traced values written by eval
  kBioRows = 16,     // biomarker accumulators (when enabled)
  kAllRows = 31
};

/// The canonical host copy of a simulation's per-cell values.
class CellStore {
public:
  CellStore(const easyml_model_desc &desc, int64_t cells);

  const easyml_model_desc &desc() const { return *desc_; }
  int64_t cells() const { return cells_; }
  /// Cells per row: cells() rounded up to kCellAlignment.
  int64_t stride() const { return stride_; }
  int64_t svRows() const { return svRows_; }

  /// Row `row` of the per-cell record (states, nodal, hidden); all rows
  /// are one block, row r at svBase() + r*stride().
  double *sv(int64_t row) { return sv_.data() + row * stride_; }
  const double *sv(int64_t row) const { return sv_.data() + row * stride_; }
  double *svBase() { return sv_.data(); }
  size_t svBytes() const { return sv_.size() * sizeof(double); }
  double *ext(int64_t e) { return ext_[e].data(); }
  const double *ext(int64_t e) const { return ext_[e].data(); }
  /// The external rows, descriptor order (kernel args `ext`).
  double **extTable() { return extPtrs_.data(); }
  double *trace(int64_t k) { return out_.data() + k * stride_; }
  const double *trace(int64_t k) const { return out_.data() + k * stride_; }
  double *traceBase() { return out_.data(); }

  /// Parameters and flags (params order).
  int64_t numParams() const { return static_cast<int64_t>(paramRows_.size()); }
  bool perCell(int64_t p) const { return !paramRows_[p].empty(); }
  int64_t numPerCell() const;
  /// The row of per-cell parameter `p`, or null when it is shared.
  double *paramRow(int64_t p) {
    return paramRows_[p].empty() ? nullptr : paramRows_[p].data();
  }
  /// Makes parameter `p` per-cell (every cell starting at `fill`) and
  /// returns its row.
  double *makePerCell(int64_t p, double fill);
  void makeShared(int64_t p);
  /// The host pointers of every parameter's row (null where shared), or
  /// null when none is per-cell (kernel args `param_rows`).
  const double *const *paramRowTable() const;
  /// Changes whenever a parameter becomes per-cell or shared.
  uint64_t paramLayoutVersion() const { return paramVersion_; }

  /// Bytes per cell of the rows in `rows`.
  int64_t bytesPerCell(unsigned rows) const;

  /// Biomarker accumulators (EASYML_BIO_NUM_ROWS rows of stride() cells),
  /// once enabled; `bioCa` is the sv row of intracellular calcium or -1.
  void enableBio(int64_t caRow);
  bool bioOn() const { return !bio_.empty(); }
  int64_t bioCa() const { return bioCa_; }
  double *bio(int64_t row) { return bio_.data() + row * stride_; }
  double *bioBase() { return bio_.empty() ? nullptr : bio_.data(); }
  /// Every accumulator back to NaN (the start of a beat).
  void resetBio();

private:
  const easyml_model_desc *desc_;
  int64_t cells_, stride_, svRows_;
  AlignedVector sv_, out_;
  std::vector<AlignedVector> ext_;
  std::vector<double *> extPtrs_;
  std::vector<AlignedVector> paramRows_;
  std::vector<const double *> paramPtrs_;
  uint64_t paramVersion_ = 0;
  AlignedVector bio_;
  int64_t bioCa_ = -1;
};

/// Name of recordable value `v` of `desc` (sv rows, externals, traces).
std::string recordableName(const easyml_model_desc &desc, int64_t v);

} // namespace easyml::rt

#endif // EASYML_RUNTIME_CORE_CELLSTORE_H
