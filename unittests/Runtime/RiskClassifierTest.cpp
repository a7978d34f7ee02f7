//===- RiskClassifierTest.cpp - CiPA's ordinal regression on qNet ---------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// The expected values are R's: rms 6.5 (Debian r-cran-rms), lrm(CiPA ~
// qNet, penalty=0, tol=1e-10) on the same twelve drugs, as FDA's
// compute_TdP_error.R calls it (the qNet values are made up, with the
// classes overlapping so that the likelihood has a maximum). lrm stops once
// -2 log L changes by less than its tolerance, about 1e-6 of the way from
// the maximum along the flat direction the intercepts and slope share
// (qNet is far from 0): the fits agree to that, and their likelihoods to
// 1e-11 (ours the larger, evaluated at R's coefficients).
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/Drugs/RiskClassifier.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

using namespace easyml::rt;

namespace {
/// A Status as the tests read it: whether it succeeded, its message in
/// `error`.
bool succeeded(const Status &status, std::string &error) {
  error = status.message();
  return status.ok();
}
} // namespace

namespace {

const char *kDrugs[] = {"quinidine",  "bepridil",       "dofetilide",
                        "sotalol",    "chlorpromazine", "cisapride",
                        "terfenadine", "ondansetron",   "diltiazem",
                        "mexiletine", "ranolazine",     "verapamil"};
const int kClass[] = {2, 2, 2, 2, 1, 1, 1, 1, 0, 0, 0, 0};
const double kQnet[] = {58, 55.1, 62.0, 66, 71, 63, 60, 67, 76, 69, 73.8, 74.7};

TEST(RiskClassifier, FitIsRsLrm) {
  std::vector<double> x(kQnet, kQnet + 12);
  std::vector<int> y(kClass, kClass + 12);
  OrdinalFit fit;
  std::string error;
  ASSERT_TRUE(succeeded(fitOrdinal(x, y, 3, fit), error)) << error;
  EXPECT_FALSE(fit.separated);
  ASSERT_EQ(fit.intercepts.size(), 2u);
  EXPECT_NEAR(fit.intercepts[0], 30.1441429670, 1e-6 * 30);
  EXPECT_NEAR(fit.intercepts[1], 26.7988773606, 1e-6 * 27);
  EXPECT_NEAR(fit.slope, -0.4296233862, 1e-6 * 0.43);
  EXPECT_NEAR(-2 * fit.logLikelihood, 14.5853789259, 1e-9);
  const int rPredicts[] = {2, 2, 2, 1, 0, 1, 2, 1, 0, 1, 0, 0};
  for (int i = 0; i < 12; ++i)
    EXPECT_EQ(fit.predict(kQnet[i]), rPredicts[i]) << kDrugs[i];
}

TEST(RiskClassifier, LeaveOneOutIsRsLrm) {
  std::vector<RiskSample> samples;
  std::map<std::string, int> known;
  for (int i = 0; i < 12; ++i) {
    samples.push_back({kDrugs[i], 1, kQnet[i]});
    samples.push_back({kDrugs[i], 0, 70}); // control: not classified
    known[kDrugs[i]] = kClass[i];
  }
  samples.push_back({"control", 1, 70});
  std::vector<RiskAtDose> out;
  std::string error;
  ASSERT_TRUE(succeeded(classifyRisk(samples, known, out), error)) << error;
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].dose, 1);
  // Training: 4 of 12 one class off.
  EXPECT_NEAR(out[0].trainingError, 4.0 / 12, 1e-12);
  // Without verapamil, R's fit gives it P = (0.8458, 0.1475, 0.0066).
  std::vector<double> x, keep;
  std::vector<int> y;
  for (int i = 0; i < 11; ++i) {
    x.push_back(kQnet[i]);
    y.push_back(kClass[i]);
  }
  OrdinalFit without;
  ASSERT_TRUE(succeeded(fitOrdinal(x, y, 3, without), error)) << error;
  EXPECT_NEAR(without.slope, -0.4063208521, 1e-6 * 0.41);
  std::vector<double> p = without.probabilities(74.7);
  EXPECT_NEAR(p[0], 0.845846813, 1e-7);
  EXPECT_NEAR(p[1], 0.147539739, 1e-7);
  EXPECT_NEAR(p[2], 0.006613448, 1e-7);
  EXPECT_EQ(out[0].crossPredicted["verapamil"], 0);
  EXPECT_EQ(out[0].crossError["verapamil"], 0);
}

TEST(RiskClassifier, SeparatedClassesAreClassifiedAsTheyAre) {
  // No maximum: the fit is the last iterate, and it predicts every
  // training point's class (as lrm's fit does at steady state for CiPA's
  // training drugs at 1x Cmax).
  std::vector<double> x = {1, 2, 3, 4, 5, 6};
  std::vector<int> y = {2, 2, 1, 1, 0, 0};
  OrdinalFit fit;
  std::string error;
  ASSERT_TRUE(succeeded(fitOrdinal(x, y, 3, fit), error)) << error;
  EXPECT_TRUE(fit.separated);
  for (size_t i = 0; i < x.size(); ++i)
    EXPECT_EQ(fit.predict(x[i]), y[i]) << x[i];
  EXPECT_FALSE(succeeded(fitOrdinal({1, 2}, {0, 0}, 2, fit), error));
  EXPECT_EQ(error, "no drug of class 1");
}

TEST(RiskClassifier, ReadsCipaTable) {
  std::string path = ::testing::TempDir() + "risk.csv";
  std::ofstream(path) << "drug,therapeutic,CiPA\nquinidine,3237,2\n"
                         "verapamil,81,0\n";
  std::map<std::string, int> known;
  std::string error;
  ASSERT_TRUE(succeeded(readRiskClasses(path, known), error)) << error;
  EXPECT_EQ(known.at("quinidine"), 2);
  EXPECT_EQ(known.at("verapamil"), 0);
  std::ofstream(path) << "drug,CiPA\nquinidine,high\n";
  known.clear();
  EXPECT_FALSE(succeeded(readRiskClasses(path, known), error));
  EXPECT_EQ(error, path + ":2: a drug and a risk class 0, 1 or 2 expected");
  std::remove(path.c_str());
}

} // namespace
