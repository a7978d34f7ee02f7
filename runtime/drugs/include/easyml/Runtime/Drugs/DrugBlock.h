//===- DrugBlock.h - drugs as changes of model parameters -------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// A drug at a concentration acts on a model through its parameters:
//
// - conduction block of a channel, the Hill equation: every parameter the
//   channel maps to is multiplied by 1 / (1 + (D / IC50)^h);
// - dynamic hERG binding (CiPA's IKr-dynamic O'Hara-Rudy model, Dutta et
//   al. 2017): the drug's Kmax, Ku, n, halfmax and Vhalf, the concentration
//   D, and the constants the model takes with any drug (Kt).
//
// A ChannelMapping (docs/drug-trials.md; data/drugs/<model>.json) says
// which parameters a model's channels are, which variables qNet sums and
// which state is calcium. Drugs come from CiPA-format folders (the FDA
// repository's hERG_fitting/results and Hill_fitting/results, and its Cmax
// table) or from one CSV table.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_DRUGBLOCK_H
#define EASYML_RUNTIME_DRUGBLOCK_H

#include "easyml/Runtime/Support/Status.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace easyml::rt {

/// The channels of CiPA's drug data, in its column order.
const std::vector<std::string> &drugChannels();

struct ChannelMapping {
  std::string model;
  /// Channel ("INa", "INaL", "ICaL", "IK1", "IKs", "Ito", "hERG") to the
  /// parameters its block scales.
  std::map<std::string, std::vector<std::string>> channels;
  /// Dynamic hERG binding: drug parameter ("Kmax", "Ku", "n", "halfmax",
  /// "Vhalf") to model parameter; empty when the model has none (hERG is
  /// then a conduction block like the others).
  std::map<std::string, std::string> herg;
  /// The model parameter that holds the concentration (nM) for binding.
  std::string concentration;
  /// Model parameters set whenever a drug is present (CiPA's Kt).
  std::map<std::string, double> withDrug;
  /// The variables qNet integrates (Dutta 2017: INaL, ICaL, Ito, IKr, IKs,
  /// IK1), and the calcium state.
  std::vector<std::string> qnet;
  std::string calcium;
  /// Terms the pacing current adds to other equations where the exporter
  /// left it out (Myokit exports stimulate Vm only): equation (a state's
  /// "diff_X") to a term in which STIM stands for the current (negative
  /// depolarises), e.g. "-STIM * AFC / vmyo" for a potassium balance that
  /// carries the stimulus as CiPA's code does. Vm still gets the
  /// simulator's stimulus.
  std::map<std::string, std::string> stimulusInto;
};

/// Reads a mapping file; Invalid with "PATH:LINE:COLUMN: what".
Status readChannelMapping(const std::string &path, ChannelMapping &out);

/// One drug: its therapeutic concentration (nM; 0 when unknown, doses are
/// then concentrations), Hill parameters per channel (IC50 nM, h), and
/// hERG binding parameters (empty without).
struct Drug {
  std::string name;
  /// 0: the optimal fit; k >= 1: the k-th sample of the uncertainty
  /// tables.
  int64_t sample = 0;
  double cmax = 0;
  std::map<std::string, std::pair<double, double>> hill;
  std::map<std::string, double> herg;
};

/// Uncertainty sample numbers written "0", "1-100" or "3,5,9-12" (0: the
/// optimal fit); false when the text is not that or names none.
bool parseSampleList(const std::string &text, std::vector<int64_t> &out);

/// `names` from a CiPA-format folder, one Drug per name and sample: sample
/// 0 from `dir`/hERG_fitting/results/<drug>/pars.txt and
/// `dir`/Hill_fitting/results/<drug>/IC50_optimal.csv, sample k >= 1 from
/// row k of boot_pars.csv and IC50_samples.csv there; Cmax from
/// `dir`/AP_simulation/data/CiPA_training_drugs.csv. Invalid, naming the
/// file, the line and the column, for a missing or malformed one.
Status readCipaDrugs(const std::string &dir,
                     const std::vector<std::string> &names,
                     const std::vector<int64_t> &samples,
                     std::vector<Drug> &out);

/// The Hill factor: 1 / (1 + (conc / ic50)^h).
double hillFactor(double conc, double ic50, double h);

/// One cell of a study: a drug (null: control) at a concentration.
struct DrugCell {
  const Drug *drug = nullptr;
  double dose = 0, concentration = 0;
};

/// A study's cells: control, then every drug (and sample) at every dose,
/// `doses` multiples of the drug's Cmax (nM when `nM`). Invalid for a
/// negative dose or a drug without Cmax given in multiples of it.
Status studyCells(const std::vector<Drug> &drugs,
                  const std::vector<double> &doses, bool nM,
                  std::vector<DrugCell> &cells);

/// The parameter values of `cell` given the base values `base` (name to
/// value): what the drug scales or sets. Invalid, naming a mapped
/// parameter the model lacks or a channel the drug blocks that the mapping
/// does not name.
Status drugParameters(const ChannelMapping &m, const DrugCell &cell,
                      const std::map<std::string, double> &base,
                      std::map<std::string, double> &out);

} // namespace easyml::rt

#endif // EASYML_RUNTIME_DRUGBLOCK_H
