//===- EasyMLModule.cpp - Python bindings of the EasyML runtime ----------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// The `easyml._easyml` extension: compiled models and simulations as
// Python objects, per-cell arrays as numpy arrays. The friendly layer
// (easyml.compile, keyword arguments, structured biomarker arrays) is
// python/easyml/__init__.py.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/Core/Population.h"
#include "easyml/Runtime/Simulation/Simulation.h"

#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <map>

#ifdef EASYML_HAVE_MPI
#include "easyml/Runtime/MPI/Distributed.h"
#endif

namespace py = pybind11;
using namespace easyml::rt;

namespace {

std::vector<std::string> names(const char *const *list, int64_t n) {
  return std::vector<std::string>(list, list + n);
}

/// The per-cell record row of state or hidden value `name` (an
/// integrator's per-cell memory, e.g. "cvode.h.0"), or -1.
int64_t svRow(const easyml_model_desc &d, const std::string &name) {
  for (int64_t v = 0; v < d.num_states; ++v)
    if (name == d.state_names[v])
      return v;
  for (int64_t h = 0; h < d.num_hidden; ++h)
    if (name == d.hidden_names[h])
      return d.sv_size + h;
  return -1;
}

[[noreturn]] void raise(const std::string &message) {
  throw std::runtime_error(message);
}

/// A simulation and what Python needs next to it: the samples recorded.
/// Every parameter and flag as a dict: name, value (shared, derived ones
/// current), derived, formula, reads (names), read_by_kernels, set.
py::list paramInfo(const ParamSet &ps) {
  py::list out;
  for (int64_t p = 0; p < ps.size(); ++p) {
    py::dict d;
    d["name"] = ps.name(p);
    d["value"] = ps.value(p);
    d["flag"] = p >= ps.desc().num_params;
    d["derived"] = ps.isDerived(p);
    d["formula"] = ps.formula(p);
    py::list reads;
    for (int64_t r : ps.reads(p))
      reads.append(ps.name(r));
    d["reads"] = reads;
    d["read_by_kernels"] = ps.readByKernels(p);
    d["set"] = ps.isSet(p);
    out.append(d);
  }
  return out;
}

/// A simulation, in one process or across the ranks of an mpi4py
/// communicator, and what Python needs next to it: the samples recorded
/// (this rank's cells; -inf where another rank holds the cell, which the
/// Python layer fills from the other ranks).
struct PySimulation {
  PySimulation(const ModelHandle &model, int64_t cells,
               const SimulationOptions &options, uintptr_t comm) {
#ifdef EASYML_HAVE_MPI
    if (comm)
      sim = std::make_unique<DistributedSimulation>(
          reinterpret_cast<MPI_Comm>(comm), model, cells, options);
#else
    if (comm)
      raise("this easyml was built without MPI (libopenmpi-dev)");
#endif
    if (!sim) {
      auto local = std::make_unique<Simulation>(model, cells, options);
      single = local.get();
      sim = std::move(local);
    }
    if (Status st = sim->valid(); !st.ok())
      raise(st.message());
  }
  std::unique_ptr<SimulationInterface> sim;
  /// `sim` when it runs in one process, else null.
  Simulation *single = nullptr;
  std::vector<std::string> recorded;
  CellRange recordedCells;
  /// Per sample step: values[variable][cell of the recorded range].
  std::map<int64_t, std::vector<double>> samples;

  void check(bool ok) {
    if (ok)
      return;
    if (sim->ranks() == 1)
      if (const NonFinite *bad = sim->nonFinite())
        raise("simulation produced a non-finite value: " + bad->message());
    raise(sim->failure().empty() ? "the run stopped" : sim->failure());
  }
  /// The simulation in one process (per-cell access), or an error.
  Simulation &one(const char *what) {
    if (!single)
      raise(std::string(what) +
            " is not available for a simulation across MPI ranks");
    return *single;
  }
  void takeSample(int64_t step, CellRange part, const double *v) {
    int64_t n = recordedCells.size();
    size_t nv = recorded.size();
    std::vector<double> &row = samples[step];
    if (row.empty())
      row.assign(nv * n, -std::numeric_limits<double>::infinity());
    for (size_t k = 0; k < nv; ++k)
      std::memcpy(row.data() + k * n + part.begin - recordedCells.begin,
                  v + k * part.size(), part.size() * sizeof(double));
  }
};

py::array_t<double> rowView(PySimulation &self, double *data,
                            py::object owner) {
  return py::array_t<double>({self.sim->numCells()}, {sizeof(double)}, data,
                             owner);
}

void setPerCell(
    PySimulation &s, const std::string &name,
    py::array_t<double, py::array::c_style | py::array::forcecast> values) {
  if (values.ndim() != 1 || values.shape(0) != s.sim->numCells())
    raise("parameter '" + name + "': expected " +
          std::to_string(s.sim->numCells()) +
          " values (one per cell), got an array of shape (" +
          std::to_string(values.ndim() ? values.shape(0) : 0) +
          (values.ndim() > 1 ? ", ...)" : ",)"));
  if (Status st = s.sim->parameters().setPerCell(name, values.data()); !st.ok())
    raise(st.message());
}

py::dict sampleParams(PySimulation &s, const std::string &spec, uint64_t seed,
                      bool grouped) {
  Columns t;
  if (Status st = s.sim->samplePerCellParams(spec, seed, grouped, t); !st.ok())
    raise(st.message());
  py::dict out;
  for (size_t c = 0; c < t.names.size(); ++c)
    out[py::str(t.names[c])] =
        py::array_t<double>(t.values[c].size(), t.values[c].data());
  return out;
}

py::tuple takeSamples(PySimulation &s) {
  // (steps, values[sample, variable, cell]) of every recorded cell, on
  // every rank: the library gathers what the ranks took.
  int64_t per =
      static_cast<int64_t>(s.recorded.size()) * s.recordedCells.size();
  std::vector<int64_t> steps;
  std::vector<double> values;
  for (auto &[step, row] : s.samples) {
    steps.push_back(step);
    values.insert(values.end(), row.begin(), row.end());
  }
  s.samples.clear();
  s.sim->outputs().gatherSamples(steps, values, per);
  int64_t n = static_cast<int64_t>(steps.size());
  py::array_t<int64_t> outSteps(n);
  std::memcpy(outSteps.mutable_data(), steps.data(), n * sizeof(int64_t));
  py::array_t<double> out(
      {n, (int64_t)s.recorded.size(), s.recordedCells.size()});
  std::memcpy(out.mutable_data(), values.data(),
              values.size() * sizeof(double));
  return py::make_tuple(outSteps, out);
}

/// The compiled model: names, variants, defaults.
void bindModel(py::module_ &m) {
  py::class_<ModelHandle, std::shared_ptr<ModelHandle>>(m, "Model")
      .def(py::init([](const std::string &path) {
             auto h = ModelHandle::load(path);
             if (!h.ok())
               raise(h.status().message());
             return std::shared_ptr<ModelHandle>(h.take());
           }),
           py::arg("path"),
           "Loads a model library (easyml-compile --emit=shared)")
      .def_property_readonly("name",
                             [](const ModelHandle &h) { return h.desc().name; })
      .def_property_readonly("states",
                             [](const ModelHandle &h) {
                               return names(h.desc().state_names,
                                            h.desc().num_states);
                             })
      .def_property_readonly("hidden",
                             [](const ModelHandle &h) {
                               return names(h.desc().hidden_names,
                                            h.desc().num_hidden);
                             })
      .def_property_readonly("parameters",
                             [](const ModelHandle &h) {
                               return names(h.desc().param_names,
                                            h.desc().num_params);
                             })
      .def_property_readonly("flags",
                             [](const ModelHandle &h) {
                               return names(h.desc().flag_names,
                                            h.desc().num_flags);
                             })
      .def_property_readonly("variants",
                             [](const ModelHandle &h) {
                               std::vector<std::string> v;
                               for (int64_t i = 0; i < h.desc().num_variants;
                                    ++i)
                                 v.push_back(h.desc().variants[i].name);
                               return v;
                             })
      .def_property_readonly("defaults", [](const ModelHandle &h) {
        const easyml_model_desc &d = h.desc();
        py::dict out;
        for (int64_t i = 0; i < d.num_params; ++i)
          out[py::str(d.param_names[i])] = d.param_defaults[i];
        return out;
      });
}

/// Parameters: shared, derived, per cell, sampled.
void bindParameters(py::class_<PySimulation> &c) {
  c.def("get_param",
        [](PySimulation &s, const std::string &name) {
          int64_t p = s.sim->parameters().paramSet().index(name);
          if (p < 0 || p >= s.sim->desc().num_params)
            raise(std::string("model ") + s.sim->desc().name +
                  " has no parameter '" + name + "'");
          return s.sim->parameters().values()[p];
        })
      .def("modify_params",
           [](PySimulation &s, const std::string &mods) {
             if (Status st = s.sim->parameters().modify(mods); !st.ok())
               raise(st.message());
           })
      .def("set_param",
           [](PySimulation &s, const std::string &name, double value) {
             if (Status st = s.sim->parameters().set(name, value); !st.ok())
               raise(st.message());
           })
      .def("param_warnings",
           [](PySimulation &s) { return s.sim->parameters().unusedSettings(); })
      .def("param_info",
           [](PySimulation &s) {
             return paramInfo(s.sim->parameters().paramSet());
           })
      .def("set_param_per_cell", &setPerCell)
      .def("sample_params", &sampleParams);
}

/// The protocol and the run: initialisation, stimuli, recording, biomarkers.
void bindRun(py::class_<PySimulation> &c) {
  c.def("initialize",
        [](PySimulation &s, double dt) {
          if (!(dt > 0))
            raise("dt must be positive");
          s.check(s.sim->initialize(dt));
        })
      .def("add_stimulus",
           [](PySimulation &s, double start, double duration, double strength,
              double period, int64_t count) {
             s.sim->addStimulus(Stimulus::fromMs(s.sim->dt(), start, duration,
                                                 strength, period, count));
           })
      .def("clear_stimuli",
           [](PySimulation &s) { s.one("clear_stimuli()").clearStimuli(); })
      .def("record",
           [](PySimulation &s, std::vector<std::string> variables,
              int64_t begin, int64_t end, int64_t first, int64_t every) {
             s.recorded = variables;
             s.recordedCells = CellRange{begin, end};
             s.samples.clear();
             PySimulation *self = &s;
             if (Status st = s.sim->record(
                     variables, CellRange{begin, end}, first, every,
                     [self](int64_t step, CellRange part, const double *v) {
                       self->takeSample(step, part, v);
                     });
                 !st.ok())
               raise(st.message());
           })
      .def("stop_recording", [](PySimulation &s) { s.sim->stopRecording(); })
      .def("take_samples", &takeSamples)
      .def("run_until",
           [](PySimulation &s, double ms) {
             bool ok;
             {
               py::gil_scoped_release release;
               ok = s.sim->runUntil(ms);
             }
             s.check(ok);
           })
      .def("enable_biomarkers",
           [](PySimulation &s, const std::string &ca, double minAmplitude,
              double alternansMs) {
             BiomarkerOptions o;
             o.caVariable = ca;
             o.minAmplitude = minAmplitude;
             o.alternansMs = alternansMs;
             if (Status st = s.sim->biomarkers().enable(o); !st.ok())
               raise(st.message());
           })
      .def("close_beat",
           [](PySimulation &s) { s.check(s.sim->biomarkers().closeBeat()); })
      .def("biomarker_rows",
           [](PySimulation &s) {
             // Every rank's rows, in one process's order, on every rank.
             BiomarkerTable t = s.sim->biomarkers().all();
             py::array_t<double> a({t.rows(), (int64_t)kBioNumColumns});
             std::memcpy(a.mutable_data(), t.values.data(),
                         t.values.size() * sizeof(double));
             return a;
           })
      .def("write_biomarkers",
           [](PySimulation &s, const std::string &path,
              std::vector<std::string> params) {
             if (Status st = s.sim->biomarkers().write(path, params); !st.ok())
               raise(st.message());
           })
      .def_static("biomarker_columns", []() {
        std::vector<std::string> c;
        for (int i = 0; i < kBioNumColumns; ++i)
          c.push_back(biomarkerColumnName(i));
        return c;
      });
}

/// Per-cell values (one process) and the report.
void bindValues(py::class_<PySimulation> &c) {
  c.def("get_state",
        [](PySimulation &s, const std::string &name) {
          Simulation &one = s.one("state()");
          int64_t v = svRow(one.desc(), name);
          if (v < 0)
            raise(std::string("model ") + one.desc().name + " has no state '" +
                  name + "'");
          py::array_t<double> out(one.numCells());
          one.values().getStateRow(v, out.mutable_data());
          return out;
        })
      .def("set_state",
           [](PySimulation &s, const std::string &name,
              py::array_t<double, py::array::c_style | py::array::forcecast>
                  values) {
             Simulation &one = s.one("set_state()");
             int64_t v = svRow(one.desc(), name);
             if (v < 0)
               raise(std::string("model ") + one.desc().name +
                     " has no state '" + name + "'");
             if (values.ndim() != 1 || values.shape(0) != one.numCells())
               raise("state '" + name + "': expected " +
                     std::to_string(one.numCells()) + " values");
             one.values().setStateRow(v, values.data());
           })
      // Vm and Iion: the host arrays themselves (current after every run).
      .def_property_readonly("vm",
                             [](py::object self) {
                               auto &s = self.cast<PySimulation &>();
                               return rowView(s, s.one("vm").values().vm(),
                                              self);
                             })
      .def_property_readonly("iion",
                             [](py::object self) {
                               auto &s = self.cast<PySimulation &>();
                               return rowView(s, s.one("iion").values().iion(),
                                              self);
                             })
      .def("report_json",
           [](PySimulation &s) { return s.sim->figures().reportJson(); })
      .def(
          "save_checkpoint",
          [](PySimulation &s, const std::string &path) {
            if (Status st =
                    s.sim->outputs().saveCheckpoint(path, RunPosition());
                !st.ok())
              raise(st.message());
          },
          py::arg("path"),
          "Writes the whole run (every cell, the clock, the closed beats' "
          "biomarkers) to path, whole or not at all")
      .def(
          "load_checkpoint",
          [](PySimulation &s, const std::string &path) {
            RunPosition position;
            if (Status st = s.sim->outputs().loadCheckpoint(path, position);
                !st.ok())
              raise(st.message());
          },
          py::arg("path"),
          "Continues the run saved at path (after the same set-up: "
          "parameters, initialize, biomarkers, stimuli)");
}

} // namespace

void bindTissue(py::module &m);
void bindDrugStudy(py::module &m);

PYBIND11_MODULE(_easyml, m) {
  m.doc() = "EasyML runtime bindings (use the easyml package)";
  m.attr("ABI_VERSION") = EASYML_ABI_VERSION;
  bindModel(m);
  py::class_<PySimulation> sim(m, "Simulation");
  sim.def(py::init([](std::shared_ptr<ModelHandle> model, int64_t cells,
                      const std::string &devices, const std::string &cpuVariant,
                      int threads, uintptr_t comm, bool recover) {
            if (cells < 1)
              raise("cells must be at least 1, got " + std::to_string(cells));
            SimulationOptions o;
            o.devices = devices;
            o.cpuVariant = cpuVariant;
            o.threads = threads;
            o.recover = recover;
            return new PySimulation(*model, cells, o, comm);
          }),
          py::arg("model"), py::arg("cells"), py::arg("devices") = "cpu",
          py::arg("cpu_variant") = "", py::arg("threads") = 0,
          py::arg("comm") = 0, py::arg("recover") = true,
          py::keep_alive<1, 2>())
      .def_property_readonly("cells",
                             [](PySimulation &s) { return s.sim->numCells(); })
      .def_property_readonly("step",
                             [](PySimulation &s) { return s.sim->step(); })
      .def_property_readonly("dt", [](PySimulation &s) { return s.sim->dt(); })
      .def_property_readonly("rank",
                             [](PySimulation &s) { return s.sim->rank(); })
      .def_property_readonly("ranks",
                             [](PySimulation &s) { return s.sim->ranks(); })
      .def_property_readonly("devices", [](PySimulation &s) {
        return s.sim->deviceDescription();
      });
  bindParameters(sim);
  bindRun(sim);
  bindValues(sim);
  bindTissue(m);
  bindDrugStudy(m);

#ifdef EASYML_HAVE_MPI
  m.attr("HAVE_MPI") = true;
#else
  m.attr("HAVE_MPI") = false;
#endif
}
