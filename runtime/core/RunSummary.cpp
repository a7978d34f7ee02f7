//===- RunSummary.cpp - the table and the JSON report of a run ------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/Core/RunSummary.h"
#include "easyml/Runtime/IO/OutputFile.h"
#include "easyml/ABI/ABI.h"

#include <cerrno>
#include <cstdarg>
#include <cstdlib>
#include <cstring>

using namespace easyml::rt;

namespace {

std::string format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
std::string format(const char *fmt, ...) {
  char buffer[512];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(buffer, sizeof buffer, fmt, args);
  va_end(args);
  return buffer;
}

void row(FILE *out, const char *name, double seconds) {
  std::fprintf(out, "%-22s %10.4f s\n", name, seconds);
}

} // namespace

double RunSummary::cellStepsPerSecond() const {
  return computeSeconds > 0
             ? static_cast<double>(steps) * cells / computeSeconds
             : 0;
}

void RunSummary::print(FILE *out) const {
  bool oneProcess = !acrossRanks;
  std::fprintf(out,
               "\n%-22s %s\n%-22s %s\n%-22s %lld\n%-22s %lld (dt %g ms, %lld "
               "%s)\n",
               "model", model.c_str(), "variant", variant.c_str(), "cells",
               static_cast<long long>(cells), "steps",
               static_cast<long long>(steps), dt,
               static_cast<long long>(oneProcess ? waves : epochs),
               oneProcess ? "waves" : "epochs");
  if (adaptiveSteps >= 0 && cells > 0)
    std::fprintf(out, "%-22s %.4g per cell (%.3g per ms; dt alone: %.3g)\n",
                 "adaptive sub-steps", adaptiveSteps / cells,
                 steps > 0 ? adaptiveSteps / cells / (steps * dt) : 0.0,
                 dt > 0 ? 1.0 / dt : 0.0);
  if (oneProcess)
    std::fprintf(out, "%-22s %d\n", "threads", threads);
  else
    std::fprintf(out, "%-22s %d\n", "ranks", ranks);
  if (oneProcess && !cpuOnly)
    std::fprintf(out, "%-22s %s\n", oneDevice ? "device" : "devices",
                 device.c_str());
  if (compiled)
    row(out, compileCached ? "compile (cached)" : "compile", compileSeconds);
  row(out, "load", loadSeconds);
  if (oneProcess) {
    row(out, "tables", tablesSeconds);
    row(out, "init", initSeconds);
  }
  row(out, "compute", computeSeconds);
  row(out, "output", outputSeconds);
  if (checkpoints > 0)
    std::fprintf(out, "%-22s %.4f s (%d, %.3g MB each)\n", "checkpoints",
                 checkpointSeconds, checkpoints, checkpointBytes / 1e6);
  row(out, "total", totalSeconds());
  if (oneProcess && kernelSeconds > 0 && oneDevice) {
    row(out, "kernels (events)", kernelSeconds);
    std::fprintf(out, "%-22s %.4g cell-steps/s\n", "kernel throughput",
                 static_cast<double>(steps) * cells / kernelSeconds);
  }
  std::fputs(reportTable.c_str(), out);
  if (!writer.empty())
    std::fprintf(out, "%s\n", writer.c_str());
}

std::string RunSummary::json() const {
  bool oneProcess = !acrossRanks;
  std::string j = format("{\n  \"model\": \"%s\",\n  \"num_states\": %lld,\n"
                         "  \"variant\": \"%s\",\n  \"cells\": %lld,\n"
                         "  \"steps\": %lld,\n  \"dt\": %g,\n",
                         model.c_str(), static_cast<long long>(numStates),
                         variant.c_str(), static_cast<long long>(cells),
                         static_cast<long long>(steps), dt);
  if (oneProcess)
    j += format("  \"threads\": %d,\n  \"waves\": %lld,\n", threads,
                static_cast<long long>(waves));
  else
    j += format("  \"ranks\": %d,\n", ranks);
  j += format("  \"seconds\": {\"compile\": %.6f, \"load\": %.6f, ",
              compileSeconds, loadSeconds);
  if (oneProcess)
    j += format("\"tables\": %.6f, \"init\": %.6f, ", tablesSeconds,
                initSeconds);
  j += format("\"compute\": %.6f, \"output\": %.6f, \"total\": %.6f},\n"
              "  \"cell_steps_per_second\": %.6e,\n",
              computeSeconds, outputSeconds, totalSeconds(),
              cellStepsPerSecond());
  if (oneProcess)
    j += format("  \"kernel_cell_steps_per_second\": %.6e,\n"
                "  \"device\": \"%s\",\n",
                kernelSeconds > 0
                    ? static_cast<double>(steps) * cells / kernelSeconds
                    : 0.0,
                device.c_str());
  j += format("  \"devices\": \"%s\",\n", devicesAsked.c_str());
  if (oneProcess)
    j += format("  \"max_wave_steps\": %lld,\n  \"compile_cached\": %s,\n",
                static_cast<long long>(maxWaveSteps),
                compileCached ? "true" : "false");
  if (adaptiveSteps >= 0)
    j += format("  \"adaptive_steps\": {\"total\": %.0f, \"per_cell\": %.6g},\n",
                adaptiveSteps, cells > 0 ? adaptiveSteps / cells : 0.0);
  j += "  \"warnings\": {";
  for (size_t i = 0; i < warnings.size(); ++i)
    j += format("%s\"%s\": %lld", i ? ", " : "", warnings[i].first.c_str(),
                static_cast<long long>(warnings[i].second));
  j += "}";
  if (!biomarkersJson.empty())
    j += ",\n  \"biomarkers\": " + biomarkersJson;
  if (!writerJson.empty())
    j += ",\n  " + writerJson;
  if (checkpoints > 0 || restartStep >= 0)
    j += format(",\n  \"checkpoints\": {\"count\": %d, \"seconds\": %.6f, "
                "\"bytes\": %.0f, \"restart_step\": %lld}",
                checkpoints, checkpointSeconds, checkpointBytes,
                static_cast<long long>(restartStep));
  j += std::string(",\n  \"") + (oneProcess ? "runtime" : "mpi") +
       "\": " + reportJson + "\n}\n";
  return j;
}

Status RunSummary::writeJson(const std::string &path) const {
  return writeWholeFile(path, json());
}

std::string easyml::rt::printedBy(const std::function<void(FILE *)> &print) {
  char *buffer = nullptr;
  size_t size = 0;
  FILE *f = open_memstream(&buffer, &size);
  if (!f)
    return "";
  print(f);
  std::fclose(f);
  std::string text(buffer, size);
  std::free(buffer);
  return text;
}

std::vector<std::pair<std::string, int64_t>>
easyml::rt::firedWarnings(const easyml_model_desc &desc,
                          const std::vector<int64_t> &counters) {
  std::vector<std::pair<std::string, int64_t>> fired;
  for (int64_t i = 0; i < desc.num_counters; ++i)
    if (i < static_cast<int64_t>(counters.size()) && counters[i])
      fired.emplace_back(desc.counter_names[i], counters[i]);
  return fired;
}

std::vector<int64_t> easyml::rt::adaptiveRows(const easyml_model_desc &desc) {
  std::vector<int64_t> rows;
  for (int64_t i = 0; i < desc.num_hidden; ++i)
    if (std::strncmp(desc.hidden_names[i], "cvode.steps.", 12) == 0)
      rows.push_back(desc.sv_size + i);
  return rows;
}
