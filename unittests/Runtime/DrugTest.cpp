//===- DrugTest.cpp - drug block, CaTD and state files --------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/Drugs/DrugBlock.h"
#include "easyml/Runtime/Drugs/DrugStudy.h"
#include "easyml/Runtime/IO/PopulationState.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace easyml::rt;

namespace {
/// A Status as the tests read it: whether it succeeded, its message in
/// `error`.
bool succeeded(const Status &status, std::string &error) {
  error = status.message();
  return status.ok();
}
} // namespace

TEST(DrugBlock, HillFactor) {
  EXPECT_DOUBLE_EQ(hillFactor(0, 10, 1), 1.0);
  EXPECT_DOUBLE_EQ(hillFactor(10, 10, 1), 0.5);
  EXPECT_DOUBLE_EQ(hillFactor(20, 10, 2), 0.2);
}

TEST(DrugBlock, ParametersScaleAndBind) {
  ChannelMapping m;
  m.model = "m";
  m.channels = {{"ICaL", {"PCa"}}, {"hERG", {"GKr"}}};
  m.herg = {{"Kmax", "Kmax"}};
  m.concentration = "D";
  m.withDrug = {{"Kt", 3.5e-5}};
  Drug d;
  d.name = "x";
  d.hill = {{"ICaL", {100, 1}}, {"hERG", {5, 1}}};
  d.herg = {{"Kmax", 40}};
  std::map<std::string, double> base = {
      {"PCa", 2.0}, {"GKr", 0.1}, {"Kmax", 0}, {"Kt", 0}, {"D", 0}};
  std::map<std::string, double> out;
  std::string error;
  ASSERT_TRUE(succeeded(drugParameters(m, {&d, 1, 100}, base, out), error))
      << error;
  EXPECT_DOUBLE_EQ(out["PCa"], 1.0);
  // hERG binds: its conductance is left to the binding model.
  EXPECT_EQ(out.count("GKr"), 0u);
  EXPECT_DOUBLE_EQ(out["Kmax"], 40);
  EXPECT_DOUBLE_EQ(out["Kt"], 3.5e-5);
  EXPECT_DOUBLE_EQ(out["D"], 100);
  // Without binding parameters hERG is a Hill block of its conductance.
  m.herg.clear();
  ASSERT_TRUE(succeeded(drugParameters(m, {&d, 1, 5}, base, out), error))
      << error;
  EXPECT_DOUBLE_EQ(out["GKr"], 0.05);
  // A blocked channel the mapping lacks is an error naming it.
  m.channels.erase("ICaL");
  EXPECT_FALSE(succeeded(drugParameters(m, {&d, 1, 5}, base, out), error));
  EXPECT_NE(error.find("blocks ICaL"), std::string::npos) << error;
}

TEST(DrugStudy, CalciumDurations) {
  // Rest 1 for 10 ms, a linear rise to 11 over 10 ms, a linear fall to 1
  // over 80 ms (exact in binary), every 1 ms.
  std::vector<double> ca;
  for (int t = 0; t < 10; ++t)
    ca.push_back(1);
  for (int t = 0; t <= 10; ++t)
    ca.push_back(1 + t);
  for (int t = 1; t <= 80; ++t)
    ca.push_back(11 - 0.125 * t);
  double c50, c90;
  calciumDurations(ca, 1.0, c50, c90);
  // Above 90% of the rise (10) first at the peak, t = 20 (10 is not
  // above); at or below 6 at t = 60; the 90% level, 1 + 10 * (1 - 0.9),
  // is just below 2 in floating point, so at or below it first at t = 93.
  EXPECT_DOUBLE_EQ(c50, 60 - 20);
  EXPECT_DOUBLE_EQ(c90, 93 - 20);
  // No decay to 90%: NaN.
  ca.resize(70);
  calciumDurations(ca, 1.0, c50, c90);
  EXPECT_TRUE(std::isnan(c90));
}

namespace {

/// A made-up beat sampled every 1 ms: rest at -88 mV, an upstroke to
/// +40 mV at 10 ms, a plateau falling linearly to 0 mV at 250 ms, then a
/// linear fall to rest at 300 ms; with `bump`, Vm rises by 5 mV over
/// 270-275 ms (between 30% and 90% repolarisation). Its derivative by
/// differences.
void beat(bool bump, std::vector<double> &v, std::vector<double> &dv) {
  v.assign(500, -88);
  for (int k = 10; k < 500; ++k) {
    double t = k;
    v[k] = t <= 250   ? 40 - 40 * (t - 10) / 240
           : t <= 300 ? 0 - 88 * (t - 250) / 50
                      : -88;
    if (bump && t > 270 && t <= 280)
      v[k] += t <= 275 ? (t - 270) * 2.8 : (280 - t) * 2.8;
  }
  dv.assign(v.size(), 0);
  for (size_t k = 1; k < v.size(); ++k)
    dv[k] = v[k] - v[k - 1];
}

} // namespace

TEST(DrugStudy, CipaEadMeasure) {
  std::vector<double> v, dv;
  beat(false, v, dv);
  // Between 30% (1.6 mV, at 241 ms) and 90% repolarisation (-75.2 mV, at
  // 293 ms) Vm only falls: max_dv is the plateau's slower fall, -1/6.
  double plain = cipaMaxDv(v, dv, 1.0);
  EXPECT_NEAR(plain, -1.0 / 6, 1e-9);
  beat(true, v, dv);
  EXPECT_GT(cipaMaxDv(v, dv, 1.0), 0);
  // No depolarisation: NaN, as FDA's script leaves such beats out.
  std::vector<double> flat(500, -88), zero(500, 0);
  EXPECT_TRUE(std::isnan(cipaMaxDv(flat, zero, 1.0)));
  // Never repolarising by 30%: the window runs from the peak to the end.
  std::vector<double> stuck(500, 30), d(500, 0);
  stuck[0] = -88;
  stuck[1] = 32;
  stuck[400] = 31;
  d[400] = 1;
  EXPECT_EQ(cipaMaxDv(stuck, d, 1.0), 1);
}

TEST(PopulationState, RoundTripAndRefusals) {
  PopulationState s;
  s.model = "m";
  s.cells = 2;
  s.sv = {"a"};
  s.externals = {"Vm"};
  s.params = {"g"};
  s.step = 7;
  s.dt = 0.01;
  s.values = {1, -80, 0.5, 2, -81, 0.25};
  std::string bytes = serializeState(s);
  PopulationState back;
  Status read = parseState(bytes, back);
  ASSERT_TRUE(read.ok()) << read.message();
  EXPECT_EQ(back.values, s.values);
  EXPECT_EQ(back.step, 7);
  read = parseState(bytes.substr(0, bytes.size() - 3), back);
  EXPECT_NE(read.message().find("truncated"), std::string::npos);
  std::string flipped = bytes;
  flipped[flipped.size() / 2] ^= 4;
  read = parseState(flipped, back);
  EXPECT_NE(read.message().find("checksum"), std::string::npos);
  read = parseState("hello", back);
  EXPECT_FALSE(read.ok());
  EXPECT_EQ(read.message(), "not an EasyML state file");
}
