//===- TissueConfig.h - a tissue simulation described in JSON ---*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// The configuration easyml-tissue and easyml.Tissue read: model, grid,
// conductivities, time stepping, stimuli and outputs (every key:
// docs/tissue.md). Reading checks everything before anything runs: an
// unknown key, a value of the wrong kind or out of range, a mask of the
// wrong shape each give one message with the file, line and column.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_TISSUECONFIG_H
#define EASYML_RUNTIME_TISSUECONFIG_H

#include "easyml/Runtime/Tissue/Tissue.h"
#include "easyml/Runtime/Tissue/TissueGrid.h"

#include <array>
#include <string>
#include <utility>
#include <vector>

namespace easyml {
namespace rt {

struct TissueSetup {
  /// An EasyML model (compiled through the artifact cache) or a shared
  /// library from easyml-compile; relative to the configuration's folder.
  std::string model;
  /// openCARP's --imp-par syntax, applied to every point.
  std::string parameters;
  /// Per-point values: parameter name and a grid-shaped .npy.
  std::vector<std::pair<std::string, std::string>> pointParameters;
  std::string devices = "cpu", variant;
  int threads = 0;

  TissueGrid grid;
  Conductivity conductivity;
  TissueOptions options;
  double duration = 0;
  /// Stop before `duration` once every point of tissue has activated.
  bool untilActivated = false;
  std::vector<TissueStimulus> stimuli;

  struct Outputs {
    std::string directory = ".";
    /// Base name of the activation map ("" for none).
    std::string activation = "activation";
    /// Vm snapshots every this many ms (0: none), named vm_<ms>.
    double snapshotEvery = 0;
    bool npy = true, vtk = false;
    /// Biomarker maps per beat (columns of docs/biomarkers.md, by
    /// biomarkerColumnName index), named <column>_beat<k>.
    std::vector<int> biomarkers;
    /// Points (mm) whose activation times are reported.
    std::vector<std::array<double, 3>> probes;
    std::vector<std::string> probeNames;
  } outputs;

  /// The configuration's settings that decide the result, one "key=JSON"
  /// line per top-level key (devices, threads, variant and where the
  /// diffusion runs left out): a restart must give the same.
  std::string settings;

  /// Checkpoints (set by the tool's options, not by the configuration):
  /// the whole run to `checkpoint` every `checkpointEvery` ms of simulated
  /// time, and the run saved in `restart` continued.
  std::string checkpoint, restart;
  double checkpointEvery = 0;
  /// A GPU that fails mid-run (one process): the run goes on without it
  /// on the other devices, from the last checkpoint or from the start.
  /// False: the run stops with the device's error.
  bool recover = true;
};

/// Reads `path`; false with `error` ("PATH:LINE:COLUMN: what").
bool readTissueConfig(const std::string &path, TissueSetup &setup,
                      std::string &error);

} // namespace rt
} // namespace easyml

#endif // EASYML_RUNTIME_TISSUECONFIG_H
