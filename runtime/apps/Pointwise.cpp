//===- Pointwise.cpp - a model against a reference trace, row by row ------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// Every row of a reference trace (time_ms, Vm, every state, Iion) becomes
// one cell: the model's Iion from the row's states is compared with the
// reference's, without integration error; optionally one step from every
// row is written out (the states each variant computes from the same
// inputs).
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/Apps/Pointwise.h"
#include "easyml/Runtime/IO/OutputFile.h"
#include "easyml/Runtime/Simulation/Simulation.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

using namespace easyml::rt;

bool easyml::rt::pointwiseCheck(const ModelHandle &model,
                                const PointwiseOptions &o, std::string &json,
                                std::string &error) {
  const std::string &csv = o.reference;
  std::ifstream in(csv);
  if (!in) {
    error = "cannot open reference '" + csv + "': " + std::strerror(errno);
    return false;
  }
  std::string header;
  std::getline(in, header);
  std::vector<std::string> cols;
  {
    std::stringstream ss(header);
    for (std::string c; std::getline(ss, c, ',');) {
      c.erase(c.find_last_not_of(" \r") + 1);
      cols.push_back(c);
    }
  }
  std::vector<std::vector<double>> rows;
  for (std::string l; std::getline(in, l);) {
    if (l.empty())
      continue;
    std::vector<double> r;
    std::stringstream ss(l);
    for (std::string c; std::getline(ss, c, ',');)
      r.push_back(std::strtod(c.c_str(), nullptr));
    if (r.size() != cols.size()) {
      error = csv + ": row " + std::to_string(rows.size() + 2) + " has " +
              std::to_string(r.size()) + " columns, header has " +
              std::to_string(cols.size());
      return false;
    }
    rows.push_back(r);
  }
  const easyml_model_desc &d = model.desc();
  auto col = [&](const std::string &n) {
    for (size_t i = 0; i < cols.size(); ++i)
      if (cols[i] == n)
        return static_cast<int>(i);
    return -1;
  };
  int tCol = col("time_ms"), vCol = col("Vm"), iCol = col("Iion");
  if (tCol < 0 || vCol < 0 || iCol < 0) {
    error = csv + ": expected columns time_ms, Vm and Iion";
    return false;
  }
  Simulation sim(model, rows.size(), o.variant);
  Status ready = sim.valid();
  if (ready.ok())
    ready = sim.parameters().modify(o.impPar);
  if (!ready.ok())
    return error = ready.message(), false;
  sim.initialize(o.dt);
  std::vector<int> stateCol(d.num_states);
  // A whole-cell model's last state is Vm, which its kernels read from the
  // Vm external.
  bool wholeCell = d.features & EASYML_FEATURE_WHOLE_CELL;
  for (int64_t s = 0; s < d.num_states; ++s) {
    stateCol[s] = wholeCell && s + 1 == d.num_states ? vCol
                                                     : col(d.state_names[s]);
    if (stateCol[s] < 0) {
      error = csv + ": no column for state '" + d.state_names[s] + "'";
      return false;
    }
  }
  double *vm = sim.values().vm();
  if (!vm || !sim.values().iion()) {
    error = "model " + std::string(d.name) + " has no Vm or Iion external";
    return false;
  }
  std::vector<double> row(rows.size());
  for (int64_t s = 0; s < d.num_states; ++s) {
    for (size_t r = 0; r < rows.size(); ++r)
      row[r] = rows[r][stateCol[s]];
    sim.values().setStateRow(s, row.data());
  }
  for (size_t r = 0; r < rows.size(); ++r)
    vm[r] = rows[r][vCol];
  sim.values().evaluate(0);
  double maxErr = 0, maxRef = 0;
  size_t worst = 0;
  for (size_t r = 0; r < rows.size(); ++r) {
    double err = std::fabs(sim.values().iion()[r] - rows[r][iCol]);
    if (!(err <= maxErr)) {
      maxErr = err;
      worst = r;
    }
    maxRef = std::max(maxRef, std::fabs(rows[r][iCol]));
  }
  if (!o.writePath.empty()) {
    // The same table with Iion evaluated by the model at every row.
    OutputFile out(o.writePath);
    FILE *f = out.get();
    if (!f) {
      error = out.error();
      return false;
    }
    std::fprintf(f, "%s\n", header.c_str());
    for (size_t r = 0; r < rows.size(); ++r)
      for (size_t c = 0; c < cols.size(); ++c)
        std::fprintf(f, "%.12g%s",
                     (int)c == iCol ? sim.values().iion()[r] : rows[r][c],
                     c + 1 < cols.size() ? "," : "\n");
    if (!out.commit()) {
      error = out.error();
      return false;
    }
  }
  if (!o.stepPath.empty()) {
    // One step from every row (the model's own step; Vm is not integrated):
    // the states each variant computes from the same inputs.
    sim.advance(0, 1, 0.0, /*integrateVm=*/false);
    OutputFile out(o.stepPath);
    FILE *f = out.get();
    if (!f) {
      error = out.error();
      return false;
    }
    std::fprintf(f, "row");
    for (int64_t s = 0; s < d.num_states; ++s)
      std::fprintf(f, ",%s", d.state_names[s]);
    std::fprintf(f, "\n");
    for (size_t r = 0; r < rows.size(); ++r) {
      std::fprintf(f, "%zu", r);
      for (int64_t s = 0; s < d.num_states; ++s)
        std::fprintf(f, ",%.17g", sim.values().getState(r, s));
      std::fprintf(f, "\n");
    }
    if (!out.commit()) {
      error = out.error();
      return false;
    }
  }
  double rel = maxRef > 0 ? maxErr / maxRef : maxErr;
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "{\"model\": \"%s\", \"rows\": %zu, \"max_abs_error\": "
                "%.6e, \"max_abs_iion_ref\": %.6e, \"relative_error\": "
                "%.6e, \"worst_time_ms\": %.3f}",
                d.name, rows.size(), maxErr, maxRef, rel,
                rows.empty() ? 0.0 : rows[worst][tCol]);
  json = buf;
  if (!std::isfinite(rel)) {
    error = "the model's Iion is not finite at some row of '" + csv + "'";
    return false;
  }
  return true;
}
