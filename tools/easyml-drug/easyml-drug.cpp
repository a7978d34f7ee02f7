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

#include "easyml/Runtime/DrugStudy.h"
#include "easyml/Runtime/OutputFile.h"

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

const char kUsage[] =
    "usage: easyml-drug --model M.model --mapping MAP.json --cipa DIR\n"
    "                   --drugs A,B,... [--doses 1,2,3,4] [--nM]\n"
    "                   [--samples 0 | 1-2000]\n"
    "                   [--beats 1000] [--bcl 2000] [--dt 0.01]\n"
    "                   [--stim 80] [--stim-dur 0.5] [--imp-par MODS]\n"
    "                   [--devices cpu] [--threads N] [--compile-args ARGS]\n"
    "                   [--out results.csv] [--save-states FILE]\n"
    "                   [--load-states FILE] [--write-model FILE]\n"
    "                   [--quiet]\n"
    "Paces control and every drug at every dose as one population and\n"
    "prints the last beat's qNet and biomarkers (docs/drug-trials.md).\n";

int error(const std::string &what, int code = 1) {
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

struct Args {
  std::map<std::string, std::string> v;
  bool nM = false, quiet = false;
  std::string get(const std::string &k, const std::string &def = "") const {
    auto it = v.find(k);
    return it == v.end() ? def : it->second;
  }
};

bool parse(int argc, char **argv, Args &a, int &code) {
  static const char *const valued[] = {
      "model", "mapping",  "cipa",     "drugs",   "doses",
      "beats", "bcl",      "dt",       "stim",    "stim-dur",
      "out",   "imp-par",  "devices",  "threads", "compile-args",
      "save-states", "load-states", "samples", "write-model"};
  for (int i = 1; i < argc; ++i) {
    std::string s = argv[i];
    if (s == "-h" || s == "--help")
      return std::fputs(kUsage, stdout), code = 0, false;
    if (s == "--nM" || s == "-q" || s == "--quiet") {
      (s == "--nM" ? a.nM : a.quiet) = true;
      continue;
    }
    bool known = false;
    for (const char *k : valued)
      known = known || s == std::string("--") + k;
    if (!known)
      return code = error("unknown option '" + s + "' (see --help)", 2),
             false;
    if (i + 1 >= argc)
      return code = error("option '" + s + "' needs a value", 2), false;
    a.v[s.substr(2)] = argv[++i];
  }
  for (const char *k : {"model", "mapping"})
    if (!a.v.count(k))
      return code = error(std::string("--") + k + " is required", 2), false;
  return true;
}

/// "0", "1-100", "3,5,9-12": sample numbers.
bool sampleList(const std::string &text, std::vector<int64_t> &out) {
  for (const std::string &item : split(text)) {
    char *end = nullptr;
    long long a = std::strtoll(item.c_str(), &end, 10), b = a;
    if (*end == '-')
      b = std::strtoll(end + 1, &end, 10);
    if (*end || a < 0 || b < a || b - a > 10000000)
      return false;
    for (long long k = a; k <= b; ++k)
      out.push_back(k);
  }
  return !out.empty();
}

/// A number option; false (with `error`) if it is not one.
bool number(const Args &a, const std::string &k, double &out,
            std::string &error) {
  if (!a.v.count(k))
    return true;
  char *end = nullptr;
  out = std::strtod(a.get(k).c_str(), &end);
  if (*end || !std::isfinite(out))
    return error = "--" + k + " expects a number, got '" + a.get(k) + "'",
           false;
  return true;
}

bool studyOptions(const Args &a, rt::DrugStudyOptions &o,
                  std::string &error) {
  double beats = o.beats, threads = 0;
  if (!number(a, "beats", beats, error) || !number(a, "bcl", o.bcl, error) ||
      !number(a, "dt", o.dt, error) ||
      !number(a, "stim", o.stimStrength, error) ||
      !number(a, "stim-dur", o.stimDuration, error) ||
      !number(a, "threads", threads, error))
    return false;
  o.beats = static_cast<int64_t>(beats);
  o.parameters = a.get("imp-par");
  o.loadStates = a.get("load-states");
  o.saveStates = a.get("save-states");
  o.simulation.devices = rt::DeviceSpec(a.get("devices", "cpu"));
  o.simulation.threads = static_cast<int>(threads);
  if (!o.simulation.devices.valid())
    return error = "--devices: " + o.simulation.devices.error, false;
  return true;
}

/// --doses: numbers, or false.
bool doseList(const std::string &text, std::vector<double> &doses,
              std::string &error) {
  for (const std::string &d : split(text)) {
    char *end = nullptr;
    doses.push_back(std::strtod(d.c_str(), &end));
    if (*end || !(doses.back() >= 0))
      return error = "--doses: '" + d + "' is not a dose", false;
  }
  return true;
}

void print(const std::vector<rt::DrugStudyRow> &rows, double seconds,
           int64_t beats) {
  std::printf("%-16s %6s %8s %12s %10s %9s %9s %6s %12s\n", "drug",
              "sample", "dose", "conc. (nM)", "qNet", "APD50", "APD90", "EAD",
              "state chg.");
  for (const rt::DrugStudyRow &r : rows) {
    auto b = [&](int c) { return r.biomarkers.empty() ? NAN : r.biomarkers[c]; };
    int flags = std::isfinite(b(rt::kBioFlags)) ? int(b(rt::kBioFlags)) : 0;
    std::printf("%-16s %6lld %8g %12.4g %10.4f %9.2f %9.2f %6s %12.3g\n",
                r.drug.c_str(), (long long)r.sample, r.dose, r.concentration, r.qnet,
                b(rt::kBioApd50), b(rt::kBioApd90), flags & 4 ? "yes" : "no",
                r.stateChange);
  }
  unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  std::printf("%zu cells x %lld beats in %.2f s: %.3f s of wall time and "
              "%.3f core-seconds per simulation\n",
              rows.size(), (long long)beats, seconds, seconds / rows.size(),
              seconds * cores / rows.size());
}

/// --write-model FILE: the model with the study's qNet state, to compile
/// elsewhere (easyml-compile ... -o M.so; then --model M.so).
int writeModel(const Args &a, const rt::ChannelMapping &m,
               const rt::DrugStudyOptions &protocol) {
  std::ifstream in(a.get("model"));
  std::stringstream text;
  text << in.rdbuf();
  std::string out, e;
  if (!in)
    return error("cannot read model '" + a.get("model") + "'");
  if (!rt::withQnet(text.str(), m, protocol, out, e) ||
      !rt::writeWholeFile(a.get("write-model"), out, e))
    return error(e);
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  Args args;
  int code = 0;
  if (!parse(argc, argv, args, code))
    return code;
  std::string e;
  rt::ChannelMapping mapping;
  if (!rt::readChannelMapping(args.get("mapping"), mapping, e))
    return error(e);
  std::vector<rt::Drug> drugs;
  std::vector<std::string> names = split(args.get("drugs"));
  if (!names.empty() && !args.v.count("cipa"))
    return error("--drugs needs --cipa DIR (the drugs' parameters)", 2);
  std::vector<int64_t> samples;
  if (!sampleList(args.get("samples", "0"), samples))
    return error("--samples: expected sample numbers and ranges (0: the "
                 "optimal fit; 1-2000), got '" + args.get("samples") + "'",
                 2);
  if (!names.empty() &&
      !rt::readCipaDrugs(args.get("cipa"), names, samples, drugs, e))
    return error(e);
  rt::DrugStudyOptions options;
  if (!studyOptions(args, options, e))
    return error(e, 2);
  if (args.v.count("write-model"))
    return writeModel(args, mapping, options);
  std::vector<rt::DrugCell> cells;
  std::vector<double> doses;
  if (!doseList(args.get("doses", "1"), doses, e) ||
      !rt::studyCells(drugs, doses, args.nM, cells, e))
    return error(e, 2);
  auto model = rt::loadStudyModel(args.get("model"), mapping, options,
                                  split(args.get("compile-args"), ' '), "", e);
  if (!model)
    return error(e);
  bool bar = !args.quiet && isatty(fileno(stderr));
  auto t0 = std::chrono::steady_clock::now();
  std::vector<rt::DrugStudyRow> rows;
  bool ok = rt::runDrugStudy(*model, mapping, cells, options, rows, e,
                             [&](int64_t beat) {
                               if (bar)
                                 std::fprintf(stderr, "\rbeat %lld of %lld",
                                              (long long)beat,
                                              (long long)options.beats);
                             });
  if (bar)
    std::fprintf(stderr, "\n");
  if (!ok)
    return error(e);
  double seconds = std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - t0)
                       .count();
  if (args.v.count("out") &&
      !rt::writeWholeFile(args.get("out"), rt::drugStudyCsv(rows), e))
    return error(e);
  if (!args.quiet)
    print(rows, seconds, options.beats);
  return 0;
}
