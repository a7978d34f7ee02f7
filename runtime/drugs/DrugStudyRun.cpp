//===- DrugStudyRun.cpp - a drug study as population runs -----------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// A study is one population: every (drug, dose, sample) is a cell with the
// parameters its drug changes, paced beat by beat; at every beat's end the
// cells' qNet, biomarkers and state change are read. With
// DrugStudyOptions::stopConverged the cells that have reached steady state
// leave: at the end of a beat where some did, the others continue in a new
// simulation of them alone (a stage), their states, externals and clock
// moved over, so each cell's result is what a study of it stopped there
// gives.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/Drugs/DrugStudy.h"
#include "easyml/Runtime/IO/PopulationState.h"
#include "easyml/Runtime/Simulation/SimulationState.h"
#include "easyml/Runtime/Core/RunSummary.h"
#include "easyml/Runtime/Core/Timeline.h"

#include <algorithm>
#include <cmath>
#include <map>

using namespace easyml::rt;

namespace {

/// Per-cell values of every parameter a drug changes.
bool setDrugParameters(Simulation &sim, const ChannelMapping &m,
                       const std::vector<DrugCell> &cells, std::string &error) {
  const ParamSet &ps = sim.parameters().paramSet();
  std::map<std::string, double> base;
  const easyml_model_desc &d = sim.desc();
  for (int64_t i = 0; i < d.num_params; ++i)
    base[d.param_names[i]] = ps.values()[ps.index(d.param_names[i])];
  std::map<std::string, std::vector<double>> rows;
  for (size_t c = 0; c < cells.size(); ++c) {
    std::map<std::string, double> values;
    if (Status made = drugParameters(m, cells[c], base, values); !made.ok())
      return error = made.message(), false;
    for (const auto &[name, v] : values) {
      auto &row = rows[name];
      if (row.empty())
        for (const DrugCell &ignored : cells)
          (void)ignored, row.push_back(base[name]);
      row[c] = v;
    }
  }
  for (const auto &[name, values] : rows)
    if (Status st = sim.parameters().setPerCell(name, values.data()); !st.ok())
      return error = st.message(), false;
  return true;
}

/// The simulation of the cells still paced: study cell `cells[k]` is its
/// cell k.
struct Stage {
  std::unique_ptr<Simulation> sim;
  std::vector<int64_t> cells;
};

/// A stage of the study cells `active`, their drugs set, initialised for
/// the study's pacing.
bool makeStage(const ModelHandle &model, const ChannelMapping &m,
               const std::vector<DrugCell> &all,
               const std::vector<int64_t> &active, const DrugStudyOptions &o,
               Stage &stage, std::string &error) {
  std::vector<DrugCell> mine;
  for (int64_t c : active)
    mine.push_back(all[c]);
  stage.cells = active;
  stage.sim = std::make_unique<Simulation>(
      model, static_cast<int64_t>(active.size()), o.simulation);
  Simulation &sim = *stage.sim;
  if (Status st = sim.valid(); !st.ok())
    return error = st.message(), false;
  if (Status st = o.parameters.empty() ? Status()
                                       : sim.parameters().modify(o.parameters);
      !st.ok())
    return error = "parameters: " + st.message(), false;
  if (!setDrugParameters(sim, m, mine, error))
    return false;
  sim.addStimulus(Stimulus::fromMs(o.dt, o.stimStart, o.stimDuration,
                                   o.stimStrength, o.bcl, o.beats));
  if (!sim.initialize(o.dt))
    return error = sim.failure(), false;
  return true;
}

/// Every cell's states and externals as a study left them (study cell
/// order): the states a state file saves.
struct FinalStates {
  std::vector<std::vector<double>> sv, ext;

  /// Keeps the values of `stage`'s cells `which` (stage cell numbers).
  void keep(Stage &stage, const std::vector<int64_t> &which, size_t cells) {
    Simulation &sim = *stage.sim;
    const easyml_model_desc &d = sim.desc();
    sv.resize(stateRowNames(d).size(), std::vector<double>(cells, NAN));
    ext.resize(d.num_externals, std::vector<double>(cells, NAN));
    std::vector<double> row(sim.numCells());
    for (size_t v = 0; v < sv.size(); ++v) {
      sim.values().getStateRow(static_cast<int64_t>(v), row.data());
      for (int64_t k : which)
        sv[v][stage.cells[k]] = row[k];
    }
    for (int64_t e = 0; e < d.num_externals; ++e)
      for (int64_t k : which)
        ext[e][stage.cells[k]] = sim.values().external(e)[k];
  }

  /// Into `sim`, a simulation of every study cell.
  void restore(Simulation &sim) const {
    for (size_t v = 0; v < sv.size(); ++v)
      sim.values().setStateRow(static_cast<int64_t>(v), sv[v].data());
    for (size_t e = 0; e < ext.size(); ++e)
      std::copy(ext[e].begin(), ext[e].end(), sim.values().external(e));
  }
};

/// `to` continues `from`'s cells `keep` (stage cell numbers, in order):
/// their states, externals, the biomarkers' beat-to-beat history (`to`'s
/// biomarkers enabled) and the clock.
void moveCells(Simulation &from, const std::vector<int64_t> &keep,
               Simulation &to) {
  const easyml_model_desc &d = from.desc();
  std::vector<double> all(from.numCells()), some(keep.size());
  auto pick = [&](const double *values) {
    for (size_t k = 0; k < keep.size(); ++k)
      some[k] = values[keep[k]];
  };
  for (size_t v = 0, n = stateRowNames(d).size(); v < n; ++v) {
    from.values().getStateRow(static_cast<int64_t>(v), all.data());
    pick(all.data());
    to.values().setStateRow(static_cast<int64_t>(v), some.data());
  }
  for (int64_t e = 0; e < d.num_externals; ++e) {
    pick(from.values().external(e));
    std::copy(some.begin(), some.end(), to.values().external(e));
  }
  std::vector<double> apd, change, keptApd(keep.size()), keptChange(keep.size());
  from.transfer().biomarkerHistory(apd, change);
  for (size_t k = 0; k < keep.size() && !apd.empty(); ++k) {
    keptApd[k] = apd[keep[k]];
    keptChange[k] = change[keep[k]];
  }
  if (!apd.empty())
    to.transfer().setBiomarkerHistory(keptApd, keptChange);
  to.transfer().setClock(from.transfer().clock());
}

/// What the study keeps between beats, per study cell.
struct Tracker {
  Stage *stage = nullptr;
  int64_t qnetIndex;
  std::vector<DrugStudyRow> &rows;
  std::vector<std::vector<double>> previous; // per state row, study cell
  std::vector<double> row;

  Simulation &sim() { return *stage->sim; }
  DrugStudyRow &rowOf(int64_t k) { return rows[stage->cells[k]]; }

  /// A beat ended: its qNet (then reset), biomarkers and state change.
  void beatEnded() {
    int64_t n = sim().numCells();
    row.resize(n);
    sim().values().getStateRow(qnetIndex, row.data());
    for (int64_t c = 0; c < n; ++c)
      rowOf(c).qnet = row[c];
    std::fill(row.begin(), row.end(), 0.0);
    sim().values().setStateRow(qnetIndex, row.data());
    const BiomarkerTable &t = sim().biomarkers().table();
    for (int64_t r = 0; r < t.rows(); ++r) {
      const double *b = t.row(r);
      DrugStudyRow &out = rowOf(static_cast<int64_t>(b[kBioCell]));
      out.biomarkers.assign(b, b + kBioNumColumns);
      out.apd90Change = b[kBioApd90Change];
    }
    sim().biomarkers().clear();
    stateChange();
    countSteps();
  }

  /// The steps each cell took so far: its sub-step counters where it
  /// takes its own steps, else the clock's.
  void countSteps() {
    int64_t n = sim().numCells();
    row.resize(n);
    std::vector<int64_t> counters = adaptiveRows(sim().desc());
    std::vector<double> total(
        n, static_cast<double>(sim().transfer().clock().step));
    if (!counters.empty())
      std::fill(total.begin(), total.end(), 0.0);
    for (int64_t r : counters) {
      sim().values().getStateRow(r, row.data());
      for (int64_t c = 0; c < n; ++c)
        total[c] += row[c];
    }
    for (int64_t c = 0; c < n; ++c)
      rowOf(c).steps = total[c];
  }

  /// Each cell's state change below `tolerance` this beat (`beat`): keeps
  /// the first beat of each cell's run below it; `settled` gets the stage
  /// cells below it. Whether every cell is.
  bool converged(double tolerance, int64_t beat,
                 std::vector<int64_t> *settled = nullptr) {
    bool all = tolerance > 0;
    for (int64_t c = 0, n = sim().numCells(); c < n; ++c) {
      DrugStudyRow &r = rowOf(c);
      bool below = r.stateChange < tolerance; // false for NaN
      r.convergedBeat = !below ? -1 : r.convergedBeat < 0 ? beat : r.convergedBeat;
      all = all && below;
      r.beats = beat;
      if (below && settled)
        settled->push_back(c);
    }
    return all;
  }

  /// The largest relative change of a state over the beat, per cell
  /// (states below 1e-9 in magnitude at both ends are not counted).
  void stateChange() {
    int64_t n = sim().numCells(), states = sim().desc().num_states;
    bool first = previous.empty();
    previous.resize(states, std::vector<double>(rows.size(), NAN));
    row.resize(n);
    std::vector<double> worst(n, 0.0);
    for (int64_t s = 0; s < states; ++s) {
      if (s == qnetIndex)
        continue;
      sim().values().getStateRow(s, row.data());
      for (int64_t c = 0; c < n; ++c) {
        double &a = previous[s][stage->cells[c]], b = row[c];
        double scale = std::max(std::fabs(a), std::fabs(b));
        if (!first && scale > 1e-9)
          worst[c] = std::max(worst[c], std::fabs(b - a) / scale);
        a = b;
      }
    }
    for (int64_t c = 0; c < n; ++c)
      rowOf(c).stateChange = first ? NAN : worst[c];
  }
};

/// Samples of every study cell, every 1 ms of its latest beat: Ca (when
/// the mapping names it), Vm and Iion; sample k of slot s, cell c at
/// [(s * samples + k) * cells + c].
struct LastBeatRecord {
  int64_t cells = 0, first = 0, every = 1, samples = 0, period = 1;
  /// Time between samples (ms): 1, or the nearest whole number of steps.
  double spacing = 1.0;
  int slots = 0;
  bool calcium = false;
  std::vector<double> data;
  /// The stage being recorded.
  const Stage *stage = nullptr;
  void add(int64_t step, CellRange part, const double *values) {
    // Every beat overwrites the one before: the last complete beat's
    // samples are there whenever the cell stops.
    int64_t k = (step - first) % period / every;
    if (k < 0 || k >= samples)
      return;
    for (int s = 0; s < slots; ++s)
      for (int64_t c = part.begin; c < part.end; ++c)
        data[(s * samples + k) * cells + stage->cells[c]] =
            values[s * part.size() + (c - part.begin)];
  }
  std::vector<double> series(int slot, int64_t c) const {
    std::vector<double> out(samples);
    for (int64_t k = 0; k < samples; ++k)
      out[k] = data[(slot * samples + k) * cells + c];
    return out;
  }
  /// CaTD50/90 and CiPA's max_dv and EAD flag of every cell.
  void metrics(std::vector<DrugStudyRow> &rows) const {
    for (int64_t c = 0; c < cells; ++c) {
      int vm = calcium ? 1 : 0;
      if (calcium)
        calciumDurations(series(0, c), spacing, rows[c].catd50,
                         rows[c].catd90);
      std::vector<double> v = series(vm, c), dv = series(vm + 1, c);
      for (double &x : dv)
        x = -x; // dVm/dt = -Iion outside the stimulus
      rows[c].maxDv = cipaMaxDv(v, dv, spacing);
    }
  }
};

int64_t stateIndex(const easyml_model_desc &d, const std::string &name) {
  for (int64_t i = 0; i < d.num_states; ++i)
    if (name == d.state_names[i])
      return i;
  return -1;
}

/// The options' checks; "" when they are fine.
std::string checkOptions(const std::vector<DrugCell> &cells,
                         const DrugStudyOptions &o) {
  if (cells.empty() || o.beats < 1 || !(o.bcl > 0) || !(o.dt > 0))
    return "a study needs cells, beats >= 1, bcl > 0 and dt > 0";
  if (o.adaptive && std::fabs(o.stimDuration / o.dt -
                              std::llround(o.stimDuration / o.dt)) > 1e-9) {
    char buf[160];
    std::snprintf(buf, sizeof buf,
                  "with each simulation taking its own steps (adaptive) the "
                  "stimulus must last whole steps of dt: %g ms is not a "
                  "multiple of %g ms",
                  o.stimDuration, o.dt);
    return buf;
  }
  if (o.adaptive && o.gridBeats < 2)
    return "the beats paced on the grid of dt must be at least 2, got " +
           std::to_string(o.gridBeats);
  if (o.maxDvWindow < 0)
    return "the max_dv window must be >= 0 beats";
  if (o.maxDvWindow > 1 && o.converge > 0)
    return "a max_dv window needs every beat paced: leave out the "
           "steady-state stop (converge)";
  if (o.stopConverged && !(o.converge > 0))
    return "stopping converged simulations needs a tolerance (converge)";
  return "";
}

} // namespace

namespace {

/// One study run: its stage, what it records and keeps.
class StudyRun {
public:
  StudyRun(const ModelHandle &model, const ChannelMapping &m,
           const std::vector<DrugCell> &cells, const DrugStudyOptions &o,
           int64_t qnet, std::vector<DrugStudyRow> &rows,
           const std::function<void(int64_t)> &progress)
      : model_(model), m_(m), cells_(cells), o_(o), rows_(rows),
        progress_(progress), tracker_{&stage_, qnet, rows, {}, {}} {
    period_ = std::llround(o.bcl / o.dt);
    start_ = std::llround(o.stimStart / o.dt);
  }

  bool run(std::string &error);
  /// What kind of error run() stopped on.
  ErrorKind errorKind() const { return errorKind_; }

private:
  /// The stage's recording and beat events (the first: its biomarkers
  /// too; a later one has them from nextStage).
  bool startStage(bool first, std::string &error);
  bool enableBiomarkers(Simulation &sim, std::string &error);
  /// The per-cell parameters the first stage has (a state file's rows
  /// with this study's drugs) onto `stage`'s cells.
  bool applyRows(Stage &stage, std::string &error);
  /// The stage's cells that settled leave; the others go on in a new one.
  bool nextStage(std::string &error);
  void choose(int64_t beat);
  bool saveStates(std::string &error);
  /// The step from which beats are paced on the grid of dt.
  int64_t gridFrom() const;

  const ModelHandle &model_;
  const ChannelMapping &m_;
  const std::vector<DrugCell> &cells_;
  const DrugStudyOptions &o_;
  std::vector<DrugStudyRow> &rows_;
  const std::function<void(int64_t)> &progress_;
  Stage stage_;
  Tracker tracker_;
  LastBeatRecord last_;
  FinalStates finals_;
  /// The beat with the largest max_dv among the window's, per cell.
  std::vector<DrugStudyRow> best_;
  /// With loadStates: every per-cell parameter row of the first stage.
  std::map<std::string, std::vector<double>> rows0_;
  /// Stage cells whose state change fell below the tolerance at the beat
  /// that just ended (stopConverged).
  std::vector<int64_t> settled_;
  int64_t period_ = 1, start_ = 0;
  ErrorKind errorKind_ = ErrorKind::Failed;
  bool steady_ = false;
};

bool StudyRun::startStage(bool first, std::string &error) {
  Simulation &sim = *stage_.sim;
  if (first && !enableBiomarkers(sim, error))
    return false;
  std::vector<std::string> recorded = {"Vm", "Iion"};
  if (last_.calcium)
    recorded.insert(recorded.begin(), m_.calcium);
  last_.stage = &stage_;
  if (Status st = sim.record(
          recorded, {0, sim.numCells()}, last_.first, last_.every,
          [this](int64_t step, CellRange part, const double *values) {
            last_.add(step, part, values);
          });
      !st.ok())
    return error = "the last beat's samples: " + st.message(), false;
  if (first)
    tracker_.stateChange(); // the states the first beat starts from
  int64_t next =
      first ? start_ + period_ : sim.transfer().clock().step + period_;
  sim.addEvent(
      next,
      [this](SimulationInterface &, int64_t step, std::string &) {
        tracker_.beatEnded();
        int64_t beat = (step - start_) / period_;
        choose(beat);
        if (progress_)
          progress_(beat);
        settled_.clear();
        // Converged: the run stops here (false without an error).
        steady_ = tracker_.converged(o_.converge, beat,
                                     o_.stopConverged ? &settled_ : nullptr);
        return !steady_ && settled_.empty();
      },
      period_);
  return true;
}

bool StudyRun::nextStage(std::string &error) {
  std::vector<int64_t> stay, active;
  for (int64_t k = 0, n = stage_.sim->numCells(); k < n; ++k)
    if (!std::binary_search(settled_.begin(), settled_.end(), k)) {
      stay.push_back(k);
      active.push_back(stage_.cells[k]);
    }
  if (!o_.saveStates.empty())
    finals_.keep(stage_, settled_, cells_.size());
  Stage next;
  if (!makeStage(model_, m_, cells_, active, o_, next, error) ||
      !applyRows(next, error) || !enableBiomarkers(*next.sim, error))
    return false;
  moveCells(*stage_.sim, stay, *next.sim);
  stage_ = std::move(next);
  return startStage(/*first=*/false, error);
}

bool StudyRun::applyRows(Stage &stage, std::string &error) {
  std::vector<double> some(stage.cells.size());
  for (const auto &[name, all] : rows0_) {
    for (size_t k = 0; k < some.size(); ++k)
      some[k] = all[stage.cells[k]];
    if (Status st = stage.sim->parameters().setPerCell(name, some.data());
        !st.ok())
      return error = st.message(), false;
  }
  return true;
}

bool StudyRun::enableBiomarkers(Simulation &sim, std::string &error) {
  BiomarkerOptions bio;
  bio.caVariable = m_.calcium;
  Status st = sim.biomarkers().enable(bio);
  if (!st.ok())
    error = st.message();
  return st.ok();
}

void StudyRun::choose(int64_t beat) {
  for (int64_t k = 0, n = stage_.sim->numCells(); k < n; ++k)
    tracker_.rowOf(k).beat = beat;
  if (o_.maxDvWindow <= 1 || beat <= o_.beats - o_.maxDvWindow)
    return;
  // A window paces every beat of every cell: one stage, cell k is row k.
  last_.metrics(rows_);
  if (best_.empty()) {
    best_ = rows_;
    for (DrugStudyRow &b : best_)
      b.eadBeats = 0;
  }
  for (size_t c = 0; c < rows_.size(); ++c) {
    int64_t eads = best_[c].eadBeats + (rows_[c].maxDv > 0 ? 1 : 0);
    if (rows_[c].maxDv > best_[c].maxDv ||
        (std::isnan(best_[c].maxDv) && !std::isnan(rows_[c].maxDv)))
      best_[c] = rows_[c];
    best_[c].eadBeats = eads;
  }
}

/// Every cell's states at the end (a cell stopped early: where it
/// stopped), with the drugs' parameters.
bool StudyRun::saveStates(std::string &error) {
  auto save = [&](Simulation &sim) {
    Status saved = saveState(o_.saveStates, sim);
    error = saved.message();
    return saved.ok();
  };
  if (stage_.cells.size() == cells_.size())
    return save(*stage_.sim);
  std::vector<int64_t> all(stage_.cells.size());
  for (size_t k = 0; k < all.size(); ++k)
    all[k] = static_cast<int64_t>(k);
  finals_.keep(stage_, all, cells_.size());
  std::vector<int64_t> everyone(cells_.size());
  for (size_t c = 0; c < everyone.size(); ++c)
    everyone[c] = static_cast<int64_t>(c);
  Stage whole;
  if (!makeStage(model_, m_, cells_, everyone, o_, whole, error) ||
      !applyRows(whole, error))
    return false;
  finals_.restore(*whole.sim);
  whole.sim->transfer().setClock(stage_.sim->transfer().clock());
  return save(*whole.sim);
}

int64_t StudyRun::gridFrom() const {
  if (!o_.adaptive || o_.converge > 0)
    return start_;
  // A window's first beat needs the beat before it for APD90's change.
  int64_t grid = std::max(o_.gridBeats, o_.maxDvWindow + 1);
  return start_ + std::max<int64_t>(0, o_.beats - grid) * period_;
}

bool StudyRun::run(std::string &error) {
  std::vector<int64_t> everyone(cells_.size());
  for (size_t c = 0; c < everyone.size(); ++c)
    everyone[c] = static_cast<int64_t>(c);
  if (!makeStage(model_, m_, cells_, everyone, o_, stage_, error))
    return false;
  Simulation &first = *stage_.sim;
  if (!o_.loadStates.empty()) {
    // The saved states; this study's drugs, and qNet from zero.
    Status loaded = loadState(o_.loadStates, first, /*restoreClock=*/false);
    if (!loaded.ok())
      error = loaded.message();
    if (!loaded.ok() || !setDrugParameters(first, m_, cells_, error)) {
      errorKind_ = ErrorKind::Invalid; // a state of another study
      return false;
    }
    std::vector<double> zero(cells_.size(), 0.0);
    first.values().setStateRow(tracker_.qnetIndex, zero.data());
    for (int64_t r : adaptiveRows(first.desc()))
      first.values().setStateRow(r, zero.data());
    // Later stages take the file's rows too.
    for (const std::string &name : first.parameters().perCellNames()) {
      std::vector<double> &row = rows0_[name];
      row.resize(cells_.size());
      first.parameters().perCell(name, row.data());
    }
  }
  rows_.assign(cells_.size(), DrugStudyRow());
  for (size_t c = 0; c < cells_.size(); ++c) {
    rows_[c].drug = cells_[c].drug ? cells_[c].drug->name : "control";
    rows_[c].sample = cells_[c].drug ? cells_[c].drug->sample : 0;
    rows_[c].dose = cells_[c].dose;
    rows_[c].concentration = cells_[c].concentration;
  }
  last_.cells = static_cast<int64_t>(cells_.size());
  last_.every = std::max<int64_t>(1, std::llround(1.0 / o_.dt));
  last_.spacing = last_.every * o_.dt;
  last_.first = gridFrom();
  stage_.sim->spanIntervalsUntil(last_.first);
  last_.period = period_;
  last_.samples = (period_ + last_.every - 1) / last_.every;
  last_.calcium = !m_.calcium.empty();
  last_.slots = last_.calcium ? 3 : 2;
  last_.data.assign(last_.slots * last_.samples * last_.cells, NAN);
  if (!startStage(/*first=*/true, error))
    return false;
  const int64_t end = start_ + o_.beats * period_;
  for (;;) {
    settled_.clear();
    bool reached = stage_.sim->run(end);
    if (!reached && !steady_ && settled_.empty()) {
      const NonFinite *bad = stage_.sim->nonFinite();
      if (!bad)
        return error = stage_.sim->failure(), false;
      // The study's cell, not the stage's.
      NonFinite where = *bad;
      if (where.cell >= 0 && where.cell < static_cast<int64_t>(stage_.cells.size()))
        where.cell = stage_.cells[where.cell];
      error = "a value is no longer finite: " + where.message();
      errorKind_ = ErrorKind::NonFinite;
      return false;
    }
    if (reached || steady_)
      break;
    if (!nextStage(error))
      return false;
  }
  if (!steady_) {
    if (!stage_.sim->biomarkers().closeBeat())
      return error = stage_.sim->failure(), false;
    tracker_.beatEnded();
    tracker_.converged(o_.converge, o_.beats);
  }
  last_.metrics(rows_);
  if (!steady_)
    choose(o_.beats);
  if (!best_.empty())
    for (size_t c = 0; c < rows_.size(); ++c) {
      // The chosen beat's metrics; how far the run went, the last beat's.
      DrugStudyRow chosen = best_[c];
      chosen.beats = rows_[c].beats;
      chosen.convergedBeat = rows_[c].convergedBeat;
      chosen.stateChange = rows_[c].stateChange;
      chosen.steps = rows_[c].steps;
      rows_[c] = chosen;
    }
  if (progress_) {
    int64_t beats = 0;
    for (const DrugStudyRow &r : rows_)
      beats = std::max(beats, r.beats);
    progress_(rows_.empty() ? o_.beats : beats);
  }
  return o_.saveStates.empty() || saveStates(error);
}

} // namespace

Status easyml::rt::runDrugStudy(const ModelHandle &model,
                                const ChannelMapping &m,
                                const std::vector<DrugCell> &cells,
                                const DrugStudyOptions &o,
                                std::vector<DrugStudyRow> &rows,
                                const std::function<void(int64_t)> &progress) {
  int64_t qnet = stateIndex(model.desc(), kQnetState);
  if (qnet < 0)
    return Status::invalid("model " + std::string(model.desc().name) +
                           " has no qNet state: give the EasyML file (the "
                           "study adds it)");
  if (std::string e = checkOptions(cells, o); !e.empty())
    return Status::invalid(e);
  StudyRun run(model, m, cells, o, qnet, rows, progress);
  std::string error;
  if (!run.run(error))
    return Status::error(run.errorKind(), error);
  return Status::success();
}
