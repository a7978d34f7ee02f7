//===- SpeedMemory.cpp - device speeds remembered between runs ------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/Schedule/Balancer.h"
#include "easyml/Runtime/IO/OutputFile.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

using namespace easyml::rt;

// The file: "model <name>" then "speed <device id> <cell-steps/s>" lines.
bool easyml::rt::readSpeedMemory(const std::string &path,
                                 const std::string &model,
                                 std::map<std::string, double> &speeds,
                                 std::string &error) {
  std::ifstream in(path);
  if (!in)
    return true; // nothing remembered yet
  std::string line, word, id;
  bool same = false;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    std::stringstream ss(line);
    if (!(ss >> word) || word[0] == '#')
      continue;
    if (word == "model") {
      ss >> id;
      same = id == model;
      continue;
    }
    double v = 0;
    if (word != "speed" || !(ss >> id >> v) || !(v > 0)) {
      error = path + ":" + std::to_string(n) +
              ": expected 'model <name>' or 'speed <device> <cell-steps/s>', "
              "got '" +
              line + "'";
      return false;
    }
    if (same)
      speeds[id] = v;
  }
  return true;
}

bool easyml::rt::writeSpeedMemory(const std::string &path,
                                  const std::string &model,
                                  const std::map<std::string, double> &measured,
                                  std::string &error) {
  // Keep what is remembered of devices this run did not measure.
  std::map<std::string, double> speeds;
  if (!readSpeedMemory(path, model, speeds, error))
    return false;
  for (auto &[id, v] : measured)
    speeds[id] = v;
  std::ostringstream text;
  text << "# easyml-bench --lb-memory: measured device speeds\n";
  text << "model " << model << "\n";
  char value[64];
  for (auto &[id, v] : speeds) {
    std::snprintf(value, sizeof value, "%.6g", v);
    text << "speed " << id << " " << value << "\n";
  }
  Status written = writeWholeFile(path, text.str());
  error = written.message();
  return written.ok();
}
