//===- TissueBeats.h - a tissue's biomarker beats ---------------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// With biomarkers on, a tissue's beats: one starts at every onset of a
// stimulus (what came before the first is no beat), and the cells'
// biomarker rows of a beat become a map over the grid.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_TISSUE_TISSUEBEATS_H
#define EASYML_RUNTIME_TISSUE_TISSUEBEATS_H

#include "easyml/Runtime/Simulation/BiomarkerAccess.h"
#include "easyml/Runtime/Tissue/TissueGrid.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace easyml::rt {

class SimulationInterface;

class TissueBeats {
public:
  /// Where a run is in its beats (saved with a checkpoint): beats closed,
  /// the table's beat number of the first beat that began with a stimulus
  /// (-1: none yet) and the step the running beat began at.
  struct Position {
    int64_t beats = 0, firstBeat = -1, beatStep = 0;
  };

  TissueBeats(SimulationInterface &sim, const std::vector<int64_t> &cellPoint,
              const TissueGrid &grid)
      : sim_(sim), cellPoint_(cellPoint), grid_(grid) {}

  /// A stimulus of `stimuli` starts at `step`: the running beat ends.
  bool boundary(int64_t step, const std::vector<TissueStimulus> &stimuli,
                double dt, std::string &error);
  /// Closes the running beat, if a stimulus began one before `step`.
  bool finish(int64_t step, std::string &error);
  /// Biomarker `column` of beat `beat` at every grid point whose cell's
  /// row this rank holds (NaN elsewhere); `everyRank`: the rows of every
  /// rank (gathered once per beat).
  std::vector<double> map(int column, int64_t beat, bool everyRank);

  int64_t beats() const { return at_.beats; }
  const Position &position() const { return at_; }
  void setPosition(const Position &at) { at_ = at; }

private:
  SimulationInterface &sim_;
  const std::vector<int64_t> &cellPoint_;
  const TissueGrid &grid_;
  Position at_;
  /// Every rank's rows, as of beat allRowsBeats_.
  std::shared_ptr<const BiomarkerTable> allRows_;
  int64_t allRowsBeats_ = -1;
};

} // namespace easyml::rt

#endif // EASYML_RUNTIME_TISSUE_TISSUEBEATS_H
