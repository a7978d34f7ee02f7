//===- easyml-drug.cpp - drug studies as one population run ---------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// Paces every (drug, dose) of a study, and control, as the cells of one
// simulation and prints the last beat's qNet and biomarkers per cell
// (docs/drug-trials.md):
//
//   easyml-drug --model M.model --mapping MAP.json --cipa DIR
//               --drugs dofetilide,verapamil --doses 1,2,3,4 [options]
//
//===----------------------------------------------------------------------===//

#include "FindCompiler.h"

#include "easyml/Runtime/Apps/CompilerProcess.h"
#include "easyml/Runtime/Apps/ExitStatus.h"
#include "easyml/Runtime/Apps/CommandLine.h"
#include "easyml/Runtime/Drugs/DrugStudy.h"
#include "easyml/Runtime/IO/OutputFile.h"
#include "easyml/Runtime/Drugs/RiskClassifier.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <unistd.h>

using namespace easyml;

namespace {

int error(const std::string &what, int code = rt::kExitFailed) {
  std::fprintf(stderr, "easyml-drug: error: %s\n", what.c_str());
  return code;
}

std::vector<std::string> split(const std::string &s, char sep = ',') {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string item; std::getline(ss, item, sep);)
    if (!item.empty())
      out.push_back(item);
  return out;
}

std::vector<rt::OptionSpec> optionSpecs() {
  using K = rt::ArgKind;
  return {
      {"model", 0, K::Required,
       "the model: an EasyML file (compiled with the study's qNet state) "
       "or a library compiled with --write-compile-args's arguments",
       ""},
      {"mapping", 0, K::Required,
       "channels to parameters, the hERG binding, the qNet currents "
       "(data/drugs/*.json)",
       ""},
      {"cipa", 0, K::Required,
       "FDA CiPA's drug data (IC50/Hill and hERG fits, uncertainty samples)",
       ""},
      {"drugs", 0, K::Required, "drugs to study: A,B,...", ""},
      {"doses", 0, K::Required, "doses, as multiples of each drug's Cmax", "1"},
      {"nM", 0, K::None, "--doses are concentrations in nM", ""},
      {"samples", 0, K::Required,
       "uncertainty samples: 0 (the optimal fit), 1-2000, 3,5,9-12", "0"},
      {"beats", 0, K::Required, "beats paced", "1000"},
      {"bcl", 0, K::Required, "cycle length (ms)", "2000"},
      {"converge", 0, K::Required,
       "stop pacing once every simulation's largest relative state change "
       "over a beat is below this (0: pace every beat)",
       "0"},
      {"stop-converged", 0, K::None,
       "with --converge: stop each simulation at the first beat its state "
       "change is below the tolerance, the others going on without it",
       ""},
      {"max-dv-window", 0, K::Required,
       "report the metrics of the beat with the largest max_dv among the "
       "last N beats, as FDA's AP_simulation.R does (N = 250 there); 0: "
       "the last beat",
       "0"},
      {"dt", 0, K::Required,
       "time step (ms) (default 0.01; with --adaptive the stimulus "
       "duration)",
       ""},
      {"adaptive", 0, K::None,
       "each simulation takes its own error-controlled steps (easyml-compile "
       "--adaptive): dt is then only the grid of the stimulus and of the "
       "metrics",
       ""},
      {"grid-beats", 0, K::Required,
       "with --adaptive: the last N beats (at least 2, and with "
       "--max-dv-window the window and the beat before it) are paced on "
       "the grid of dt, where the metrics are taken; in the beats before, "
       "outside the stimulus, each simulation's error control alone sets "
       "its steps (every beat with --converge)",
       "2"},
      {"stim", 0, K::Required, "stimulus strength", "80"},
      {"stim-dur", 0, K::Required, "stimulus duration (ms)", "0.5"},
      {"imp-par", 0, K::Required, "parameter changes for every cell", ""},
      {"devices", 0, K::Required, "devices (as easyml-bench)", "cpu"},
      {"threads", 0, K::Required, "CPU threads (0: the OpenMP default)", "0"},
      {"compile-args", 0, K::Required, "easyml-compile options", ""},
      {"out", 0, K::Required, "the results table (CSV)", ""},
      {"classify", 0, K::Optional,
       "classify the drugs' torsade risk from qNet as CiPA does (ordinal "
       "logistic regression per dose, leave-one-out cross validation) "
       "against this table of known classes (CSV: drug,CiPA; default: the "
       "--cipa checkout's AP_simulation/data/CiPA_training_drugs.csv)",
       ""},
      {"classify-out", 0, K::Required,
       "with --classify: the classification per dose and drug (CSV)", ""},
      {"save-states", 0, K::Required, "every cell's state at the end", ""},
      {"load-states", 0, K::Required, "start from a saved state", ""},
      {"write-compile-args", 0, K::Required,
       "write the easyml-compile arguments that add the study's qNet state "
       "(a response file: easyml-compile M.model @FILE --emit=shared -o "
       "M.so, for a machine without the compiler) and stop",
       ""},
      {"quiet", 'q', K::None, "no table", ""},
      {"help", 'h', K::None, "print this help", ""},
  };
}

bool studyOptions(const rt::CommandLine &a, rt::DrugStudyOptions &o,
                  std::string &error) {
  std::vector<std::string> errors;
  o.beats = a.integer("beats", errors);
  o.bcl = a.number("bcl", errors);
  o.stimStrength = a.number("stim", errors);
  o.stimDuration = a.number("stim-dur", errors);
  std::vector<std::string> flags = split(a.get("compile-args"), ' ');
  o.adaptive = a.has("adaptive") ||
               std::count(flags.begin(), flags.end(), "--adaptive");
  o.dt = a.has("dt") ? a.number("dt", errors)
         : o.adaptive ? o.stimDuration
                      : 0.01;
  o.converge = a.number("converge", errors);
  o.stopConverged = a.has("stop-converged");
  o.maxDvWindow = a.integer("max-dv-window", errors);
  o.gridBeats = a.integer("grid-beats", errors);
  o.simulation.threads = static_cast<int>(a.integer("threads", errors));
  if (!errors.empty())
    return error = errors.front(), false;
  if (!(o.converge >= 0))
    return error = "--converge must be >= 0", false;
  o.parameters = a.get("imp-par");
  o.loadStates = a.get("load-states");
  o.saveStates = a.get("save-states");
  o.simulation.devices = rt::DeviceSpec(a.get("devices"));
  if (!o.simulation.devices.valid())
    return error = "--devices: " + o.simulation.devices.error, false;
  return true;
}

void print(const std::vector<rt::DrugStudyRow> &rows, double seconds,
           int64_t beats, int threads) {
  std::printf("%-16s %6s %8s %12s %10s %9s %9s %9s %4s %12s\n", "drug",
              "sample", "dose", "conc. (nM)", "qNet", "APD50", "APD90",
              "max_dv", "EAD", "state chg.");
  for (const rt::DrugStudyRow &r : rows) {
    auto b = [&](int c) {
      return r.biomarkers.empty() ? NAN : r.biomarkers[c];
    };
    std::printf("%-16s %6lld %8g %12.4g %10.4f %9.2f %9.2f %9.3g %4s %12.3g\n",
                r.drug.c_str(), (long long)r.sample, r.dose, r.concentration,
                r.qnet, b(rt::kBioApd50), b(rt::kBioApd90), r.maxDv,
                r.maxDv > 0 ? "yes" : "no", r.stateChange);
  }
  int64_t least = beats, most = 0, paced = 0;
  for (const rt::DrugStudyRow &r : rows) {
    least = std::min(least, r.beats);
    most = std::max(most, r.beats);
    paced += r.beats;
  }
  if (!rows.empty() && least == most && most < beats)
    std::printf("steady state after %lld of %lld beats: every simulation's "
                "state changed by less than --converge over its last beat\n",
                (long long)most, (long long)beats);
  else if (!rows.empty() && least < most)
    std::printf("each simulation stopped at its steady state: after %lld to "
                "%lld of %lld beats, %lld beats paced in all\n",
                (long long)least, (long long)most, (long long)beats,
                (long long)paced);
  // The cores the study ran on: --threads, else all of them.
  unsigned cores = threads > 0
                       ? static_cast<unsigned>(threads)
                       : std::max(1u, std::thread::hardware_concurrency());
  std::printf("%zu cells x %lld beats in %.2f s: %.3f s of wall time and "
              "%.3f core-seconds per simulation\n",
              rows.size(), (long long)(rows.empty() ? beats : most), seconds,
              seconds / rows.size(), seconds * cores / rows.size());
}

/// The known risk classes of --classify; false with `e`.
bool riskClasses(const rt::CommandLine &a, std::map<std::string, int> &known,
                 std::string &e) {
  std::string path = a.get("classify");
  if (path.empty() && !a.has("cipa"))
    return e = "--classify needs a table of known classes (--classify=FILE) "
               "or --cipa DIR",
           false;
  if (path.empty())
    path = a.get("cipa") + "/AP_simulation/data/CiPA_training_drugs.csv";
  rt::Status read = rt::readRiskClasses(path, known);
  e = read.message();
  return read.ok();
}

/// Classifies the study's drugs and prints the result per dose.
bool classify(const rt::CommandLine &a, const std::vector<rt::DrugStudyRow> &rows,
              const std::map<std::string, int> &known, std::string &e) {
  std::vector<rt::RiskSample> samples;
  // As FDA's script: simulations that did not depolarise are left out.
  for (const rt::DrugStudyRow &r : rows)
    if (!std::isnan(r.maxDv))
      samples.push_back({r.drug, r.dose, r.qnet});
  std::vector<rt::RiskAtDose> doses;
  if (rt::Status fitted = rt::classifyRisk(samples, known, doses); !fitted.ok())
    return e = "--classify: " + fitted.message(), false;
  if (a.has("classify-out"))
    if (rt::Status written = rt::writeWholeFile(a.get("classify-out"),
                                                rt::riskCsv(doses, known));
        !written.ok())
      return e = written.message(), false;
  if (a.has("quiet"))
    return true;
  std::printf("\ntorsade risk from qNet (0 low, 1 intermediate, 2 high)\n"
              "%8s %12s %12s %10s %9s %9s\n",
              "dose", "intercepts", "", "slope", "training", "LOOCV");
  for (const rt::RiskAtDose &r : doses)
    std::printf("%8g %12.5g %12.5g %10.5g %9.3f %9.3f%s\n", r.dose,
                r.fit.intercepts[0],
                r.fit.intercepts.size() > 1 ? r.fit.intercepts[1] : NAN,
                r.fit.slope, r.trainingError, r.crossErrorMean,
                r.fit.separated ? "  (classes separated by qNet)" : "");
  std::printf("%-16s %6s", "drug", "known");
  for (const rt::RiskAtDose &r : doses)
    std::printf(" %8g", r.dose);
  std::printf("   (predicted / leave-one-out)\n");
  for (auto &[drug, c] : doses.front().predicted) {
    std::printf("%-16s %6d", drug.c_str(), known.at(drug));
    for (const rt::RiskAtDose &r : doses) {
      auto p = r.predicted.find(drug);
      auto cv = r.crossPredicted.find(drug);
      if (p == r.predicted.end())
        std::printf(" %8s", "-");
      else
        std::printf("      %d/%s", p->second,
                    cv->second < 0 ? "-" : std::to_string(cv->second).c_str());
    }
    std::printf("\n");
  }
  return true;
}

/// An argument quoted for a GNU-style response file (easyml-compile @FILE).
std::string responseFileArg(const std::string &arg) {
  std::string out = "\"";
  for (char c : arg) {
    if (c == '\\' || c == '"')
      out += '\\';
    out += c;
  }
  return out + "\"";
}

/// --write-compile-args FILE: the arguments that add the study's states
/// (and --adaptive, which they depend on), one per line, for easyml-compile
/// to build the study's model ahead.
int writeCompileArgs(const rt::CommandLine &a, const rt::ChannelMapping &m,
                     const rt::DrugStudyOptions &protocol) {
  rt::Expected<std::vector<std::string>> flags =
      rt::studyCompileFlags(m, protocol);
  if (!flags.ok())
    return error(flags.status().message(), rt::kExitInvalid);
  std::vector<std::string> study = flags.take();
  if (protocol.adaptive)
    study.push_back("--adaptive");
  std::string text;
  for (const std::string &arg : study)
    text += responseFileArg(arg) + "\n";
  if (rt::Status written =
          rt::writeWholeFile(a.get("write-compile-args"), text);
      !written.ok())
    return error(written.message());
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  rt::CommandLine args(optionSpecs());
  std::vector<std::string> errors;
  if (!args.parse(argc, argv, errors)) {
    for (const std::string &e : errors)
      error(e);
    return rt::kExitInvalid;
  }
  if (args.has("help")) {
    args.printHelp("easyml-drug",
                   "--model M --mapping MAP.json [--cipa DIR --drugs A,B] "
                   "[options]\nPaces control and every drug at every dose "
                   "as one population and prints the\nlast beat's qNet and "
                   "biomarkers (docs/drug-trials.md).");
    return 0;
  }
  for (const char *k : {"model", "mapping"})
    if (!args.has(k))
      return error(std::string("--") + k + " is required", rt::kExitInvalid);
  std::string e;
  rt::ChannelMapping mapping;
  if (rt::Status read = rt::readChannelMapping(args.get("mapping"), mapping);
      !read.ok())
    return error(read.message(), rt::kExitInvalid);
  std::vector<rt::Drug> drugs;
  std::vector<std::string> names = split(args.get("drugs"));
  if (!names.empty() && !args.has("cipa"))
    return error("--drugs needs --cipa DIR (the drugs' parameters)", rt::kExitInvalid);
  std::vector<int64_t> samples;
  if (!rt::parseSampleList(args.get("samples"), samples))
    return error("--samples: expected sample numbers and ranges (0: the "
                 "optimal fit; 1-2000), got '" +
                     args.get("samples") + "'",
                 rt::kExitInvalid);
  if (!names.empty())
    if (rt::Status read =
            rt::readCipaDrugs(args.get("cipa"), names, samples, drugs);
        !read.ok())
      return error(read.message(), rt::kExitInvalid);
  rt::DrugStudyOptions options;
  if (!studyOptions(args, options, e))
    return error(e, rt::kExitInvalid);
  if (args.has("write-compile-args"))
    return writeCompileArgs(args, mapping, options);
  std::vector<rt::DrugCell> cells;
  std::vector<double> doses;
  doses = args.numbers("doses", errors);
  if (!errors.empty())
    return error(errors.front(), rt::kExitInvalid);
  if (rt::Status made = rt::studyCells(drugs, doses, args.has("nM"), cells);
      !made.ok())
    return error(made.message(), rt::kExitInvalid);
  std::map<std::string, int> known;
  if (args.has("classify") && !riskClasses(args, known, e))
    return error(e, rt::kExitInvalid);
  if (args.has("classify-out") && !args.has("classify"))
    return error("--classify-out needs --classify", rt::kExitInvalid);
  std::vector<std::string> flags = split(args.get("compile-args"), ' ');
  if (options.adaptive)
    flags.push_back("--adaptive");
  rt::CompilerProcess models(tools::findCompiler(), "");
  auto loaded =
      rt::loadStudyModel(args.get("model"), mapping, options, flags, models);
  if (!loaded.ok())
    return error(loaded.status().message(), rt::exitStatus(loaded.status()));
  std::unique_ptr<rt::ModelHandle> model = loaded.take();
  bool bar = !args.has("quiet") && isatty(fileno(stderr));
  auto t0 = std::chrono::steady_clock::now();
  std::vector<rt::DrugStudyRow> rows;
  rt::Status run = rt::runDrugStudy(
      *model, mapping, cells, options, rows, [&](int64_t beat) {
        if (bar)
          std::fprintf(stderr, "\rbeat %lld of %lld", (long long)beat,
                       (long long)options.beats);
      });
  if (bar)
    std::fprintf(stderr, "\n");
  if (!run.ok())
    return error(run.message(), rt::exitStatus(run));
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
          .count();
  if (args.has("out"))
    if (rt::Status written =
            rt::writeWholeFile(args.get("out"), rt::drugStudyCsv(rows));
        !written.ok())
      return error(written.message());
  if (!args.has("quiet"))
    print(rows, seconds, options.beats, options.simulation.threads);
  if (args.has("classify") && !classify(args, rows, known, e))
    return error(e);
  return 0;
}
