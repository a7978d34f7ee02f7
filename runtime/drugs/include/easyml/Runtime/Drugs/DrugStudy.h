//===- DrugStudy.h - a drug study as one population run ---------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// Every (drug, dose) of a study is one cell of one simulation: the drug's
// parameter changes (DrugBlock.h) are per-cell parameters, every cell is
// paced the same number of beats, and the metrics of the last beat come
// from the kernels: the biomarkers (APDs, triangulation, dV/dt max, EAD
// flag; docs/biomarkers.md) and qNet, the integral over the beat of the
// currents the mapping names (Dutta et al. 2017), integrated as a state
// the compiler adds to the model (studyCompileFlags: easyml-compile
// --add-statements; the model's text is never edited) and reset at every
// beat. Between
// beats each cell's convergence is measured: the largest relative change
// of any state over the beat, and APD90's change.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_DRUGSTUDY_H
#define EASYML_RUNTIME_DRUGSTUDY_H

#include "easyml/Runtime/Core/ModelProvider.h"
#include "easyml/Runtime/Drugs/DrugBlock.h"
#include "easyml/Runtime/Support/Status.h"
#include "easyml/Runtime/Simulation/Simulation.h"

#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace easyml::rt {

/// The state a study adds to a model to integrate qNet.
extern const char kQnetState[];

struct DrugStudyOptions;

/// The EasyML statements the study adds to a model: the qNet integral (a
/// state, forward Euler, the sum of the mapping's variables) and, where
/// the mapping names equations the pacing current goes into
/// (stimulus_into), that current at `protocol`'s pacing added to them.
/// Invalid when the mapping names no qNet variables. Names the model lacks
/// are the compiler's errors, pointing into the statements.
Status studyStatements(const ChannelMapping &m,
                       const DrugStudyOptions &protocol, std::string &out);

/// The compiler flags that add studyStatements (--add-statements=...), or
/// its error.
Expected<std::vector<std::string>>
studyCompileFlags(const ChannelMapping &m, const DrugStudyOptions &protocol);

/// The model at `modelPath` through `models`: an EasyML file is compiled
/// with `flags` and the study's (studyCompileFlags); a shared library (.so)
/// is loaded as it is, one compiled with those flags ahead (where no
/// compiler is, e.g. a GPU machine; runDrugStudy checks its qNet state).
Expected<std::unique_ptr<ModelHandle>>
loadStudyModel(const std::string &modelPath, const ChannelMapping &m,
               const DrugStudyOptions &protocol,
               const std::vector<std::string> &flags, ModelProvider &models);

struct DrugStudyOptions {
  int64_t beats = 1000;
  /// Cycle length and time step (ms).
  double bcl = 2000, dt = 0.01;
  /// The stimulus at the start of every beat: uA/cm^2, positive
  /// depolarises (CiPA: 80 for 0.5 ms).
  double stimStart = 0, stimDuration = 0.5, stimStrength = 80;
  /// The model is compiled with `--adaptive` (each cell its own steps):
  /// the pacing current the study writes into its equations is then on
  /// over [0, stimDuration) of each cycle in continuous time, not for the
  /// steps of dt that start there.
  bool adaptive = false;
  /// With `adaptive`: the last `gridBeats` beats (at least 2: APD90's
  /// change needs the beat before) are paced on the grid of dt, where the
  /// metrics are taken (with `maxDvWindow`, at least the window and the
  /// beat before it); in the beats before them, outside the stimulus,
  /// each cell's error control alone sets its steps
  /// (Simulation::spanIntervalsUntil). With `converge`, where any beat may
  /// be the last, every beat is on the grid.
  int64_t gridBeats = 2;
  /// Shared parameter changes, openCARP's --imp-par syntax.
  std::string parameters;
  SimulationOptions simulation;
  /// A population state (PopulationState.h) to start from (a study paced
  /// before: its states; the drugs are this study's), and where to save
  /// the states at the end ("": none).
  std::string loadStates, saveStates;
  /// Steady state: stop pacing once every cell's largest relative state
  /// change over a beat (DrugStudyRow::stateChange) is below this; the
  /// metrics are then the last beat's (0: pace every beat).
  double converge = 0;
  /// With `converge`: each cell stops at the first beat its state change
  /// is below the tolerance (its metrics that beat's), and the others go
  /// on without it; the study ends when every cell has stopped.
  bool stopConverged = false;
  /// The metrics are of the beat with the largest max_dv among the last
  /// `maxDvWindow` beats, as FDA's AP_simulation.R takes them (250 there;
  /// an EAD in any of them is then reported); 0 or 1: the last beat's.
  /// Every beat is paced (no `converge`).
  int64_t maxDvWindow = 0;
};

/// One cell's result: its last beat.
struct DrugStudyRow {
  std::string drug;
  int64_t sample = 0;
  double dose = 0, concentration = 0;
  double qnet = 0;
  /// Biomarker columns (BiomarkerColumn) of the last beat (of the beat
  /// DrugStudyOptions::maxDvWindow chose: `beat`).
  std::vector<double> biomarkers;
  /// Over the last beat: the largest relative change of a state, and
  /// APD90's change (ms).
  double stateChange = 0, apd90Change = 0;
  /// Calcium transient durations at 50% and 90% decay (ms; NaN without a
  /// calcium state or when Ca does not decay that far), CiPA's way: on Ca
  /// sampled every 1 ms over the last beat, from the first sample above
  /// 90% of the rise to the first sample after the peak at or below the
  /// level.
  double catd50 = NAN, catd90 = NAN;
  /// CiPA's EAD measure (cipaMaxDv) on Vm and -Iion sampled every 1 ms of
  /// the last beat: positive is an early afterdepolarisation, NaN a beat
  /// that did not depolarise.
  double maxDv = NAN;
  /// Beats paced, and the first beat from which the cell's state change
  /// stayed below DrugStudyOptions::converge (-1: none, or no tolerance).
  int64_t beats = 0, convergedBeat = -1;
  /// The beat the metrics are of (1: the first paced), and with
  /// DrugStudyOptions::maxDvWindow the beats of the window with an EAD
  /// (max_dv > 0), as FDA's AP_simulation.R counts them (-1: no window).
  int64_t beat = 0, eadBeats = -1;
  /// The steps the simulation took from its start to where it stopped: with
  /// `adaptive` its error-controlled sub-steps (tried, accepted or not),
  /// else the steps of dt.
  double steps = 0;
};

/// CaTD50 and CaTD90 of one beat of calcium samples `ca` taken every
/// `every` ms (the definition above).
void calciumDurations(const std::vector<double> &ca, double every,
                      double &catd50, double &catd90);

/// CiPA's EAD measure of one beat (FDA's AP_simulation.R, after Mirams):
/// `v` and its derivative `dv` sampled every `every` ms from the beat's
/// start; the largest dv between 30% and 90% repolarisation (from the peak
/// to the end where Vm does not repolarise by 30%, and to the end where
/// not by 90%), where the window is longer than 1 ms. NaN when Vm never
/// reaches 0 mV (no depolarisation). An EAD when positive.
double cipaMaxDv(const std::vector<double> &v, const std::vector<double> &dv,
                 double every);

/// Runs the study; `progress` (if set) gets the beats done. An error is
/// Invalid for a model without the qNet state, bad options or saved
/// states of another study, NonFinite when a value stops being finite.
Status runDrugStudy(const ModelHandle &model, const ChannelMapping &m,
                    const std::vector<DrugCell> &cells,
                    const DrugStudyOptions &options,
                    std::vector<DrugStudyRow> &rows,
                    const std::function<void(int64_t)> &progress = nullptr);

/// The rows as CSV (drug, sample, dose, concentration_nM, qnet, apd50, apd90,
/// triangulation, dvdt_max, v_peak, v_rest, ca_amplitude, catd50, catd90,
/// ead, flags, apd90_change, state_change).
std::string drugStudyCsv(const std::vector<DrugStudyRow> &rows);

} // namespace easyml::rt

#endif // EASYML_RUNTIME_DRUGSTUDY_H
