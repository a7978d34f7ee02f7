//===- PerCellParams.cpp - populations set on a simulation ----------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/Core/Population.h"
#include "easyml/Runtime/Simulation/SimulationInterface.h"

using namespace easyml::rt;

namespace {

/// Sets every column of `table`; `where(c)` prefixes the error of column c.
bool setColumns(SimulationInterface &sim, const Columns &table,
                const std::function<std::string(size_t)> &where,
                std::string &error) {
  for (size_t c = 0; c < table.names.size(); ++c)
    if (!sim.parameters().setPerCell(table.names[c], table.values[c].data(),
                                     error)) {
      error = where(c) + error;
      return false;
    }
  return true;
}

} // namespace

bool SimulationInterface::samplePerCellParams(const std::string &spec,
                                              uint64_t seed, bool grouped,
                                              Columns &taken,
                                              std::string &error) {
  return samplePopulation(spec, seed, desc(), parameters().values(), numCells(),
                          taken, error, grouped) &&
         setColumns(
             *this, taken, [](size_t) { return "--population: "; }, error);
}

bool SimulationInterface::readPerCellParams(const std::string &path,
                                            Columns &taken,
                                            std::string &error) {
  return readParamTable(path, numCells(), taken, error) &&
         checkParamNames(taken, desc(), path, error) &&
         setColumns(
             *this, taken,
             [&](size_t c) {
               return path + ": column " + std::to_string(c + 1) + ": ";
             },
             error);
}
