//===- CellStore.cpp - the host copy of a simulation's cells --------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/Core/CellStore.h"

#include <algorithm>
#include <cstdio>
#include <limits>

using namespace easyml::rt;

CellStore::CellStore(const easyml_model_desc &desc, int64_t cells)
    : desc_(&desc), cells_(cells),
      stride_((cells + kCellAlignment - 1) / kCellAlignment * kCellAlignment),
      svRows_(desc.sv_rows) {
  sv_.assign(static_cast<size_t>(stride_) * svRows_, 0.0);
  out_.assign(static_cast<size_t>(stride_) * desc.num_traces, 0.0);
  ext_.assign(desc.num_externals, AlignedVector(stride_, 0.0));
  for (auto &e : ext_)
    extPtrs_.push_back(e.data());
  paramRows_.resize(desc.num_params + desc.num_flags);
  paramPtrs_.assign(paramRows_.size(), nullptr);
}

int64_t CellStore::numPerCell() const {
  int64_t n = 0;
  for (auto &r : paramRows_)
    n += !r.empty();
  return n;
}

double *CellStore::makePerCell(int64_t p, double fill) {
  if (paramRows_[p].empty()) {
    paramRows_[p].assign(stride_, fill);
    paramPtrs_[p] = paramRows_[p].data();
    ++paramVersion_;
  }
  return paramRows_[p].data();
}

void CellStore::makeShared(int64_t p) {
  if (paramRows_[p].empty())
    return;
  AlignedVector().swap(paramRows_[p]);
  paramPtrs_[p] = nullptr;
  ++paramVersion_;
}

const double *const *CellStore::paramRowTable() const {
  return numPerCell() ? paramPtrs_.data() : nullptr;
}

int64_t CellStore::bytesPerCell(unsigned rows) const {
  int64_t n = 0;
  if (rows & kStateRows)
    n += svRows_;
  if (rows & kExternalRows)
    n += static_cast<int64_t>(ext_.size());
  if (rows & kParamRows)
    n += numPerCell();
  if (rows & kTraceRows)
    n += desc_->num_traces;
  if (rows & kBioRows && bioOn())
    n += EASYML_BIO_NUM_ROWS;
  return n * static_cast<int64_t>(sizeof(double));
}

void CellStore::enableBio(int64_t caRow) {
  bioCa_ = caRow;
  if (bio_.empty())
    bio_.assign(static_cast<size_t>(stride_) * EASYML_BIO_NUM_ROWS, 0.0);
  resetBio();
}

void CellStore::resetBio() {
  std::fill(bio_.begin(), bio_.end(), std::numeric_limits<double>::quiet_NaN());
}

std::string NonFinite::message() const {
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "cell %lld, variable %s = %g at step %lld (t = %.4f ms)",
                static_cast<long long>(cell), variable.c_str(), value,
                static_cast<long long>(step), time);
  return cause.empty() ? std::string(buf) : std::string(buf) + "; " + cause;
}

std::string easyml::rt::recordableName(const easyml_model_desc &d, int64_t v) {
  if (v < d.num_states)
    return d.state_names[v];
  if (v < d.sv_size)
    return d.param_names[d.nodal_param_index[v - d.num_states]];
  if (v < d.sv_rows)
    return d.hidden_names[v - d.sv_size];
  v -= d.sv_rows;
  if (v < d.num_externals)
    return d.external_names[v];
  v -= d.num_externals;
  if (v < d.num_traces)
    return d.trace_names[v];
  return "?";
}
