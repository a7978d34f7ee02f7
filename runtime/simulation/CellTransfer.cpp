//===- CellTransfer.cpp - cells handed between simulations ----------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/Simulation/CellTransfer.h"

#include "Scheduler.h"

#include "easyml/Runtime/Simulation/SimulationState.h"

#include <cstdio>

using namespace easyml::rt;

namespace {

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

/// The names of the per-cell parameter rows a packed cell carries (the
/// user's and the derived ones that follow them), in store order.
std::vector<std::string> packedParamNames(Scheduler &s) {
  std::vector<std::string> out;
  for (int64_t p = 0; p < s.store().numParams(); ++p)
    if (s.store().perCell(p))
      out.push_back(s.params().name(p));
  return out;
}

} // namespace

int64_t CellTransfer::packedCellSize() const { return s_.packedCellSize(); }

bool CellTransfer::pack(CellRange cells, double *out) {
  if (cells.begin < 0 || cells.end > s_.store().cells())
    return false;
  return s_.packCells(cells, out);
}

bool CellTransfer::unpack(CellRange cells, const double *in) {
  if (cells.begin < 0 || cells.end > s_.store().cells())
    return false;
  return s_.unpackCells(cells, in);
}

RunClock CellTransfer::clock() const {
  return {s_.step(), s_.beats().beat(), s_.beats().beatStart()};
}

void CellTransfer::setClock(const RunClock &clock) {
  s_.setClock(clock.step, clock.beat, clock.beatStart);
}

void CellTransfer::biomarkerHistory(std::vector<double> &lastApd90,
                                    std::vector<double> &lastChange) const {
  lastApd90 = s_.beats().lastApd90();
  lastChange = s_.beats().lastChange();
}

void CellTransfer::setBiomarkerHistory(const std::vector<double> &lastApd90,
                                       const std::vector<double> &lastChange) {
  s_.beats().lastApd90() = lastApd90;
  s_.beats().lastChange() = lastChange;
}

Status CellTransfer::checkpointState(PopulationState &st, bool values) {
  Scheduler &s = s_;
  const easyml_model_desc &d = s.params().desc();
  st = PopulationState();
  st.model = d.name;
  st.cells = s.store().cells();
  st.sv = stateRowNames(d);
  for (int64_t e = 0; e < d.num_externals; ++e)
    st.externals.push_back(d.external_sim_names[e]);
  st.params = packedParamNames(s);
  st.accumulators = s.beats().on() ? EASYML_BIO_NUM_ROWS + 2 : 0;
  RunClock c = clock();
  st.step = c.step;
  st.beat = c.beat;
  st.beatStart = c.beatStart;
  st.dt = s.dt();
  if (static_cast<int64_t>(st.width()) != s.packedCellSize())
    return Status::failed("internal error: a packed cell has " +
                          std::to_string(s.packedCellSize()) + " values, not " +
                          std::to_string(st.width()));
  st.rows = s.beats().table().values;
  if (!values)
    return Status();
  st.values.resize(st.cells * st.width());
  if (!s.packCells({0, st.cells}, st.values.data()))
    return Status::failed(s.failure());
  return Status();
}

Status CellTransfer::restoreState(const PopulationState &st, int64_t firstCell,
                                  int64_t totalCells) {
  Scheduler &s = s_;
  if (std::string why = stateMismatch(st, s.params(), totalCells); !why.empty())
    return Status::invalid(why);
  if (st.dt != s.dt())
    return Status::invalid("dt " + number(st.dt) + " ms, this run " +
                           number(s.dt()));
  std::vector<std::string> params = packedParamNames(s);
  if (st.params != params) {
    auto join = [](const std::vector<std::string> &v) {
      std::string out;
      for (auto &n : v)
        out += (out.empty() ? "" : ", ") + n;
      return out.empty() ? std::string("none") : out;
    };
    return Status::invalid("per-cell parameters " + join(st.params) +
                           ", this run " + join(params));
  }
  int64_t acc = s.beats().on() ? EASYML_BIO_NUM_ROWS + 2 : 0;
  if (st.accumulators != acc)
    return Status::invalid(std::string(st.accumulators ? "with" : "without") +
                           " biomarkers, this run " +
                           (acc ? "with" : "without"));
  if (firstCell < 0 || firstCell + s.store().cells() > st.cells)
    return Status::invalid("internal error: cells out of range");
  if (!s.unpackCells({0, s.store().cells()},
                     st.values.data() + firstCell * st.width()))
    return Status::failed(s.failure());
  setClock({st.step, st.beat, st.beatStart});
  return Status();
}
