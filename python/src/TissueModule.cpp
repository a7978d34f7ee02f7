//===- TissueModule.cpp - easyml.Tissue's bindings ------------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// run_tissue(config, cache_dir, progress, checkpoint, checkpoint_every,
// restart, recover, compiler): the runtime's runTissue on a configuration
// file (the Python layer writes it from its arguments; `compiler`, the
// easyml-compile that model files are compiled with, "" for libraries
// only), with the activation map and the final Vm as (nz, ny, nx) arrays.
//
//===----------------------------------------------------------------------===//

#include "ModelProviders.h"

#include "easyml/Runtime/Tissue/TissueFiles.h"
#include "easyml/Runtime/Tissue/TissueRun.h"

#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

namespace py = pybind11;
using namespace easyml::rt;

namespace {

py::array_t<double> gridArray(const TissueGrid &g,
                              const std::vector<double> &values) {
  py::array_t<double> a(gridShape(g));
  std::copy(values.begin(), values.end(), a.mutable_data());
  return a;
}

py::dict runTissueFile(const std::string &config, const std::string &cacheDir,
                       const std::function<void(double)> &progress,
                       const std::string &checkpoint, double checkpointEvery,
                       const std::string &restart, bool recover,
                       const std::string &compiler) {
  TissueSetup setup;
  TissueResult result;
  std::string error;
  bool ok = readTissueConfig(config, setup, error);
  setup.checkpoint = checkpoint;
  setup.checkpointEvery = checkpointEvery;
  setup.restart = restart;
  setup.recover = recover;
  if (ok && !checkpoint.empty() && !(checkpointEvery > 0)) {
    error = "checkpoint_every must be positive";
    ok = false;
  }
  if (ok) {
    // The run releases the interpreter; progress takes it back to call.
    py::gil_scoped_release release;
    std::function<void(double)> report;
    if (progress)
      report = [&](double f) {
        py::gil_scoped_acquire acquire;
        progress(f);
      };
    std::unique_ptr<ModelProvider> models = modelProvider(compiler, cacheDir);
    Status s = runTissue(setup, result, report, *models);
    ok = s.ok();
    error = s.message();
  }
  if (!ok)
    throw std::runtime_error(error);
  py::dict out;
  out["report"] = result.json(setup);
  out["activation"] = gridArray(setup.grid, result.activation);
  out["vm"] = gridArray(setup.grid, result.vm);
  return out;
}

} // namespace

void bindTissue(py::module &m) {
  m.def("run_tissue", &runTissueFile, py::arg("config"),
        py::arg("cache_dir") = "", py::arg("progress") = nullptr,
        py::arg("checkpoint") = "", py::arg("checkpoint_every") = 100.0,
        py::arg("restart") = "", py::arg("recover") = true,
        py::arg("compiler") = "",
        "Runs the tissue simulation a JSON configuration describes");
}
