//===- CellStoreTest.cpp - the host copy of a simulation's cells ----------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/Devices/Device.h"

#include <gtest/gtest.h>

#include <cstdint>

using namespace easyml::rt;

namespace {

/// A descriptor with 3 states, 1 hidden row, 2 externals, 2 parameters
/// and 1 flag (the fields the store reads).
easyml_model_desc fakeModel() {
  static const char *traces[] = {"a"};
  easyml_model_desc d{};
  d.num_states = 3;
  d.sv_size = 3;
  d.num_hidden = 1;
  d.sv_rows = 4;
  d.num_externals = 2;
  d.num_params = 2;
  d.num_flags = 1;
  d.num_traces = 1;
  d.trace_names = traces;
  return d;
}

TEST(CellStore, RowsAreAlignedAndPadded) {
  easyml_model_desc d = fakeModel();
  CellStore s(d, 100);
  EXPECT_EQ(s.stride(), 128);
  EXPECT_EQ(s.svRows(), 4);
  for (int64_t r = 0; r < 4; ++r)
    EXPECT_EQ(reinterpret_cast<uintptr_t>(s.sv(r)) % 64, 0u);
  EXPECT_EQ(s.sv(1) - s.sv(0), 128);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(s.ext(1)) % 64, 0u);
  EXPECT_EQ(s.extTable()[1], s.ext(1));
}

TEST(CellStore, PerCellParameters) {
  easyml_model_desc d = fakeModel();
  CellStore s(d, 10);
  EXPECT_EQ(s.numParams(), 3);
  EXPECT_EQ(s.paramRowTable(), nullptr) << "no row while all are shared";
  uint64_t v0 = s.paramLayoutVersion();
  double *row = s.makePerCell(2, 1.5);
  EXPECT_NE(s.paramLayoutVersion(), v0);
  ASSERT_NE(s.paramRowTable(), nullptr);
  EXPECT_EQ(s.paramRowTable()[2], row);
  EXPECT_EQ(s.paramRowTable()[0], nullptr);
  EXPECT_EQ(row[9], 1.5);
  EXPECT_EQ(s.numPerCell(), 1);
  EXPECT_EQ(s.bytesPerCell(kStateRows | kParamRows), (4 + 1) * 8);
  s.makeShared(2);
  EXPECT_EQ(s.paramRowTable(), nullptr);
}

TEST(CellRange, Arithmetic) {
  CellRange a{10, 20}, b{15, 30};
  EXPECT_EQ(a.intersect(b), (CellRange{15, 20}));
  EXPECT_TRUE(a.intersect(CellRange{20, 30}).empty());
  EXPECT_TRUE(a.contains(CellRange{12, 20}));
  EXPECT_FALSE(a.contains(b));
  EXPECT_EQ((CellRange{5, 5}), (CellRange{7, 7})) << "empty ranges are equal";
}

} // namespace
