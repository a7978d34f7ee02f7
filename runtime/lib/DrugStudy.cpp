//===- DrugStudy.cpp - a drug study as one population run -----------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/DrugStudy.h"
#include "easyml/Runtime/Compile.h"
#include "easyml/Runtime/PopulationState.h"
#include "easyml/Runtime/Timeline.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>
#include <unistd.h>

using namespace easyml::rt;

const char easyml::rt::kQnetState[] = "easyml_qnet_integral";

namespace {

/// The protocol's stimulus current (negative depolarises, as a model's
/// currents) at the model's time t: on for the steps whose time within the
/// cycle is in [0, duration), as the simulator's stimulus; for a model that
/// takes its own steps, over [0, duration) itself.
std::string stimulusExpression(const DrugStudyOptions &o) {
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "((t >= %.17g) ? (((t - %.17g) - %.17g * floor((t - %.17g) / "
                "%.17g + 1e-9) < %.17g) ? %.17g : 0.0) : 0.0)",
                o.stimStart, o.stimStart, o.bcl, o.stimStart, o.bcl,
                o.adaptive ? o.stimDuration : o.stimDuration - 0.5 * o.dt,
                -o.stimStrength);
  return buf;
}

} // namespace

bool easyml::rt::withQnet(const std::string &modelText, const ChannelMapping &m,
                          const DrugStudyOptions &protocol, std::string &out,
                          std::string &error) {
  if (m.qnet.empty()) {
    error = "the drug mapping of model " + m.model +
            " names no variables for qNet ('qnet')";
    return false;
  }
  std::string sum;
  for (const std::string &v : m.qnet) {
    // A whole word of the model's text: a variable it defines or uses.
    if (!std::regex_search(modelText, std::regex("\\b" + v + "\\b"))) {
      error = "model " + m.model + " has no variable '" + v +
              "' (named for qNet in its drug mapping)";
      return false;
    }
    sum += (sum.empty() ? "" : " + ") + v;
  }
  std::string text = modelText;
  if (!m.stimulusInto.empty())
    text += "\n\n// Added by the drug study: the pacing current, where the "
            "model's\n// equations leave it out.\neasyml_pacing_current = " +
            stimulusExpression(protocol) + ";\n";
  for (const auto &[eq, term] : m.stimulusInto) {
    if (!std::regex_search(modelText, std::regex("\\b" + eq + "\\b"))) {
      error = "model " + m.model + " has no equation '" + eq +
              "' (named in stimulus_into in its drug mapping)";
      return false;
    }
    text += eq + " += " +
            std::regex_replace(term, std::regex("\\bSTIM\\b"),
                               "easyml_pacing_current") +
            ";\n";
  }
  out = text + "\n\n// Added by the drug study: qNet, the integral of " +
        "these currents over a beat\n// (reset at every beat).\n" +
        std::string(kQnetState) + "_init = 0;\ndiff_" + kQnetState + " = " +
        sum + ";\n";
  return true;
}

std::unique_ptr<ModelHandle> easyml::rt::loadStudyModel(
    const std::string &modelPath, const ChannelMapping &m,
    const DrugStudyOptions &protocol, const std::vector<std::string> &flags,
    const std::string &cacheDir, std::string &error) {
  // A library compiled before (with the qNet state; runDrugStudy checks).
  if (modelPath.size() > 3 &&
      modelPath.compare(modelPath.size() - 3, 3, ".so") == 0)
    return ModelHandle::load(modelPath, error);
  std::ifstream in(modelPath);
  if (!in) {
    error = "cannot read model '" + modelPath + "'";
    return nullptr;
  }
  std::stringstream text;
  text << in.rdbuf();
  std::string augmented;
  if (!withQnet(text.str(), m, protocol, augmented, error))
    return nullptr;
  char dir[] = "/tmp/easyml-drug-XXXXXX";
  if (!mkdtemp(dir)) {
    error = "cannot make a temporary folder";
    return nullptr;
  }
  std::string base = modelPath.substr(modelPath.find_last_of('/') + 1);
  std::string path = std::string(dir) + "/" + base;
  std::ofstream(path) << augmented;
  std::unique_ptr<ModelHandle> model =
      loadOrCompileModel(path, flags, cacheDir, error);
  unlink(path.c_str());
  rmdir(dir);
  return model;
}

namespace {

/// Per-cell values of every parameter a drug changes.
bool setDrugParameters(Simulation &sim, const ChannelMapping &m,
                       const std::vector<DrugCell> &cells, std::string &error) {
  const ParamSet &ps = sim.paramSet();
  std::map<std::string, double> base;
  const easyml_model_desc &d = sim.desc();
  for (int64_t i = 0; i < d.num_params; ++i)
    base[d.param_names[i]] = ps.values()[ps.index(d.param_names[i])];
  std::map<std::string, std::vector<double>> rows;
  for (size_t c = 0; c < cells.size(); ++c) {
    std::map<std::string, double> values;
    if (!drugParameters(m, cells[c], base, values, error))
      return false;
    for (const auto &[name, v] : values) {
      auto &row = rows[name];
      if (row.empty())
        for (const DrugCell &ignored : cells)
          (void)ignored, row.push_back(base[name]);
      row[c] = v;
    }
  }
  for (const auto &[name, values] : rows)
    if (!sim.setPerCellParam(name, values.data(), error))
      return false;
  return true;
}

/// What the study keeps between beats.
struct Tracker {
  Simulation &sim;
  int64_t qnetIndex;
  std::vector<DrugStudyRow> &rows;
  std::vector<std::vector<double>> previous; // per state row
  std::vector<double> row;

  /// A beat ended: its qNet (then reset), biomarkers and state change.
  void beatEnded() {
    int64_t n = sim.numCells();
    row.resize(n);
    sim.getStateRow(qnetIndex, row.data());
    for (int64_t c = 0; c < n; ++c)
      rows[c].qnet = row[c];
    std::fill(row.begin(), row.end(), 0.0);
    sim.setStateRow(qnetIndex, row.data());
    const BiomarkerTable &t = sim.biomarkers();
    for (int64_t r = 0; r < t.rows(); ++r) {
      const double *b = t.row(r);
      DrugStudyRow &out = rows[static_cast<int64_t>(b[kBioCell])];
      out.biomarkers.assign(b, b + kBioNumColumns);
      out.apd90Change = b[kBioApd90Change];
    }
    sim.clearBiomarkers();
    stateChange();
  }

  /// Every cell's state change below `tolerance` this beat (`beat`); keeps
  /// the first beat of each cell's run below it.
  bool converged(double tolerance, int64_t beat) {
    bool all = tolerance > 0;
    for (DrugStudyRow &r : rows) {
      bool below = r.stateChange < tolerance; // false for NaN
      r.convergedBeat = !below ? -1 : r.convergedBeat < 0 ? beat : r.convergedBeat;
      all = all && below;
      r.beats = beat;
    }
    return all;
  }

  /// The largest relative change of a state over the beat, per cell
  /// (states below 1e-9 in magnitude at both ends are not counted).
  void stateChange() {
    int64_t n = sim.numCells(), states = sim.desc().num_states;
    bool first = previous.empty();
    previous.resize(states);
    row.resize(n);
    std::vector<double> worst(n, 0.0);
    for (int64_t s = 0; s < states; ++s) {
      if (s == qnetIndex)
        continue;
      sim.getStateRow(s, row.data());
      if (!first)
        for (int64_t c = 0; c < n; ++c) {
          double a = previous[s][c], b = row[c];
          double scale = std::max(std::fabs(a), std::fabs(b));
          if (scale > 1e-9)
            worst[c] = std::max(worst[c], std::fabs(b - a) / scale);
        }
      previous[s] = row;
    }
    for (int64_t c = 0; c < n; ++c)
      rows[c].stateChange = first ? NAN : worst[c];
  }
};

/// Samples of every cell, every 1 ms of the latest beat: Ca (when the
/// mapping names it), Vm and Iion; sample k of slot s, cell c at
/// [(s * samples + k) * cells + c].
struct LastBeatRecord {
  int64_t cells = 0, first = 0, every = 1, samples = 0, period = 1;
  /// Time between samples (ms): 1, or the nearest whole number of steps.
  double spacing = 1.0;
  int slots = 0;
  bool calcium = false;
  std::vector<double> data;
  void add(int64_t step, CellRange part, const double *values) {
    // Every beat overwrites the one before: the last complete beat's
    // samples are there whenever the study stops.
    int64_t k = (step - first) % period / every;
    if (k < 0 || k >= samples)
      return;
    for (int s = 0; s < slots; ++s)
      std::copy(values + s * part.size(), values + (s + 1) * part.size(),
                data.begin() + (s * samples + k) * cells + part.begin);
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

} // namespace

bool easyml::rt::runDrugStudy(const ModelHandle &model, const ChannelMapping &m,
                              const std::vector<DrugCell> &cells,
                              const DrugStudyOptions &o,
                              std::vector<DrugStudyRow> &rows,
                              std::string &error,
                              const std::function<void(int64_t)> &progress) {
  int64_t qnet = stateIndex(model.desc(), kQnetState);
  if (qnet < 0)
    return error = "model " + std::string(model.desc().name) +
                   " has no qNet state: give the EasyML file (the study "
                   "adds it)",
           false;
  if (cells.empty() || o.beats < 1 || !(o.bcl > 0) || !(o.dt > 0))
    return error = "a study needs cells, beats >= 1, bcl > 0 and dt > 0", false;
  if (o.adaptive && std::fabs(o.stimDuration / o.dt -
                              std::llround(o.stimDuration / o.dt)) > 1e-9) {
    char buf[160];
    std::snprintf(buf, sizeof buf,
                  "with each simulation taking its own steps (adaptive) the "
                  "stimulus must last whole steps of dt: %g ms is not a "
                  "multiple of %g ms",
                  o.stimDuration, o.dt);
    return error = buf, false;
  }
  if (o.maxDvWindow < 0)
    return error = "the max_dv window must be >= 0 beats", false;
  if (o.maxDvWindow > 1 && o.converge > 0)
    return error = "a max_dv window needs every beat paced: leave out the "
                   "steady-state stop (converge)",
           false;
  Simulation sim(model, static_cast<int64_t>(cells.size()), o.simulation);
  if (!sim.valid(error))
    return false;
  if (!o.parameters.empty() && !sim.modifyParams(o.parameters, error))
    return error = "parameters: " + error, false;
  if (!setDrugParameters(sim, m, cells, error))
    return false;
  int64_t period = std::llround(o.bcl / o.dt);
  sim.addStimulus(Stimulus::fromMs(o.dt, o.stimStart, o.stimDuration,
                                   o.stimStrength, o.bcl, o.beats));
  if (!sim.initialize(o.dt))
    return error = sim.failure(), false;
  if (!o.loadStates.empty()) {
    // The saved states; this study's drugs, and qNet from zero.
    if (!loadState(o.loadStates, sim, error, /*restoreClock=*/false) ||
        !setDrugParameters(sim, m, cells, error))
      return false;
    std::vector<double> zero(cells.size(), 0.0);
    sim.setStateRow(qnet, zero.data());
  }
  BiomarkerOptions bio;
  bio.caVariable = m.calcium;
  if (!sim.enableBiomarkers(bio, error))
    return false;
  rows.assign(cells.size(), DrugStudyRow());
  for (size_t c = 0; c < cells.size(); ++c) {
    rows[c].drug = cells[c].drug ? cells[c].drug->name : "control";
    rows[c].sample = cells[c].drug ? cells[c].drug->sample : 0;
    rows[c].dose = cells[c].dose;
    rows[c].concentration = cells[c].concentration;
  }
  Tracker tracker{sim, qnet, rows, {}, {}};
  int64_t start = std::llround(o.stimStart / o.dt);
  LastBeatRecord last;
  last.cells = static_cast<int64_t>(cells.size());
  last.every = std::max<int64_t>(1, std::llround(1.0 / o.dt));
  last.spacing = last.every * o.dt;
  last.first = start;
  last.period = period;
  last.samples = (period + last.every - 1) / last.every;
  last.calcium = !m.calcium.empty();
  std::vector<std::string> recorded = {"Vm", "Iion"};
  if (last.calcium)
    recorded.insert(recorded.begin(), m.calcium);
  last.slots = static_cast<int>(recorded.size());
  last.data.assign(last.slots * last.samples * last.cells, NAN);
  if (!sim.record(
          recorded, {0, last.cells}, last.first, last.every,
          [&](int64_t step, CellRange part, const double *values) {
            last.add(step, part, values);
          },
          error))
    return error = "the last beat's samples: " + error, false;
  tracker.stateChange(); // the states the first beat starts from
  // The beat with the largest max_dv among the window's, per cell.
  std::vector<DrugStudyRow> best;
  auto choose = [&](int64_t beat) {
    for (DrugStudyRow &r : rows)
      r.beat = beat;
    if (o.maxDvWindow <= 1 || beat <= o.beats - o.maxDvWindow)
      return;
    last.metrics(rows);
    if (best.empty()) {
      best = rows;
      for (DrugStudyRow &b : best)
        b.eadBeats = 0;
    }
    for (size_t c = 0; c < rows.size(); ++c) {
      int64_t eads = best[c].eadBeats + (rows[c].maxDv > 0 ? 1 : 0);
      if (rows[c].maxDv > best[c].maxDv ||
          (std::isnan(best[c].maxDv) && !std::isnan(rows[c].maxDv)))
        best[c] = rows[c];
      best[c].eadBeats = eads;
    }
  };
  bool steady = false;
  sim.addEvent(
      start + period,
      [&](SimulationInterface &, int64_t step, std::string &) {
        tracker.beatEnded();
        int64_t beat = (step - start) / period;
        choose(beat);
        if (progress)
          progress(beat);
        // Converged: the run stops here (false without an error).
        steady = tracker.converged(o.converge, beat);
        return !steady;
      },
      period);
  if (!sim.run(start + o.beats * period) && !steady) {
    const NonFinite *bad = sim.nonFinite();
    error =
        bad ? "a value is no longer finite: " + bad->message() : sim.failure();
    return false;
  }
  if (!steady) {
    if (!sim.closeBeat())
      return error = sim.failure(), false;
    tracker.beatEnded();
    tracker.converged(o.converge, o.beats);
  }
  last.metrics(rows);
  if (!steady)
    choose(o.beats);
  if (!best.empty())
    for (size_t c = 0; c < rows.size(); ++c) {
      // The chosen beat's metrics; how far the run went, the last beat's.
      DrugStudyRow chosen = best[c];
      chosen.beats = rows[c].beats;
      chosen.convergedBeat = rows[c].convergedBeat;
      chosen.stateChange = rows[c].stateChange;
      rows[c] = chosen;
    }
  if (progress)
    progress(rows.empty() ? o.beats : rows.front().beats);
  return o.saveStates.empty() || saveState(o.saveStates, sim, error);
}

std::string easyml::rt::drugStudyCsv(const std::vector<DrugStudyRow> &rows) {
  std::string out = "drug,sample,dose,concentration_nM,qnet,apd50,apd90,"
                    "triangulation,dvdt_max,v_peak,v_rest,ca_amplitude,"
                    "catd50,catd90,ead,flags,apd90_change,state_change,"
                    "max_dv,cipa_ead,beats,converged_beat,metrics_beat,"
                    "ead_beats\n";
  char buf[512];
  for (const DrugStudyRow &r : rows) {
    auto b = [&](int c) {
      return c < static_cast<int>(r.biomarkers.size()) ? r.biomarkers[c] : NAN;
    };
    int flags =
        std::isfinite(b(kBioFlags)) ? static_cast<int>(b(kBioFlags)) : 0;
    std::snprintf(buf, sizeof buf,
                  "%s,%lld,%.10g,%.10g,%.10g,%.10g,%.10g,%.10g,%.10g,%.10g,"
                  "%.10g,%.10g,%.10g,%.10g,%d,%d,%.10g,%.10g,%.10g,%d,%lld,"
                  "%lld,%lld,%lld\n",
                  r.drug.c_str(), (long long)r.sample, r.dose, r.concentration,
                  r.qnet, b(kBioApd50), b(kBioApd90), b(kBioTriangulation),
                  b(kBioDvdtMax), b(kBioVPeak), b(kBioVRest),
                  b(kBioCaAmplitude), r.catd50, r.catd90, (flags & 4) ? 1 : 0,
                  flags, r.apd90Change, r.stateChange, r.maxDv,
                  r.maxDv > 0 ? 1 : 0, (long long)r.beats,
                  (long long)r.convergedBeat, (long long)r.beat,
                  (long long)r.eadBeats);
    out += buf;
  }
  return out;
}
