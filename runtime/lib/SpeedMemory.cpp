//===- SpeedMemory.cpp - device speeds remembered between runs ------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/Balancer.h"

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
  std::string tmp = path + ".tmp";
  FILE *f = std::fopen(tmp.c_str(), "w");
  if (!f) {
    error = "cannot write '" + path + "': " + std::strerror(errno);
    return false;
  }
  std::fprintf(f, "# easyml-bench --lb-memory: measured device speeds\n");
  std::fprintf(f, "model %s\n", model.c_str());
  for (auto &[id, v] : speeds)
    std::fprintf(f, "speed %s %.6g\n", id.c_str(), v);
  std::fclose(f);
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    error = "cannot write '" + path + "'";
    std::remove(tmp.c_str());
    return false;
  }
  return true;
}
