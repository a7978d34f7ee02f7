//===- DrugStudy.cpp - a drug study's model and its result table ---------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/Drugs/DrugStudy.h"
#include "easyml/Runtime/Core/ModelProvider.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
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

namespace {

/// `text` with every whole-word `word` replaced by `with` (a word: a run
/// of letters, digits and underscores).
std::string replaceWord(const std::string &text, const std::string &word,
                        const std::string &with) {
  auto isWord = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  };
  std::string out;
  for (size_t i = 0; i < text.size();) {
    if (!isWord(text[i])) {
      out += text[i++];
      continue;
    }
    size_t j = i;
    while (j < text.size() && isWord(text[j]))
      ++j;
    std::string w = text.substr(i, j - i);
    out += w == word ? with : w;
    i = j;
  }
  return out;
}

} // namespace

static bool statementsOf(const ChannelMapping &m,
                         const DrugStudyOptions &protocol, std::string &out,
                         std::string &error) {
  if (m.qnet.empty()) {
    error = "the drug mapping of model " + m.model +
            " names no variables for qNet ('qnet')";
    return false;
  }
  out.clear();
  if (!m.stimulusInto.empty())
    out += "easyml_pacing_current = " + stimulusExpression(protocol) + "; ";
  for (const auto &[eq, term] : m.stimulusInto)
    out += eq + " += " + replaceWord(term, "STIM", "easyml_pacing_current") +
           "; ";
  std::string sum;
  for (const std::string &v : m.qnet)
    sum += (sum.empty() ? "" : " + ") + v;
  out += std::string(kQnetState) + "_init = 0; diff_" + kQnetState + " = " +
         sum + ";";
  return true;
}

Status easyml::rt::studyStatements(const ChannelMapping &m,
                                   const DrugStudyOptions &protocol,
                                   std::string &out) {
  std::string error;
  if (!statementsOf(m, protocol, out, error))
    return Status::invalid(error);
  return Status();
}

Expected<std::vector<std::string>>
easyml::rt::studyCompileFlags(const ChannelMapping &m,
                              const DrugStudyOptions &protocol) {
  std::string statements;
  if (Status made = studyStatements(m, protocol, statements); !made.ok())
    return made;
  return std::vector<std::string>{"--add-statements=" + statements};
}

Expected<std::unique_ptr<ModelHandle>> easyml::rt::loadStudyModel(
    const std::string &modelPath, const ChannelMapping &m,
    const DrugStudyOptions &protocol, const std::vector<std::string> &flags,
    ModelProvider &models) {
  // A library compiled before (with the qNet state; runDrugStudy checks).
  if (isModelLibrary(modelPath))
    return models.load({modelPath, flags});
  std::vector<std::string> all = flags;
  Expected<std::vector<std::string>> study = studyCompileFlags(m, protocol);
  if (!study.ok())
    return study.status();
  all.insert(all.end(), study->begin(), study->end());
  auto loaded = models.load({modelPath, all});
  if (!loaded.ok())
    return loaded.status().withContext(
        "model " + m.model + " with the study's qNet state (the drug "
        "mapping's 'qnet' and 'stimulus_into' variables): ");
  return loaded;
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
