//===- CellPacking.cpp - cells handed between simulations -----------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "Scheduler.h"

#include <algorithm>

using namespace easyml::rt;

//===----------------------------------------------------------------------===//
// Moving cells between simulations
//===----------------------------------------------------------------------===//

int64_t Scheduler::packedCellSize() const {
  const CellStore &st = *store_;
  int64_t n = st.svRows() + desc_.num_externals + st.numPerCell();
  if (bio.on)
    n += EASYML_BIO_NUM_ROWS + 2;
  return n;
}

bool Scheduler::packCells(CellRange cells, double *out) {
  if (!syncStates())
    return false;
  CellStore &st = *store_;
  std::string err;
  // Biomarker accumulators are newest on the devices after any wave.
  if (bio.on)
    for (auto &device : set_.devices) {
      CellRange r = device->range().intersect(cells);
      if (!device->sharesHostStore() && !r.empty() &&
          !device->download(r, kBioRows, err))
        return fail(*device, err);
    }
  int64_t k = packedCellSize();
  for (int64_t c = cells.begin; c < cells.end; ++c) {
    double *o = out + (c - cells.begin) * k;
    for (int64_t v = 0; v < st.svRows(); ++v)
      *o++ = st.sv(v)[c];
    for (int64_t e = 0; e < desc_.num_externals; ++e)
      *o++ = st.ext(e)[c];
    for (int64_t p = 0; p < st.numParams(); ++p)
      if (st.perCell(p))
        *o++ = st.paramRow(p)[c];
    if (bio.on) {
      for (int64_t b = 0; b < EASYML_BIO_NUM_ROWS; ++b)
        *o++ = st.bio(b)[c];
      *o++ = bio.lastApd90[c];
      *o++ = bio.lastChange[c];
    }
  }
  return true;
}

bool Scheduler::unpackCells(CellRange cells, const double *in) {
  if (!syncStates())
    return false;
  CellStore &st = *store_;
  int64_t k = packedCellSize();
  for (int64_t c = cells.begin; c < cells.end; ++c) {
    const double *i = in + (c - cells.begin) * k;
    for (int64_t v = 0; v < st.svRows(); ++v)
      st.sv(v)[c] = *i++;
    for (int64_t e = 0; e < desc_.num_externals; ++e)
      st.ext(e)[c] = *i++;
    for (int64_t p = 0; p < st.numParams(); ++p)
      if (st.perCell(p))
        st.paramRow(p)[c] = *i++;
    if (bio.on) {
      for (int64_t b = 0; b < EASYML_BIO_NUM_ROWS; ++b)
        st.bio(b)[c] = *i++;
      bio.lastApd90[c] = *i++;
      bio.lastChange[c] = *i++;
    }
  }
  statesWritten();
  paramValuesWritten();
  std::string err;
  if (bio.on)
    for (auto &device : set_.devices) {
      CellRange r = device->range().intersect(cells);
      if (!device->sharesHostStore() && !r.empty() &&
          !device->upload(r, kBioRows, err))
        return fail(*device, err);
    }
  return true;
}

void Scheduler::setClock(int64_t step, int64_t beat, int64_t beatStart) {
  step_ = step;
  bio.beat = beat;
  bio.beatStart = beatStart;
}
