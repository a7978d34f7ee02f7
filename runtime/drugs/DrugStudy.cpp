//===- DrugStudy.cpp - a drug study's model and its result table ---------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/Drugs/DrugStudy.h"
#include "easyml/Runtime/Simulation/Compile.h"

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

std::string easyml::rt::drugStudyCsv(const std::vector<DrugStudyRow> &rows) {
  std::string out = "drug,sample,dose,concentration_nM,qnet,apd50,apd90,"
                    "triangulation,dvdt_max,v_peak,v_rest,ca_amplitude,"
                    "catd50,catd90,ead,flags,apd90_change,state_change,"
                    "max_dv,cipa_ead,beats,converged_beat,metrics_beat,"
                    "ead_beats,steps\n";
  char buf[512];
  for (const DrugStudyRow &r : rows) {
    auto b = [&](int c) {
      return c < static_cast<int>(r.biomarkers.size()) ? r.biomarkers[c] : NAN;
    };
    int flags =
        std::isfinite(b(kBioFlags)) ? static_cast<int>(b(kBioFlags)) : 0;
    std::snprintf(
        buf, sizeof buf,
        "%s,%lld,%.10g,%.10g,%.10g,%.10g,%.10g,%.10g,%.10g,%.10g,"
        "%.10g,%.10g,%.10g,%.10g,%d,%d,%.10g,%.10g,%.10g,%d,%lld,"
        "%lld,%lld,%lld,%.10g\n",
        r.drug.c_str(), (long long)r.sample, r.dose, r.concentration, r.qnet,
        b(kBioApd50), b(kBioApd90), b(kBioTriangulation), b(kBioDvdtMax),
        b(kBioVPeak), b(kBioVRest), b(kBioCaAmplitude), r.catd50, r.catd90,
        (flags & 4) ? 1 : 0, flags, r.apd90Change, r.stateChange, r.maxDv,
        r.maxDv > 0 ? 1 : 0, (long long)r.beats, (long long)r.convergedBeat,
        (long long)r.beat, (long long)r.eadBeats, r.steps);
    out += buf;
  }
  return out;
}
