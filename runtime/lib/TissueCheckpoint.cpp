//===- TissueCheckpoint.cpp - a tissue saved with its simulation ----------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// A tissue's checkpoint is its simulation's (Checkpoint.h): the cells carry
// Vm and the ionic states, and the run position carries the rest, the
// tissue's step and beats as client scalars and, as the file's extra
// values, every grid point's activation time followed by its Vm after the
// last diffusion step (from which the next activation is interpolated).
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/Checkpoint.h"
#include "easyml/Runtime/Simulation.h"
#include "easyml/Runtime/SimulationInterface.h"
#include "easyml/Runtime/Tissue.h"

#include <algorithm>
#include <cmath>

using namespace easyml::rt;

void Tissue::savePosition(RunPosition &position) {
  // With a mask the diffused Vm is the grid's until the next step hands
  // it to the cells: the checkpoint takes the cells'.
  scatterVm();
  syncPrev();
  position.client["tissue.step"] = static_cast<double>(step_);
  position.client["tissue.beats"] = static_cast<double>(beats_);
  position.client["tissue.first_beat"] = static_cast<double>(firstBeat_);
  position.client["tissue.beat_step"] = static_cast<double>(beatStep_);
  std::vector<double> lat = activationTimes();
  std::vector<double> prev =
      blocks_.empty() ? prev_
                      : gather(std::vector<double>(
                            prev_.begin() + block_.begin,
                            prev_.begin() + block_.end));
  position.data = std::move(lat);
  position.data.insert(position.data.end(), prev.begin(), prev.end());
}

bool Tissue::restorePosition(const RunPosition &position, std::string &error) {
  const int64_t n = grid_.points();
  const char *names[] = {"tissue.step", "tissue.beats", "tissue.first_beat",
                         "tissue.beat_step"};
  int64_t values[4];
  for (int i = 0; i < 4; ++i) {
    auto it = position.client.find(names[i]);
    if (it == position.client.end())
      return error = "not a checkpoint of a tissue (no '" +
                     std::string(names[i]) + "')",
             false;
    values[i] = static_cast<int64_t>(it->second);
  }
  if (static_cast<int64_t>(position.data.size()) != 2 * n)
    return error = "a checkpoint of a grid of " +
                   std::to_string(position.data.size() / 2) +
                   " points, this one has " + std::to_string(n),
           false;
  if (values[0] != sim_.step())
    return error = "a damaged checkpoint: the tissue is at step " +
                   std::to_string(values[0]) + ", its cells at step " +
                   std::to_string(sim_.step()),
           false;
  step_ = values[0];
  beats_ = values[1];
  firstBeat_ = values[2];
  beatStep_ = values[3];
  lat_.assign(position.data.begin(), position.data.begin() + n);
  prev_.assign(position.data.begin() + n, position.data.end());
  prevStale_ = false;
  activated_ = 0;
  for (int64_t p : cellPoint_)
    activated_ += !std::isnan(lat_[p]);
  // Vm of the grid from the cells, as initialize() takes it.
  gatherVm();
  if (!blocks_.empty())
    loadBlockVm();
  return true;
}
