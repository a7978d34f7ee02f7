//===- ParamsTest.cpp - parameters, set and derived -----------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/Core/Params.h"
#include "easyml/Runtime/Devices/Device.h"

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

namespace {

// a (free), b = 3 * a, c = b + f (derived), flag f (cases X = 0, Y = 1).
// Kernels read c and f; a and b act through what is computed from them.
void deriveABC(double *p, const int64_t *keep) {
  if (!keep[1])
    p[1] = 3 * p[0];
  if (!keep[2])
    p[2] = p[1] + p[3];
}

const easyml_model_desc &fakeModel() {
  static const char *names[] = {"a", "b", "c"};
  static const double defaults[] = {2, 6, 6};
  static const char *flags[] = {"f"};
  static const double flagDefaults[] = {0};
  static const char *cases[] = {"X|Y"};
  static const double caseValues[] = {0, 1};
  static const double *flagValues[] = {caseValues};
  static const int64_t derived[] = {1, 2};
  static const char *formulas[] = {"3 * a", "b + f"};
  static const int64_t offsets[] = {0, 1, 3};
  static const int64_t reads[] = {0, 1, 3};
  static const int64_t read[] = {0, 0, 1, 1};
  static easyml_model_desc d{};
  d.name = "abc";
  d.num_states = 1;
  d.sv_size = 1;
  d.sv_rows = 1;
  d.num_params = 3;
  d.param_names = names;
  d.param_defaults = defaults;
  d.num_flags = 1;
  d.flag_names = flags;
  d.flag_defaults = flagDefaults;
  d.flag_cases = cases;
  d.flag_values = flagValues;
  d.num_derived_params = 2;
  d.derived_params = derived;
  d.derived_formulas = formulas;
  d.derived_read_offsets = offsets;
  d.derived_reads = reads;
  d.param_read = read;
  d.derive_params = deriveABC;
  return d;
}

TEST(ParamSet, DerivedFollowWhatTheyRead) {
  ParamSet ps(fakeModel());
  EXPECT_FALSE(ps.isDerived(0));
  EXPECT_TRUE(ps.isDerived(1) && ps.isDerived(2));
  EXPECT_EQ(ps.formula(2), "b + f");
  EXPECT_EQ(ps.reads(2), (std::vector<int64_t>{1, 3}));
  ps.set(0, 4);
  EXPECT_EQ(ps.value(1), 12);
  EXPECT_EQ(ps.value(2), 12);
  std::string error;
  ASSERT_TRUE(succeeded(ps.modify("flags=Y"), error)) << error;
  EXPECT_EQ(ps.value(2), 13);
}

TEST(ParamSet, TheUsersValueWinsAndItsDependentsFollowIt) {
  ParamSet ps(fakeModel());
  std::string error;
  ASSERT_TRUE(succeeded(ps.modify("b=1"), error)) << error;
  ASSERT_TRUE(succeeded(ps.modify("a=10"), error)) << error;
  EXPECT_EQ(ps.value(1), 1);
  EXPECT_EQ(ps.value(2), 1);
  ps.reset(1);
  EXPECT_EQ(ps.value(1), 30) << "back to following its definition";
  EXPECT_EQ(ps.value(2), 30);
}

TEST(ParamSet, RelativeChangesOfDerivedApplyAfterTheirBases) {
  ParamSet ps(fakeModel());
  std::string error;
  std::vector<std::string> log;
  // Given in either order: b doubles the value a*2 gives.
  ASSERT_TRUE(succeeded(ps.modify("b*2,a*2", &log), error)) << error;
  EXPECT_EQ(ps.value(0), 4);
  EXPECT_EQ(ps.value(1), 24);
  EXPECT_EQ(ps.value(2), 24);
  ASSERT_EQ(log.size(), 2u);
  EXPECT_EQ(log[0], "a modifier: *2 value: 4");
  EXPECT_EQ(log[1], "b modifier: *2 value: 24");
}

TEST(ParamSet, BadModifiersChangeNothing) {
  ParamSet ps(fakeModel());
  std::string error;
  EXPECT_FALSE(succeeded(ps.modify("a=3,nope=1"), error));
  EXPECT_NE(error.find("Unrecognized parameter 'nope'"), std::string::npos);
  EXPECT_EQ(ps.value(0), 2);
  EXPECT_FALSE(ps.isSet(0));
  EXPECT_FALSE(succeeded(ps.modify("a=3,b/0"), error));
  EXPECT_EQ(error, "parameter modifier 'b/0' makes b non-finite");
  EXPECT_EQ(ps.value(0), 2);
  EXPECT_EQ(ps.value(1), 6);
}

TEST(ParamSet, PerCellDependents) {
  ParamSet ps(fakeModel());
  std::vector<bool> perCell(4, false);
  perCell[0] = true;
  EXPECT_EQ(ps.perCellDependents(perCell), (std::vector<int64_t>{1, 2}));
  perCell[0] = false;
  perCell[3] = true; // the flag: only c reads it
  EXPECT_EQ(ps.perCellDependents(perCell), (std::vector<int64_t>{2}));
  ps.set(2, 5); // c set: nothing follows
  EXPECT_TRUE(ps.perCellDependents(perCell).empty());
}

TEST(ParamSet, SettingsThatChangeNothingAreReported) {
  ParamSet ps(fakeModel());
  std::vector<bool> none(4, false);
  EXPECT_TRUE(ps.unusedSettings(none).empty());
  ps.set(0, 3);
  EXPECT_TRUE(ps.unusedSettings(none).empty()) << "a reaches c through b";
  ps.set(1, 3);
  std::vector<std::string> w = ps.unusedSettings(none);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0], "parameter 'a' is set but changes nothing: no kernel "
                  "reads it and 'b', computed from it, is set too");
  // b per cell instead of shared: the same.
  ps.reset(1);
  std::vector<bool> bRows(4, false);
  bRows[1] = true;
  EXPECT_EQ(ps.unusedSettings(bRows).size(), 1u);
}

TEST(ParamSet, DerivedRowsAreComputedCellByCell) {
  const easyml_model_desc &d = fakeModel();
  ParamSet ps(d);
  CellStore store(d, 3);
  double *a = store.makePerCell(0, 2);
  a[1] = 5;
  a[2] = 7;
  std::vector<bool> rows(4, false);
  rows[0] = true;
  std::vector<int64_t> derived;
  EXPECT_TRUE(updateDerivedRows(ps, store, rows, derived));
  EXPECT_EQ(derived, (std::vector<int64_t>{1, 2}));
  ASSERT_TRUE(store.perCell(1) && store.perCell(2));
  EXPECT_EQ(store.paramRow(1)[0], 6);
  EXPECT_EQ(store.paramRow(1)[1], 15);
  EXPECT_EQ(store.paramRow(2)[2], 21);
  // c set for all: its row goes, b's stays.
  ps.set(2, 1);
  EXPECT_TRUE(updateDerivedRows(ps, store, rows, derived));
  EXPECT_EQ(derived, (std::vector<int64_t>{1}));
  EXPECT_FALSE(store.perCell(2));
  EXPECT_EQ(store.paramRow(1)[2], 21);
}

} // namespace
