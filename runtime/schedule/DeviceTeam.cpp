//===- DeviceTeam.cpp - the devices of a run and the cells each holds ----===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/Schedule/DeviceTeam.h"
#include "easyml/Runtime/Schedule/Balancer.h"
#include "easyml/Runtime/Support/Clock.h"

#include <algorithm>

using namespace easyml::rt;

namespace {

/// `a` minus `b`: up to two ranges.
std::vector<CellRange> minus(CellRange a, CellRange b) {
  std::vector<CellRange> out;
  if (a.empty())
    return out;
  CellRange x = a.intersect(b);
  if (x.empty()) {
    out.push_back(a);
    return out;
  }
  if (a.begin < x.begin)
    out.push_back({a.begin, x.begin});
  if (x.end < a.end)
    out.push_back({x.end, a.end});
  return out;
}

} // namespace

DeviceTeam::DeviceTeam(const easyml_model_desc &desc, CellStore &store,
                       RunReport &report)
    : desc_(desc), store_(store), report_(report) {
  counters.assign(desc.num_counters, 0);
}

Status DeviceTeam::adopt(DeviceSet set) {
  set_ = std::move(set);
  size_t n = set_.devices.size();
  ranges.assign(n, {});
  speeds.assign(n, 0.0);
  lost.assign(n, 0);
  hostCopy.assign(n, 0);
  for (auto &device : set_.devices) {
    std::string err;
    if (!device->bind(store_, err))
      return Status::failed(device->description() + ": " + err);
  }
  return Status::success();
}

std::vector<int> DeviceTeam::active() const {
  std::vector<int> a;
  for (int i = 0; i < size(); ++i)
    if (!ranges[i].empty())
      a.push_back(i);
  return a;
}

Device *DeviceTeam::firstActive() const {
  for (int i = 0; i < size(); ++i)
    if (!ranges[i].empty())
      return set_.devices[i].get();
  return set_.devices.empty() ? nullptr : set_.devices.front().get();
}

bool DeviceTeam::fail(const Device &device, const std::string &what) {
  if (failure_.empty()) {
    failure_ = device.description() + ": " + what;
    failedCall_ = what;
    for (int i = 0; i < size(); ++i)
      if (set_.devices[i].get() == &device)
        failedIndex_ = i;
  }
  return false;
}

void DeviceTeam::clearFailure() {
  failure_.clear();
  failedCall_.clear();
  failedIndex_ = -1;
}

bool DeviceTeam::fail(const std::string &what) {
  if (failure_.empty())
    failure_ = what;
  return false;
}

bool DeviceTeam::refresh(const std::vector<int> &act) {
  std::string err;
  for (int i : act) {
    Device &device = *set_.devices[i];
    if (device.deviceStale) {
      // Externals too where the waves keep them on the device (they do
      // not upload the host's): the host wrote those as well.
      unsigned rows = kStateRows | (device.externalsOnDevice || keepExternals
                                        ? kExternalRows
                                        : 0);
      device.externalsOnDevice = false;
      if (!device.upload(device.range(), rows, err))
        return fail(device, err);
      device.deviceStale = false;
    }
    if (paramValuesStale_ && !device.upload(device.range(), kParamRows, err))
      return fail(device, err);
  }
  paramValuesStale_ = false;
  return true;
}

bool DeviceTeam::syncStates() {
  if (!usable())
    return false;
  for (int i = 0; i < size(); ++i) {
    Device &device = *set_.devices[i];
    if (lost[i])
      continue;
    unsigned newer = (device.hostStale ? kStateRows : 0) |
                     (device.externalsOnDevice ? kExternalRows : 0);
    if (!newer)
      continue;
    std::string err;
    if (!device.download(device.range(), newer, err))
      return fail(device, err);
    device.hostStale = device.externalsOnDevice = false;
  }
  return true;
}

bool DeviceTeam::syncExternals() {
  if (!usable())
    return false;
  std::string err;
  for (int i = 0; i < size(); ++i) {
    Device &device = *set_.devices[i];
    if (lost[i] || !device.externalsOnDevice)
      continue;
    if (!device.download(device.range(), kExternalRows, err))
      return fail(device, err);
    device.externalsOnDevice = false;
  }
  return true;
}

void DeviceTeam::statesWritten() {
  for (auto &device : set_.devices)
    if (!device->sharesHostStore())
      device->deviceStale = true;
}

MoveResult DeviceTeam::move(const std::vector<CellRange> &next,
                            const std::string &why, double imbalance,
                            int64_t atStep) {
  double t0 = monotonicSeconds();
  double before = 0;
  for (auto &device : set_.devices)
    before += device->bytesToDevice + device->bytesToHost;
  MoveResult result;
  std::string err;
  auto failed = [&](const Device &device) {
    fail(device, err);
    result.ok = false;
    return result;
  };
  // Cells leaving a device come to the host first (if it holds them newer).
  for (int i = 0; i < size(); ++i) {
    Device &device = *set_.devices[i];
    if (lost[i])
      continue;
    // Biomarker accumulators are newest on the device after any wave.
    if (bio && !device.sharesHostStore())
      for (CellRange r : minus(ranges[i], next[i]))
        if (!device.download(r, kBioRows, err))
          return failed(device);
    unsigned newer = (device.hostStale ? kStateRows : 0) |
                     (device.externalsOnDevice ? kExternalRows : 0);
    if (!newer)
      continue;
    for (CellRange r : minus(ranges[i], next[i]))
      if (!device.download(r, newer, err))
        return failed(device);
    if (next[i].empty())
      device.hostStale = false;
  }
  for (int i = 0; i < size(); ++i) {
    Device &device = *set_.devices[i];
    if (lost[i])
      continue;
    bool ok = device.own(next[i], err);
    // Externals go too: waves that keep them on the device upload none.
    if (ok && !device.deviceStale)
      for (CellRange r : minus(next[i], ranges[i]))
        ok = ok &&
             device.upload(r, kStateRows | kExternalRows | kParamRows, err);
    if (!ok) {
      result.ok = false;
      result.failedDevice = i;
      result.error = err;
      return result;
    }
  }
  if (bio)
    for (int i = 0; i < size(); ++i)
      for (CellRange r :
           lost[i] ? std::vector<CellRange>{} : minus(next[i], ranges[i]))
        if (!set_.devices[i]->upload(r, kBioRows, err))
          return failed(*set_.devices[i]);
  double after = 0;
  for (auto &device : set_.devices)
    after += device->bytesToDevice + device->bytesToHost;
  RepartitionRecord rec;
  rec.step = atStep;
  rec.imbalance = imbalance;
  rec.from = ranges;
  rec.to = next;
  rec.speeds = speeds;
  rec.bytes = after - before;
  rec.reason = why;
  // The fastest move seen: one slowed by another process on a shared
  // machine says little about the next (and would refuse every split).
  if (rec.bytes > 0) {
    double perByte = (monotonicSeconds() - t0) / rec.bytes;
    moveSecondsPerByte = moveSecondsPerByte > 0
                             ? std::min(moveSecondsPerByte, perByte)
                             : perByte;
  }
  report_.repartitions.push_back(rec);
  report_.bytesMoved += rec.bytes;
  ranges = next;
  return result;
}

std::vector<CellRange> DeviceTeam::splitFor(const std::vector<int> &act) const {
  // Measured speeds; an unmeasured device is assumed as fast as the mean
  // of the measured ones (an even split when none is).
  double known = 0;
  int n = 0;
  for (int i : act)
    if (speeds[i] > 0) {
      known += speeds[i];
      ++n;
    }
  // In the order the slabs have now (a tissue's balancer may have put
  // them in another than the devices'), devices without cells after.
  std::vector<size_t> order(act.size());
  for (size_t k = 0; k < order.size(); ++k)
    order[k] = k;
  auto range = [&](size_t k) {
    return static_cast<size_t>(act[k]) < ranges.size() ? ranges[act[k]]
                                                       : CellRange{};
  };
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    CellRange ra = range(a), rb = range(b);
    if (ra.empty() != rb.empty())
      return rb.empty();
    if (!ra.empty() && ra.begin != rb.begin)
      return ra.begin < rb.begin;
    return a < b;
  });
  std::vector<double> s;
  for (size_t k : order) {
    int i = act[k];
    s.push_back(speeds[i] > 0 ? speeds[i] : (n ? known / n : 1.0));
  }
  std::vector<CellRange> split = splitCells(store_.cells(), s, align);
  std::vector<CellRange> out(act.size());
  for (size_t k = 0; k < order.size(); ++k)
    out[order[k]] = split[k];
  return out;
}
