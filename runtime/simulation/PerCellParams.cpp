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
Status setColumns(SimulationInterface &sim, const Columns &table,
                  const std::function<std::string(size_t)> &where) {
  for (size_t c = 0; c < table.names.size(); ++c)
    if (Status s =
            sim.parameters().setPerCell(table.names[c], table.values[c].data());
        !s.ok())
      return s.withContext(where(c));
  return Status();
}

} // namespace

Status SimulationInterface::samplePerCellParams(const std::string &spec,
                                                uint64_t seed, bool grouped,
                                                Columns &taken) {
  Expected<Columns> drawn = samplePopulation(
      spec, seed, desc(), parameters().values(), numCells(), grouped);
  if (!drawn.ok())
    return drawn.status();
  taken = drawn.take();
  return setColumns(*this, taken, [](size_t) { return "--population: "; });
}

Status SimulationInterface::readPerCellParams(const std::string &path,
                                              Columns &taken) {
  Expected<Columns> read = readParamTable(path, numCells());
  if (!read.ok())
    return read.status();
  taken = read.take();
  if (Status names = checkParamNames(taken, desc(), path); !names.ok())
    return names;
  return setColumns(*this, taken, [&](size_t c) {
    return path + ": column " + std::to_string(c + 1) + ": ";
  });
}
