//===- RiskClassifier.h - torsade risk from qNet ---------------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// CiPA's classification of torsade de pointes risk (Li et al. 2019; FDA's
// AP_simulation/compute_TdP_error.R): at each dose, an ordinal logistic
// regression of the training drugs' known risk classes (0 low,
// 1 intermediate, 2 high) on their qNet, the proportional-odds model
//
//   P(class >= j | qNet) = 1 / (1 + exp(-(a_j + b qNet))),  j = 1..K-1,
//
// fitted by maximum likelihood (as R's rms::lrm does, without penalty); a
// drug's predicted class is the most probable one. Its training error is
// the mean |predicted - known| class over the simulations of the dose, and
// leave-one-out cross validation refits without each drug in turn and
// predicts that drug's simulations.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_RISKCLASSIFIER_H
#define EASYML_RUNTIME_RISKCLASSIFIER_H

#include "easyml/Runtime/Support/Status.h"

#include <map>
#include <string>
#include <vector>

namespace easyml::rt {

/// A fitted proportional-odds model.
struct OrdinalFit {
  /// a_1 .. a_{K-1} (decreasing), and b.
  std::vector<double> intercepts;
  double slope = 0;
  double logLikelihood = 0;
  int iterations = 0;
  /// The classes are separated by x: the likelihood has no maximum, and
  /// the fit is the last iterate (as R's lrm returns it), which
  /// classifies every training point as its class.
  bool separated = false;
  /// The class (0..K-1) of the largest probability at `x`.
  int predict(double x) const;
  /// P(class = k | x), k = 0..K-1.
  std::vector<double> probabilities(double x) const;
};

/// Fits P(y >= j | x) to the pairs (x[i], y[i]), y in 0..classes-1, by
/// Newton's method with step halving (fit.separated when the classes are
/// separated by x and there is no maximum). Failed when a class is missing
/// or the fit is not finite.
Status fitOrdinal(const std::vector<double> &x, const std::vector<int> &y,
                  int classes, OrdinalFit &fit);

/// One simulation of a study for the classification.
struct RiskSample {
  std::string drug;
  double dose = 0;
  double qnet = 0;
};

/// The classification at one dose.
struct RiskAtDose {
  double dose = 0;
  OrdinalFit fit;
  /// Mean |predicted - known| over the dose's simulations of known drugs.
  double trainingError = 0;
  /// Per drug (known class): the class the fit on every drug predicts for
  /// the drug's first simulation, and leave-one-out's (its fit without
  /// the drug) with its error over the drug's simulations; -1 where that
  /// fit failed.
  std::map<std::string, int> predicted, crossPredicted;
  std::map<std::string, double> crossError;
  /// Mean of crossError over the drugs.
  double crossErrorMean = 0;
};

/// Classifies every dose of `samples` (control and drugs without a known
/// class left out) against `known` (drug -> class, 0..2). Failed, naming
/// the dose whose fit failed.
Status classifyRisk(const std::vector<RiskSample> &samples,
                    const std::map<std::string, int> &known,
                    std::vector<RiskAtDose> &out);

/// The classification as CSV: one row per dose and drug (dose, the fit's
/// intercepts and slope, training error, mean leave-one-out error, drug,
/// known class, predicted class, leave-one-out class and error).
std::string riskCsv(const std::vector<RiskAtDose> &doses,
                    const std::map<std::string, int> &known);

/// Reads CiPA's table of known risks (CSV with columns `drug` and `CiPA`,
/// as AP_simulation/data/CiPA_training_drugs.csv); Invalid, naming the
/// file and line, when it cannot.
Status readRiskClasses(const std::string &path,
                       std::map<std::string, int> &out);

} // namespace easyml::rt

#endif // EASYML_RUNTIME_RISKCLASSIFIER_H
