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

#include "easyml/Runtime/IO/Checkpoint.h"
#include "easyml/Runtime/Simulation/Simulation.h"
#include "easyml/Runtime/Simulation/SimulationInterface.h"
#include "easyml/Runtime/Tissue/Tissue.h"

#include "RankBlock.h"
#include "TissueBeats.h"

#include <algorithm>
#include <cmath>

using namespace easyml::rt;

void Tissue::savePosition(RunPosition &position) {
  // With a mask the diffused Vm is the grid's until the next step hands
  // it to the cells: the checkpoint takes the cells'.
  scatterVm();
  syncHostVm();
  syncPrev();
  position.client["tissue.step"] = static_cast<double>(step_);
  const TissueBeats::Position &at = beats_->position();
  position.client["tissue.beats"] = static_cast<double>(at.beats);
  position.client["tissue.first_beat"] = static_cast<double>(at.firstBeat);
  position.client["tissue.beat_step"] = static_cast<double>(at.beatStep);
  std::vector<double> lat = activationTimes();
  std::vector<double> prev =
      ranked_ ? ranks_->gatherCells(prev_, sim_.numCells()) : prev_;
  std::array<int, 3> order = cellOrder();
  for (int a = 0; a < 3; ++a)
    position.client[std::string("tissue.cell_order_") + "xyz"[a]] = order[a];
  position.data = std::move(lat);
  position.data.insert(position.data.end(), prev.begin(), prev.end());
}

Status Tissue::restorePosition(const RunPosition &position) {
  const int64_t n = grid_.points();
  const char *names[] = {"tissue.step", "tissue.beats", "tissue.first_beat",
                         "tissue.beat_step"};
  int64_t values[4];
  for (int i = 0; i < 4; ++i) {
    auto it = position.client.find(names[i]);
    if (it == position.client.end())
      return Status::invalid("not a checkpoint of a tissue (no '" +
                             std::string(names[i]) + "')");
    values[i] = static_cast<int64_t>(it->second);
  }
  if (static_cast<int64_t>(position.data.size()) != 2 * n)
    return Status::invalid("a checkpoint of a grid of " +
                           std::to_string(position.data.size() / 2) +
                           " points, this one has " + std::to_string(n));
  std::array<int, 3> saved{{1, 1, 1}}, order = cellOrder();
  for (int a = 0; a < 3; ++a) {
    auto it = position.client.find(std::string("tissue.cell_order_") + "xyz"[a]);
    if (it != position.client.end())
      saved[a] = static_cast<int>(it->second);
  }
  if (saved != order) {
    ProcessGrid was, now;
    was.p = saved;
    now.p = order;
    auto say = [](const ProcessGrid &g) {
      return g.ranks() == 1 ? std::string("in point order")
                            : "box by box of process_grid " + g.str();
    };
    return Status::invalid(
        "the checkpoint's cells are " + say(was) + ", this run's " + say(now) +
        ": continue it with the process grid it was saved with");
  }
  if (values[0] != sim_.step())
    return Status::invalid("a damaged checkpoint: the tissue is at step " +
                           std::to_string(values[0]) + ", its cells at step " +
                           std::to_string(sim_.step()));
  step_ = values[0];
  beats_->setPosition({values[1], values[2], values[3]});
  lat_.assign(position.data.begin(), position.data.begin() + n);
  prev_.assign(position.data.begin() + n, position.data.end());
  activated_ = 0;
  for (int64_t p : cellPoint_)
    activated_ += !std::isnan(lat_[p]);
  if (ranked_) {
    // Across ranks, per cell of this rank.
    lat_ = ranks_->ownValues(lat_);
    prev_ = ranks_->ownValues(prev_);
  }
  prevStale_ = false;
  // The devices keep none of the arrays written here.
  if (deviceActivation_)
    sim_.coupling()->dropActivation();
  hostVmStale_ = false;
  // Vm of the grid from the cells, as initialize() takes it.
  gatherVm();
  if (ranked_)
    ranks_->loadVm(sim_.coupling()->vm());
  return Status();
}
