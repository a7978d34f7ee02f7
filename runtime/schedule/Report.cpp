//===- Report.cpp - what a simulation did, per device and wave ------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/Schedule/Report.h"

#include <cmath>
#include <sstream>

using namespace easyml::rt;

double RunReport::cellSteps() const {
  double n = 0;
  for (const DeviceReport &d : devices)
    n += d.cellSteps;
  return n;
}

double RunReport::rate() const {
  return waveSeconds > 0 ? cellSteps() / waveSeconds : 0;
}

double RunReport::meanImbalance() const {
  double sum = 0, weight = 0;
  for (const WaveRecord &w : waves) {
    double t = 0;
    for (double s : w.seconds)
      t = std::max(t, s);
    sum += w.imbalance * t;
    weight += t;
  }
  return weight > 0 ? sum / weight : 0;
}

namespace {
/// JSON text of a string.
std::string quote(const std::string &s) {
  std::string r = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\')
      r += '\\', r += c;
    else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      r += buf;
    } else
      r += c;
  }
  return r + "\"";
}
std::string num(double v) {
  if (!std::isfinite(v))
    return "null";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.12g", v);
  return buf;
}
std::string ranges(const std::vector<CellRange> &r) {
  std::string s = "[";
  for (size_t i = 0; i < r.size(); ++i)
    s += (i ? ", [" : "[") + std::to_string(r[i].begin) + ", " +
         std::to_string(r[i].end) + "]";
  return s + "]";
}
template <typename T, typename F>
std::string list(const std::vector<T> &v, F f) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i)
    s += (i ? ", " : "") + f(v[i]);
  return s + "]";
}
} // namespace

std::string RunReport::json(int indent) const {
  std::string pad(indent, ' ');
  std::ostringstream o;
  o << "{\n";
  auto field = [&](const std::string &name, const std::string &value,
                   bool last = false) {
    o << pad << "  " << quote(name) << ": " << value << (last ? "\n" : ",\n");
  };
  field("model", quote(model));
  field("cells", std::to_string(cells));
  field("steps", std::to_string(steps));
  field("dt", num(dt));
  field("output_seconds", num(outputSeconds));
  field("output_bytes", num(outputBytes));
  field("cell_steps", num(cellSteps()));
  field("wave_seconds", num(waveSeconds));
  field("wall_seconds", num(wallSeconds));
  field("cell_steps_per_second", num(rate()));
  field("lb_threshold", num(threshold));
  field("alignment", std::to_string(alignment));
  field("waves", std::to_string(totalWaves));
  field("waves_recorded", std::to_string(waves.size()));
  field("repartitions", std::to_string(repartitions.size()));
  field("bytes_moved", num(bytesMoved));
  field("phase_splits", std::to_string(phaseSplits));
  field("moves_refused", std::to_string(movesRefused));
  field("shared_waves", std::to_string(sharedWaves));
  field("cells_handed_over", std::to_string(cellsHandedOver));
  field("pair_cpus", list(pairCpus, quote));
  field("host_copy_seconds", num(hostCopySeconds));
  field("host_copy_bytes", num(hostCopyBytes));
  field("mean_imbalance", num(meanImbalance()));
  o << pad << "  \"devices\": [\n";
  for (size_t i = 0; i < devices.size(); ++i) {
    const DeviceReport &d = devices[i];
    o << pad << "    {\"id\": " << quote(d.id)
      << ", \"description\": " << quote(d.description)
      << ", \"cells\": " << d.cells << ", \"cell_steps\": " << num(d.cellSteps)
      << ", \"seconds\": " << num(d.seconds)
      << ", \"kernel_seconds\": " << num(d.kernelSeconds)
      << ", \"cell_steps_per_second\": " << num(d.rate())
      << ", \"waves\": " << d.waves
      << ", \"bytes_to_device\": " << num(d.bytesToDevice)
      << ", \"bytes_to_host\": " << num(d.bytesToHost) << "}"
      << (i + 1 < devices.size() ? ",\n" : "\n");
  }
  o << pad << "  ],\n";
  o << pad << "  \"dimensioning\": {\"enabled\": "
    << (dimensioning.enabled ? "true" : "false")
    << ", \"complete\": " << (dimensioning.complete ? "true" : "false")
    << ", \"chosen\": " << quote(dimensioning.chosen)
    << ", \"reason\": " << quote(dimensioning.reason)
    << ", \"max_windows\": " << dimensioning.maxWindows << ", \"windows\": "
    << list(dimensioning.windows,
            [](const DimensionWindow &w) {
              return "{\"config\": " + quote(w.config) +
                     ", \"step0\": " + std::to_string(w.step0) +
                     ", \"steps\": " + std::to_string(w.steps) +
                     ", \"cell_steps_per_second\": " + num(w.rate) + "}";
            })
    << "},\n";
  o << pad << "  \"repartition_log\": [";
  for (size_t i = 0; i < repartitions.size(); ++i) {
    const RepartitionRecord &r = repartitions[i];
    o << (i ? ",\n" : "\n") << pad << "    {\"step\": " << r.step
      << ", \"imbalance\": " << num(r.imbalance)
      << ", \"from\": " << ranges(r.from) << ", \"to\": " << ranges(r.to)
      << ", \"speeds\": " << list(r.speeds, num)
      << ", \"bytes\": " << num(r.bytes) << ", \"reason\": " << quote(r.reason);
    if (r.balancer)
      o << ", \"predicted_gain\": " << num(r.predictedGain)
        << ", \"gain_seconds\": " << num(r.gainSeconds)
        << ", \"move_seconds\": " << num(r.moveSeconds)
        << ", \"measured_gain\": " << num(r.measuredGain);
    o << "}";
  }
  o << (repartitions.empty() ? "],\n" : "\n" + pad + "  ],\n");
  o << pad << "  \"recoveries\": [";
  for (size_t i = 0; i < recoveries.size(); ++i) {
    const RecoveryRecord &r = recoveries[i];
    o << (i ? ", " : "") << "{\"device\": " << quote(r.device)
      << ", \"error\": " << quote(r.error) << ", \"step\": " << r.step
      << ", \"steps\": " << r.steps << ", \"cells\": " << r.cells
      << ", \"rescuer\": " << quote(r.rescuer)
      << ", \"seconds\": " << num(r.seconds);
    if (r.wholeStep)
      o << ", \"whole_step\": true";
    o << ", \"survivors\": " << quote(r.survivors) << "}";
  }
  o << "],\n";
  o << pad << "  \"wave_log\": [";
  for (size_t i = 0; i < waves.size(); ++i) {
    const WaveRecord &w = waves[i];
    o << (i ? ",\n" : "\n") << pad << "    {\"step0\": " << w.step0
      << ", \"steps\": " << w.nsteps << ", \"wall\": " << num(w.wallSeconds)
      << ", \"cells\": "
      << list(w.cells, [](int64_t c) { return std::to_string(c); })
      << ", \"seconds\": " << list(w.seconds, num)
      << ", \"imbalance\": " << num(w.imbalance)
      << ", \"repartition\": " << (w.repartition ? "true" : "false") << "}";
  }
  o << (waves.empty() ? "]\n" : "\n" + pad + "  ]\n");
  o << pad << "}";
  return o.str();
}

void RunReport::print(FILE *out) const {
  auto human = [](double bytes) {
    char buf[32];
    const char *unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (bytes >= 1024 && u < 4) {
      bytes /= 1024;
      ++u;
    }
    std::snprintf(buf, sizeof buf, u ? "%.1f %s" : "%.0f %s", bytes, unit[u]);
    return std::string(buf);
  };
  std::fprintf(out,
               "%-22s %.4g cell-steps/s (%lld waves, %zu repartition%s, "
               "mean imbalance %.1f%%)\n",
               "throughput", rate(), static_cast<long long>(totalWaves),
               repartitions.size(), repartitions.size() == 1 ? "" : "s",
               100 * meanImbalance());
  if (devices.size() > 1 || (devices.size() == 1 && devices[0].id != "cpu")) {
    std::fprintf(out, "  %-10s %10s %12s %10s %12s  %s\n", "device", "cells",
                 "cell-steps/s", "busy (s)", "transfers", "");
    for (const DeviceReport &d : devices)
      std::fprintf(out, "  %-10s %10lld %12.4g %10.4f %12s  %s\n", d.id.c_str(),
                   static_cast<long long>(d.cells), d.rate(), d.seconds,
                   human(d.bytesToDevice + d.bytesToHost).c_str(),
                   d.description.c_str());
  }
  if (!repartitions.empty())
    std::fprintf(out, "%-22s %zu, %s moved\n", "repartitions",
                 repartitions.size(), human(bytesMoved).c_str());
  if (sharedWaves > 0)
    std::fprintf(out, "%-22s %lld, %lld cells handed over where they met\n",
                 "shared waves", static_cast<long long>(sharedWaves),
                 static_cast<long long>(cellsHandedOver));
  if (sharedWaves > 0 && pairCpus.size() == 2)
    std::fprintf(out, "%-22s CPUs %s and %s\n", "shared waves bound to",
                 pairCpus[0].c_str(), pairCpus[1].c_str());
  for (const RecoveryRecord &r : recoveries) {
    if (r.wholeStep)
      std::fprintf(out,
                   "%-22s %s at step %lld: %s; the step ran again from the "
                   "host copy of its start on %s\n",
                   "device lost", r.device.c_str(),
                   static_cast<long long>(r.step), r.error.c_str(),
                   r.survivors.c_str());
    else if (r.cells > 0)
      std::fprintf(out,
                   "%-22s %s at step %lld: %s; its %lld cells recomputed "
                   "for steps %lld-%lld on %s, then split over the others\n",
                   "device lost", r.device.c_str(),
                   static_cast<long long>(r.step), r.error.c_str(),
                   static_cast<long long>(r.cells),
                   static_cast<long long>(r.step),
                   static_cast<long long>(r.step + r.steps), r.rescuer.c_str());
    else
      std::fprintf(out,
                   "%-22s %s at step %lld: %s; its cells split over the "
                   "others from their host copy\n",
                   "device lost", r.device.c_str(),
                   static_cast<long long>(r.step), r.error.c_str());
  }
  if (dimensioning.enabled) {
    std::fprintf(out, "%-22s %s%s (%zu of at most %d windows)\n",
                 "dimensioning", dimensioning.chosen.c_str(),
                 dimensioning.complete ? "" : " (search incomplete)",
                 dimensioning.windows.size(), dimensioning.maxWindows);
    for (const DimensionWindow &w : dimensioning.windows)
      std::fprintf(out, "  %-20s steps %lld-%lld: %.4g cell-steps/s\n",
                   w.config.c_str(), static_cast<long long>(w.step0),
                   static_cast<long long>(w.step0 + w.steps), w.rate);
    if (!dimensioning.reason.empty())
      std::fprintf(out, "  %s\n", dimensioning.reason.c_str());
  }
}
