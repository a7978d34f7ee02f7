//===- TissueBeats.cpp - a tissue's biomarker beats -----------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "TissueBeats.h"

#include "easyml/Runtime/Simulation/SimulationInterface.h"

#include <cmath>

using namespace easyml::rt;

bool TissueBeats::boundary(int64_t step,
                           const std::vector<TissueStimulus> &stimuli,
                           double dt, std::string &error) {
  bool onset = false;
  for (const TissueStimulus &s : stimuli)
    onset = onset || (s.onAtStep(step, dt) &&
                      (step == 0 || !s.onAtStep(step - 1, dt)));
  if (!onset)
    return true;
  // The first onset: what came before is no beat; its rows are dropped.
  if (step > 0 && !sim_.biomarkers().closeBeat())
    return error = sim_.failure(), false;
  if (at_.firstBeat < 0)
    at_.firstBeat = step > 0 ? 1 : 0;
  else
    ++at_.beats;
  at_.beatStep = step;
  return true;
}

bool TissueBeats::finish(int64_t step, std::string &error) {
  if (at_.firstBeat < 0 || step == at_.beatStep)
    return true;
  if (!sim_.biomarkers().closeBeat())
    return error = sim_.failure(), false;
  ++at_.beats;
  return true;
}

std::vector<double> TissueBeats::map(int column, int64_t beat,
                                     bool everyRank) {
  if (everyRank && allRowsBeats_ != at_.beats) {
    allRows_ = std::make_shared<const BiomarkerTable>(sim_.biomarkers().all());
    allRowsBeats_ = at_.beats;
  }
  std::vector<double> out(grid_.points(), NAN);
  const BiomarkerTable &t = everyRank ? *allRows_ : sim_.biomarkers().table();
  for (int64_t r = 0; r < t.rows(); ++r) {
    const double *row = t.row(r);
    if (static_cast<int64_t>(row[kBioBeat]) == at_.firstBeat + beat)
      out[cellPoint_[static_cast<int64_t>(row[kBioCell])]] = row[column];
  }
  return out;
}
