//===- CheckpointTest.cpp - reading a checkpoint's run position -----------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/IO/Checkpoint.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <unistd.h>

using namespace easyml::rt;

namespace {

/// A file name of this process under the test's temporary folder.
std::string tempPath(const std::string &name) {
  return ::testing::TempDir() + "easyml-" + std::to_string(getpid()) + "-" +
         name;
}

/// A small checkpoint of two cells whose run line holds a tissue's cell
/// order, written to a temporary file.
std::string writeCheckpoint(const std::string &name) {
  PopulationState s;
  s.model = "m";
  s.cells = 2;
  s.sv = {"x"};
  s.externals = {"Vm"};
  s.dt = 0.01;
  s.values = {1, 2, 3, 4};
  RunPosition p;
  p.settings = "dt=0.01";
  p.client["tissue.cell_order_x"] = 2;
  p.client["tissue.cell_order_y"] = 1;
  s.run = p.json();
  std::string path = tempPath(name);
  std::ofstream(path, std::ios::binary) << serializeState(s);
  return path;
}

TEST(Checkpoint, PositionAloneMatchesTheWholeRead) {
  std::string path = writeCheckpoint("position.ck");
  PopulationState state;
  RunPosition whole, header;
  Status read = readCheckpoint(path, state, whole);
  ASSERT_TRUE(read.ok()) << read.message();
  read = readCheckpointPosition(path, header);
  ASSERT_TRUE(read.ok()) << read.message();
  EXPECT_EQ(header.settings, whole.settings);
  EXPECT_EQ(header.client, whole.client);
  EXPECT_EQ(header.client.at("tissue.cell_order_x"), 2);
  EXPECT_TRUE(header.data.empty());
  std::remove(path.c_str());
}

TEST(Checkpoint, PositionOfAStateFileOrOtherFileIsAnError) {
  PopulationState s;
  s.model = "m";
  s.cells = 1;
  s.sv = {"x"};
  s.dt = 0.01;
  s.values = {1};
  std::string state = tempPath("plain.sv");
  std::ofstream(state, std::ios::binary) << serializeState(s);
  RunPosition p;
  Status read = readCheckpointPosition(state, p);
  EXPECT_FALSE(read.ok());
  EXPECT_NE(read.message().find("a state file, not a checkpoint"),
            std::string::npos)
      << read.message();
  std::string other = tempPath("other.txt");
  std::ofstream(other) << "hello\n";
  read = readCheckpointPosition(other, p);
  EXPECT_FALSE(read.ok());
  EXPECT_NE(read.message().find("not an EasyML checkpoint"), std::string::npos)
      << read.message();
  read = readCheckpointPosition(other + ".missing", p);
  EXPECT_FALSE(read.ok());
  EXPECT_NE(read.message().find("cannot read checkpoint"), std::string::npos)
      << read.message();
  std::remove(state.c_str());
  std::remove(other.c_str());
}

} // namespace
