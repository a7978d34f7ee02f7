//===- DrugModule.cpp - easyml.drug_study's bindings ----------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// run_drug_study(...): the runtime's drug study (DrugStudy.h) on CiPA-format
// drug data, returning the table as CSV text (the Python layer makes it
// arrays) and the wall time.
//
//===----------------------------------------------------------------------===//

#include "ModelProviders.h"

#include "easyml/Runtime/Drugs/DrugStudy.h"
#include "easyml/Runtime/Drugs/RiskClassifier.h"

#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <chrono>

namespace py = pybind11;
using namespace easyml::rt;

namespace {

struct StudyArgs {
  std::string model, mapping, cipa;
  std::vector<std::string> drugs;
  std::vector<double> doses;
  std::vector<int64_t> samples;
  bool nM = false;
  DrugStudyOptions options;
};

std::string run(const StudyArgs &a, ModelProvider &models,
                const std::function<void(int64_t)> &progress, double &seconds) {
  ChannelMapping m;
  std::vector<Drug> drugs;
  std::vector<DrugCell> cells;
  Status read = readChannelMapping(a.mapping, m);
  if (read.ok() && !a.drugs.empty())
    read = readCipaDrugs(a.cipa, a.drugs, a.samples, drugs);
  if (read.ok())
    read = studyCells(drugs, a.doses, a.nM, cells);
  if (!read.ok())
    throw std::runtime_error(read.message());
  std::vector<std::string> flags;
  if (a.options.adaptive)
    flags.push_back("--adaptive");
  auto loaded = loadStudyModel(a.model, m, a.options, flags, models);
  if (!loaded.ok())
    throw std::runtime_error(loaded.status().message());
  std::unique_ptr<ModelHandle> model = loaded.take();
  std::vector<DrugStudyRow> rows;
  auto t0 = std::chrono::steady_clock::now();
  Status ran;
  {
    // The run releases the interpreter; progress takes it back to call.
    py::gil_scoped_release release;
    std::function<void(int64_t)> report;
    if (progress)
      report = [&](int64_t beat) {
        py::gil_scoped_acquire acquire;
        progress(beat);
      };
    ran = runDrugStudy(*model, m, cells, a.options, rows, report);
  }
  if (!ran.ok())
    throw std::runtime_error(ran.message());
  seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                          t0)
                .count();
  return drugStudyCsv(rows);
}

py::dict runDrugStudyPy(
    const std::string &model, const std::string &mapping,
    const std::string &cipa, const std::vector<std::string> &drugs,
    const std::vector<double> &doses, const std::vector<int64_t> &samples,
    bool nM, int64_t beats, double bcl, double dt, double stim,
    double stimDuration, const std::string &parameters,
    const std::string &devices, int threads, const std::string &loadStates,
    const std::string &saveStates, const std::string &cacheDir,
    const std::function<void(int64_t)> &progress, double converge,
    bool adaptive, int64_t maxDvWindow, bool stopConverged, int64_t gridBeats,
    const std::string &compiler) {
  StudyArgs a{model, mapping, cipa, drugs, doses, samples, nM, {}};
  a.options.adaptive = adaptive;
  a.options.maxDvWindow = maxDvWindow;
  a.options.gridBeats = gridBeats;
  if (!(converge >= 0))
    throw std::runtime_error("converge must be >= 0");
  a.options.converge = converge;
  a.options.stopConverged = stopConverged;
  a.options.beats = beats;
  a.options.bcl = bcl;
  a.options.dt = dt;
  a.options.stimStrength = stim;
  a.options.stimDuration = stimDuration;
  a.options.parameters = parameters;
  a.options.simulation.devices = DeviceSpec(devices);
  if (!a.options.simulation.devices.valid())
    throw std::runtime_error("devices: " + a.options.simulation.devices.error);
  a.options.simulation.threads = threads;
  a.options.loadStates = loadStates;
  a.options.saveStates = saveStates;
  double seconds = 0;
  std::unique_ptr<ModelProvider> models = modelProvider(compiler, cacheDir);
  std::string csv = run(a, *models, progress, seconds);
  py::dict out;
  out["csv"] = csv;
  out["seconds"] = seconds;
  return out;
}

/// CiPA's torsade risk classification of (drug, dose, qnet) rows against
/// known classes: per dose, the fit and per drug the predictions.
py::list classifyRiskPy(const std::vector<std::string> &drugs,
                        const std::vector<double> &doses,
                        const std::vector<double> &qnet,
                        const std::map<std::string, int> &known) {
  if (drugs.size() != doses.size() || drugs.size() != qnet.size())
    throw std::runtime_error("drugs, doses and qnet differ in length");
  std::vector<RiskSample> samples;
  for (size_t i = 0; i < drugs.size(); ++i)
    samples.push_back({drugs[i], doses[i], qnet[i]});
  std::vector<RiskAtDose> out;
  if (Status fitted = classifyRisk(samples, known, out); !fitted.ok())
    throw std::runtime_error(fitted.message());
  py::list result;
  for (const RiskAtDose &r : out) {
    py::dict d;
    d["dose"] = r.dose;
    d["intercepts"] = r.fit.intercepts;
    d["slope"] = r.fit.slope;
    d["separated"] = r.fit.separated;
    d["training_error"] = r.trainingError;
    d["loocv_error_mean"] = r.crossErrorMean;
    d["predicted"] = r.predicted;
    d["loocv_predicted"] = r.crossPredicted;
    d["loocv_error"] = r.crossError;
    result.append(d);
  }
  return result;
}

} // namespace

void bindDrugStudy(py::module &m) {
  m.def("classify_risk", &classifyRiskPy, py::arg("drugs"), py::arg("doses"),
        py::arg("qnet"), py::arg("known"),
        "CiPA's torsade risk classification from qNet, per dose");
  m.def("run_drug_study", &runDrugStudyPy, py::arg("model"), py::arg("mapping"),
        py::arg("cipa"), py::arg("drugs"), py::arg("doses"), py::arg("samples"),
        py::arg("nM"), py::arg("beats"), py::arg("bcl"), py::arg("dt"),
        py::arg("stim"), py::arg("stim_duration"), py::arg("parameters"),
        py::arg("devices"), py::arg("threads"), py::arg("load_states"),
        py::arg("save_states"), py::arg("cache_dir") = "",
        py::arg("progress") = nullptr, py::arg("converge") = 0.0,
        py::arg("adaptive") = false, py::arg("max_dv_window") = 0,
        py::arg("stop_converged") = false, py::arg("grid_beats") = 2,
        py::arg("compiler") = "",
        "Runs a drug study (docs/drug-trials.md); the table as CSV text");
}
