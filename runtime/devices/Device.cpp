//===- Device.cpp - what every device shares ------------------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/Devices/Device.h"

using namespace easyml::rt;

Device::~Device() = default;

bool Device::computeCells(CellRange, std::string &error) {
  error = "device " + id_ + " cannot compute a wave in chunks";
  return false;
}
