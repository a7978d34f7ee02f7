//===- Summary.cpp - what a run prints and reports ------------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// After a run, in one process or across ranks: the warnings the kernels
// counted, the table for people and --report-json, both from the
// runtime's RunSummary; the measured speeds for --lb-memory.
//
//===----------------------------------------------------------------------===//

#include "Bench.h"

#include "easyml/Runtime/Schedule/Balancer.h"

using namespace easyml;
using namespace easyml::bench;

int easyml::bench::report(rt::SimulationInterface &sim, const BenchRun &run,
                          rt::RunSummary &summary) {
  summary.devicesAsked = run.options.devices.str();
  summary.maxWaveSteps = run.options.maxWaveSteps;
  summary.compiled = run.cl->has("model");
  summary.compileCached = run.cached;
  summary.compileSeconds = run.compileSeconds;
  summary.loadSeconds = run.loadSeconds;
  sim.figures().summarize(summary);
  if (sim.rank() != 0)
    return 0;
  for (auto &[name, count] : summary.warnings)
    std::fprintf(stderr, "easyml-bench: warning: %s: %lld times\n",
                 name.c_str(), static_cast<long long>(count));
  std::fflush(stdout);
  if (!run.protocol.quiet)
    summary.print(stderr);
  std::string error;
  bool ok = true;
  if (run.cl->has("lb-memory") && !summary.acrossRanks)
    ok = rt::writeSpeedMemory(run.cl->get("lb-memory"), sim.desc().name,
                              sim.figures().speeds(), error);
  if (ok && run.cl->has("report-json")) {
    rt::Status written = summary.writeJson(run.cl->get("report-json"));
    ok = written.ok();
    error = written.message();
  }
  if (!ok)
    std::fprintf(stderr, "easyml-bench: error: %s\n", error.c_str());
  return ok ? 0 : 1;
}
