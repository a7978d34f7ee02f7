//===- PopulationTest.cpp - sampled populations ---------------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/Core/Population.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

using namespace easyml::rt;

namespace {

easyml_model_desc fakeModel() {
  static const char *params[] = {"gNa", "gKr", "gCaL"};
  easyml_model_desc d{};
  d.num_params = 3;
  d.param_names = params;
  return d;
}

/// Mean over neighbouring rows of the largest relative difference of
/// their values: how alike the cells sharing a vector are.
double neighbourSpread(const Columns &t) {
  size_t n = t.values[0].size();
  double sum = 0;
  for (size_t i = 0; i + 1 < n; ++i) {
    double worst = 0;
    for (const auto &col : t.values)
      worst = std::max(worst,
                       std::fabs(col[i + 1] - col[i]) / std::fabs(col[i]));
    sum += worst;
  }
  return sum / static_cast<double>(n - 1);
}

Columns sample(bool grouped, uint64_t seed = 7) {
  easyml_model_desc d = fakeModel();
  Expected<Columns> t = samplePopulation(
      "gNa*lognormal(1,0.2),gKr*uniform(0.5,1.5),gCaL=normal(2,0.1)", seed, d,
      {10.0, 0.1, 1.0}, 4096, grouped);
  EXPECT_TRUE(t.ok()) << t.status().message();
  return t.ok() ? t.take() : Columns();
}

TEST(Population, GroupedIsTheSameSampleReordered) {
  Columns drawn = sample(false), grouped = sample(true);
  ASSERT_EQ(grouped.names, drawn.names);
  // Every cell of the grouped population is one drawn sample, whole.
  std::vector<std::vector<double>> a, b;
  for (size_t i = 0; i < 4096; ++i) {
    a.push_back({drawn.values[0][i], drawn.values[1][i], drawn.values[2][i]});
    b.push_back(
        {grouped.values[0][i], grouped.values[1][i], grouped.values[2][i]});
  }
  EXPECT_NE(a, b);
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  EXPECT_EQ(a, b);
}

TEST(Population, GroupedIsReproducible) {
  Columns x = sample(true), y = sample(true), z = sample(true, 8);
  EXPECT_EQ(x.values, y.values);
  EXPECT_NE(x.values, z.values);
}

TEST(Population, GroupedNeighboursAreAlike) {
  double drawn = neighbourSpread(sample(false));
  double grouped = neighbourSpread(sample(true));
  // Z-order over 3 parameters: neighbours differ several times less.
  EXPECT_LT(grouped * 3, drawn) << "grouped " << grouped << ", drawn "
                                << drawn;
}

TEST(Population, GroupingHandlesTiesAndOneRow) {
  Columns t;
  t.names = {"a", "b"};
  t.values = {{1, 1, 1}, {3, 2, 1}};
  groupSimilarRows(t);
  EXPECT_EQ(t.values[0], (std::vector<double>{1, 1, 1}));
  std::vector<double> b = t.values[1];
  std::sort(b.begin(), b.end());
  EXPECT_EQ(b, (std::vector<double>{1, 2, 3}));
  Columns one;
  one.names = {"a"};
  one.values = {{5}};
  groupSimilarRows(one);
  EXPECT_EQ(one.values[0], std::vector<double>{5});
}

} // namespace
