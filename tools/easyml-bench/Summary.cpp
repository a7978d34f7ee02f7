//===- Summary.cpp - what a one-process run prints and reports ------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// After a run in one process: the warnings the kernels counted, the table
// for people (times, devices, the runtime's report) and --report-json. The
// MPI run reports epochs and ranks instead (MpiRun.cpp).
//
//===----------------------------------------------------------------------===//

#include "Bench.h"

#include <cerrno>
#include <cstring>

using namespace easyml;
using namespace easyml::bench;

void easyml::bench::printWarnings(const easyml_model_desc &d,
                                  const std::vector<int64_t> &counters) {
  for (int64_t i = 0; i < d.num_counters; ++i)
    if (counters[i])
      std::fprintf(stderr, "easyml-bench: warning: %s: %lld times\n",
                   d.counter_names[i], static_cast<long long>(counters[i]));
}

FILE *easyml::bench::openReport(const BenchRun &run) {
  std::string p = run.cl->get("report-json");
  FILE *out = std::fopen(p.c_str(), "w");
  if (!out)
    std::fprintf(stderr, "easyml-bench: error: cannot write '%s': %s\n",
                 p.c_str(), std::strerror(errno));
  return out;
}

void easyml::bench::writeWarningsJson(FILE *out, const easyml_model_desc &d,
                                      const std::vector<int64_t> &counters) {
  std::fprintf(out, "  \"warnings\": {");
  bool first = true;
  for (int64_t i = 0; i < d.num_counters; ++i)
    if (counters[i]) {
      std::fprintf(out, "%s\"%s\": %lld", first ? "" : ", ", d.counter_names[i],
                   static_cast<long long>(counters[i]));
      first = false;
    }
  std::fprintf(out, "}");
}

void easyml::bench::printTimes(
    const BenchRun &run, double compute, double output, double wall,
    const std::vector<std::pair<const char *, double>> &before) {
  auto row = [](const char *name, double s) {
    std::fprintf(stderr, "%-22s %10.4f s\n", name, s);
  };
  if (run.cl->has("model"))
    row(run.cached ? "compile (cached)" : "compile", run.compileSeconds);
  row("load", run.loadSeconds);
  for (auto &[name, s] : before)
    row(name, s);
  row("compute", compute);
  row("output", output);
  row("total", wall + run.loadSeconds + run.compileSeconds);
}

namespace {

void printTable(rt::Simulation &sim, const BenchRun &run, const RunFigures &f) {
  const easyml_model_desc &d = sim.desc();
  const rt::RunReport &report = sim.report();
  double cellSteps = static_cast<double>(run.nLast + 1) * run.num;
  // GPU: the compute kernels' own time, without transfers at events.
  double kernelMs = sim.gpuKernelMs();
  double kernelRate = kernelMs > 0 ? cellSteps / (kernelMs / 1e3) : 0;
  std::vector<std::string> active = sim.activeDevices();
  bool cpuOnly = active.size() == 1 && active[0] == "cpu";
  std::fprintf(stderr,
               "\n%-22s %s\n%-22s %s\n%-22s %ld\n%-22s %ld (dt %g ms, %lld "
               "waves)\n%-22s %d\n",
               "model", d.name, "variant", sim.variant().name, "cells", run.num,
               "steps", run.nLast + 1, run.dt,
               static_cast<long long>(report.totalWaves), "threads",
               sim.threads());
  if (!cpuOnly)
    std::fprintf(stderr, "%-22s %s\n", active.size() > 1 ? "devices" : "device",
                 sim.deviceDescription().c_str());
  printTimes(run, f.compute, f.output, f.wall,
             {{"tables", sim.tablesSeconds()}, {"init", sim.initSeconds()}});
  // One GPU: its kernels' own time (several: per device below).
  if (kernelMs > 0 && active.size() == 1) {
    std::fprintf(stderr, "%-22s %10.4f s\n", "kernels (events)",
                 kernelMs / 1e3);
    std::fprintf(stderr, "%-22s %.4g cell-steps/s\n", "kernel throughput",
                 kernelRate);
  }
  report.print(stderr);
}

int writeJson(rt::Simulation &sim, const BenchRun &run, const RunFigures &f) {
  const easyml_model_desc &d = sim.desc();
  FILE *out = openReport(run);
  if (!out)
    return 1;
  double cellSteps = static_cast<double>(run.nLast + 1) * run.num;
  double rate = f.compute > 0 ? cellSteps / f.compute : 0;
  double kernelMs = sim.gpuKernelMs();
  double kernelRate = kernelMs > 0 ? cellSteps / (kernelMs / 1e3) : 0;
  std::fprintf(
      out,
      "{\n  \"model\": \"%s\",\n  \"num_states\": %lld,\n  "
      "\"variant\": \"%s\",\n  \"cells\": %ld,\n  \"steps\": %ld,\n  \"dt\": "
      "%g,\n  \"threads\": %d,\n  \"waves\": %lld,\n  \"seconds\": "
      "{\"compile\": %.6f, \"load\": %.6f, \"tables\": %.6f, \"init\": %.6f, "
      "\"compute\": %.6f, \"output\": %.6f, \"total\": %.6f},\n  "
      "\"cell_steps_per_second\": %.6e,\n  "
      "\"kernel_cell_steps_per_second\": %.6e,\n  \"device\": \"%s\",\n  "
      "\"devices\": \"%s\",\n  \"max_wave_steps\": %ld,\n  "
      "\"compile_cached\": %s,\n",
      d.name, static_cast<long long>(d.num_states), sim.variant().name, run.num,
      run.nLast + 1, run.dt, sim.threads(),
      static_cast<long long>(sim.report().totalWaves), run.compileSeconds,
      run.loadSeconds, sim.tablesSeconds(), sim.initSeconds(), f.compute,
      f.output, f.wall + run.loadSeconds + run.compileSeconds, rate, kernelRate,
      sim.deviceDescription().c_str(), run.options.devices.str().c_str(),
      static_cast<long>(run.options.maxWaveSteps),
      run.cached ? "true" : "false");
  writeWarningsJson(out, d, f.counters);
  if (!f.bioJson.empty())
    std::fprintf(out, ",\n  \"biomarkers\": %s", f.bioJson.c_str());
  std::fprintf(out, ",\n  \"runtime\": %s\n}\n", sim.reportJson(2).c_str());
  std::fclose(out);
  return 0;
}

} // namespace

int easyml::bench::reportOneProcess(rt::Simulation &sim, const BenchRun &run,
                                    const RunFigures &figures) {
  printWarnings(sim.desc(), figures.counters);
  std::fflush(stdout);
  if (!run.quiet)
    printTable(sim, run, figures);
  std::string error;
  if (run.cl->has("lb-memory") &&
      !rt::writeSpeedMemory(run.cl->get("lb-memory"), sim.desc().name,
                            sim.speeds(), error)) {
    std::fprintf(stderr, "easyml-bench: error: %s\n", error.c_str());
    return 1;
  }
  if (run.cl->has("report-json"))
    return writeJson(sim, run, figures);
  return 0;
}
