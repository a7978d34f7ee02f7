//===- TissueConfig.cpp - a tissue simulation described in JSON -----------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/Tissue/TissueConfig.h"
#include "easyml/Runtime/IO/Json.h"
#include "easyml/Runtime/Simulation/Simulation.h"
#include "easyml/Runtime/Tissue/TissueFiles.h"

#include <algorithm>
#include <cmath>
#include <set>

using namespace easyml::rt;
using json::Value;

namespace {

/// Typed access to a document, each failure one message at the value.
struct Reader {
  std::string path, folder, error;

  bool fail(const Value &at, const std::string &what) {
    if (error.empty())
      error = path + ":" + std::to_string(at.line) + ":" +
              std::to_string(at.column) + ": " + what;
    return false;
  }
  /// Every member of `object` is one of `keys`.
  bool known(const Value &object, const std::string &where,
             const std::set<std::string> &keys) {
    if (!object.isObject())
      return fail(object, where + " must be an object, not " +
                              object.kindName());
    for (auto &[key, value] : object.members)
      if (!keys.count(key)) {
        std::string list;
        for (const std::string &k : keys)
          list += (list.empty() ? "" : ", ") + k;
        return fail(value, "unknown key '" + key + "' in " + where +
                               " (known: " + list + ")");
      }
    return true;
  }
  bool number(const Value &v, const std::string &key, double &out,
              bool positive = false) {
    if (!v.isNumber() || !std::isfinite(v.number))
      return fail(v, "'" + key + "' must be a number, not " + v.kindName());
    if (positive && !(v.number > 0))
      return fail(v, "'" + key + "' must be positive");
    out = v.number;
    return true;
  }
  bool integer(const Value &v, const std::string &key, int64_t &out,
               int64_t min) {
    double x;
    if (!number(v, key, x))
      return false;
    if (x != std::floor(x) || x < min)
      return fail(v, "'" + key + "' must be a whole number of at least " +
                         std::to_string(min));
    out = static_cast<int64_t>(x);
    return true;
  }
  bool string(const Value &v, const std::string &key, std::string &out) {
    if (!v.isString())
      return fail(v, "'" + key + "' must be a string, not " + v.kindName());
    out = v.string;
    return true;
  }
  /// Three numbers, or one for all three axes.
  bool triple(const Value &v, const std::string &key,
              std::array<double, 3> &out) {
    if (v.isNumber())
      return number(v, key, out[0]) && (out[1] = out[2] = out[0], true);
    if (!v.isArray() || v.items.empty() || v.items.size() > 3)
      return fail(v, "'" + key + "' must be a number or 1 to 3 numbers");
    for (size_t a = 0; a < v.items.size(); ++a)
      if (!number(v.items[a], key, out[a]))
        return false;
    return true;
  }
  std::string resolve(const std::string &file) const {
    return file.empty() || file[0] == '/' ? file : folder + file;
  }
};

bool readGrid(Reader &r, const Value &g, TissueGrid &grid) {
  if (!r.known(g, "grid", {"points", "size_mm", "spacing_mm", "mask"}))
    return false;
  if (const Value *h = g.find("spacing_mm")) {
    if (!r.triple(*h, "spacing_mm", grid.h))
      return false;
    for (double x : grid.h)
      if (!(x > 0))
        return r.fail(*h, "'spacing_mm' must be positive along every axis");
  }
  const Value *pts = g.find("points"), *size = g.find("size_mm");
  if (!pts == !size)
    return r.fail(g, "grid needs exactly one of 'points' and 'size_mm'");
  if (pts) {
    if (!pts->isArray() || pts->items.empty() || pts->items.size() > 3)
      return r.fail(*pts, "'points' must be 1 to 3 whole numbers (nx, ny, nz)");
    for (size_t a = 0; a < pts->items.size(); ++a)
      if (!r.integer(pts->items[a], "points", grid.n[a], 1))
        return false;
  } else {
    std::array<double, 3> l{{0, 0, 0}};
    if (!size->isArray() || !r.triple(*size, "size_mm", l))
      return r.fail(*size, "'size_mm' must be 1 to 3 lengths (mm)");
    for (int a = 0; a < 3; ++a) {
      if (l[a] < 0)
        return r.fail(*size, "'size_mm' must not be negative");
      grid.n[a] = static_cast<int64_t>(std::llround(l[a] / grid.h[a])) + 1;
    }
  }
  if (const Value *m = g.find("mask")) {
    std::string file, e;
    std::vector<double> mask;
    if (!r.string(*m, "mask", file))
      return false;
    if (!readGridNpy(r.resolve(file), grid, mask, e))
      return r.fail(*m, e);
    grid.mask.resize(mask.size());
    for (size_t i = 0; i < mask.size(); ++i)
      grid.mask[i] = mask[i] != 0;
  }
  if (std::string e = grid.check(); !e.empty())
    return r.fail(g, e);
  return true;
}

bool readConductivity(Reader &r, const Value &c, Conductivity &out) {
  if (!r.known(c, "conductivity",
               {"intracellular", "extracellular", "surface_to_volume",
                "capacitance"}))
    return false;
  const Value *v;
  if ((v = c.find("intracellular")) && !r.triple(*v, "intracellular", out.intra))
    return false;
  if ((v = c.find("extracellular")) && !r.triple(*v, "extracellular", out.extra))
    return false;
  if ((v = c.find("surface_to_volume")) &&
      !r.number(*v, "surface_to_volume", out.surfaceToVolume, true))
    return false;
  if ((v = c.find("capacitance")) &&
      !r.number(*v, "capacitance", out.capacitance, true))
    return false;
  if (std::string e = out.check(); !e.empty())
    return r.fail(c, e);
  return true;
}

bool readTime(Reader &r, const Value &t, TissueSetup &s) {
  if (!r.known(t, "time",
               {"dt", "duration", "scheme", "substeps", "cg_tolerance",
                "cg_max_iterations", "until_activated", "diffusion_on",
                "activation_on"}))
    return false;
  const Value *v;
  if ((v = t.find("dt")) && !r.number(*v, "dt", s.options.dt, true))
    return false;
  if (!(v = t.find("duration")))
    return r.fail(t, "time needs 'duration' (ms)");
  if (!r.number(*v, "duration", s.duration, true))
    return false;
  if ((v = t.find("scheme"))) {
    std::string scheme;
    if (!r.string(*v, "scheme", scheme))
      return false;
    if (scheme == "explicit")
      s.options.scheme = TissueOptions::Explicit;
    else if (scheme == "crank-nicolson")
      s.options.scheme = TissueOptions::CrankNicolson;
    else
      return r.fail(*v, "unknown scheme '" + scheme +
                            "' (explicit, crank-nicolson)");
  }
  if ((v = t.find("substeps")) &&
      !r.integer(*v, "substeps", s.options.substeps, 1))
    return false;
  if ((v = t.find("diffusion_on"))) {
    std::string where;
    if (!r.string(*v, "diffusion_on", where))
      return false;
    if (where != "devices" && where != "host")
      return r.fail(*v, "unknown 'diffusion_on' value '" + where +
                            "' (devices, host)");
    s.options.diffusionOnHost = where == "host";
  }
  if ((v = t.find("activation_on"))) {
    std::string where;
    if (!r.string(*v, "activation_on", where))
      return false;
    if (where != "devices" && where != "host")
      return r.fail(*v, "unknown 'activation_on' value '" + where +
                            "' (devices, host)");
    s.options.activationOnHost = where == "host";
  }
  if ((v = t.find("until_activated"))) {
    if (v->kind != Value::Bool)
      return r.fail(*v, "'until_activated' must be true or false");
    s.untilActivated = v->boolean;
  }
  if ((v = t.find("cg_tolerance")) &&
      !r.number(*v, "cg_tolerance", s.options.cgTolerance, true))
    return false;
  if ((v = t.find("cg_max_iterations")) &&
      !r.integer(*v, "cg_max_iterations", s.options.cgMaxIterations, 1))
    return false;
  return true;
}

/// "0-2 x 0-0.7 x 0-0.3 mm".
std::string extent(const TissueGrid &g) {
  char buf[128];
  std::snprintf(buf, sizeof buf, "0-%g x 0-%g x 0-%g mm",
                (g.n[0] - 1) * g.h[0], (g.n[1] - 1) * g.h[1],
                (g.n[2] - 1) * g.h[2]);
  return buf;
}

bool readRegion(Reader &r, const Value &s, const TissueGrid &grid,
                TissueRegion &region) {
  const Value *box = s.find("box"), *sphere = s.find("sphere"),
              *points = s.find("points");
  if ((box != nullptr) + (sphere != nullptr) + (points != nullptr) != 1)
    return r.fail(s, "a stimulus needs exactly one of 'box', 'sphere' and "
                     "'points'");
  if (box) {
    region.kind = TissueRegion::Box;
    if (!box->isArray() || box->items.size() != 2)
      return r.fail(*box, "'box' must be two corners [[x0, y0, z0], [x1, y1, "
                          "z1]] (mm)");
    return r.triple(box->items[0], "box", region.lo) &&
           r.triple(box->items[1], "box", region.hi);
  }
  if (sphere) {
    region.kind = TissueRegion::Sphere;
    if (!r.known(*sphere, "sphere", {"center", "radius"}))
      return false;
    const Value *c = sphere->find("center"), *rad = sphere->find("radius");
    if (!c || !rad)
      return r.fail(*sphere, "'sphere' needs 'center' and 'radius' (mm)");
    return r.triple(*c, "center", region.center) &&
           r.number(*rad, "radius", region.radius, true);
  }
  region.kind = TissueRegion::Points;
  if (!points->isArray() || points->items.empty())
    return r.fail(*points, "'points' must be a list of [ix, iy, iz] indices");
  for (const Value &p : points->items) {
    std::array<double, 3> i{{0, 0, 0}};
    if (!p.isArray() || !r.triple(p, "points", i))
      return r.fail(p, "a point must be [ix, iy, iz] (grid indices)");
    for (int a = 0; a < 3; ++a)
      if (i[a] != std::floor(i[a]) || i[a] < 0 || i[a] >= grid.n[a])
        return r.fail(p, "point index " + std::to_string(i[a]) +
                             " is outside the grid");
    region.points.push_back(grid.index(int64_t(i[0]), int64_t(i[1]),
                                       int64_t(i[2])));
  }
  return true;
}

bool readStimulus(Reader &r, const Value &s, TissueSetup &setup) {
  if (!r.known(s, "a stimulus",
               {"box", "sphere", "points", "current_per_volume",
                "current_per_area", "start", "duration", "period", "count"}))
    return false;
  TissueStimulus st;
  if (!readRegion(r, s, setup.grid, st.region))
    return false;
  const Value *vol = s.find("current_per_volume"),
              *area = s.find("current_per_area"), *v;
  if (!vol == !area)
    return r.fail(s, "a stimulus needs exactly one of 'current_per_volume' "
                     "(uA/cm^3) and 'current_per_area' (uA/cm^2)");
  st.unit = vol ? TissueStimulus::PerVolume : TissueStimulus::PerArea;
  if (!r.number(vol ? *vol : *area, vol ? "current_per_volume" : "current_per_area",
                st.strength))
    return false;
  if ((v = s.find("start")) && !r.number(*v, "start", st.start))
    return false;
  if ((v = s.find("duration")) && !r.number(*v, "duration", st.duration, true))
    return false;
  if ((v = s.find("period")) && !r.number(*v, "period", st.period, true))
    return false;
  if ((v = s.find("count")) && !r.integer(*v, "count", st.count, 1))
    return false;
  if (st.region.select(setup.grid).empty())
    return r.fail(s, "the stimulus region holds no point of tissue (the "
                     "grid spans " +
                         extent(setup.grid) + ")");
  setup.stimuli.push_back(st);
  return true;
}

/// "biomarkers": ["apd90", "dvdt_max"]: maps per beat.
bool readBiomarkers(Reader &r, const Value &v, TissueSetup &s) {
  std::string known;
  for (int c = kBioVRest; c < kBioNumColumns; ++c)
    known += (known.empty() ? "" : ", ") + std::string(biomarkerColumnName(c));
  if (!v.isArray() || v.items.empty())
    return r.fail(v, "'biomarkers' must be a list of biomarker names (" +
                         known + ")");
  for (const Value &item : v.items) {
    std::string name;
    if (!r.string(item, "biomarkers", name))
      return false;
    int column = -1;
    for (int c = kBioVRest; c < kBioNumColumns; ++c)
      if (name == biomarkerColumnName(c))
        column = c;
    if (column < 0)
      return r.fail(item, "unknown biomarker '" + name + "' (" + known + ")");
    s.outputs.biomarkers.push_back(column);
  }
  s.options.biomarkers = true;
  return true;
}

bool readOutputs(Reader &r, const Value &o, TissueSetup &s) {
  if (!r.known(o, "outputs",
               {"directory", "activation", "activation_threshold",
                "snapshots_every", "formats", "probes", "biomarkers"}))
    return false;
  auto &out = s.outputs;
  const Value *v;
  if ((v = o.find("directory")) && !r.string(*v, "directory", out.directory))
    return false;
  if ((v = o.find("activation")) && !r.string(*v, "activation", out.activation))
    return false;
  if ((v = o.find("activation_threshold")) &&
      !r.number(*v, "activation_threshold", s.options.activationThreshold))
    return false;
  if ((v = o.find("snapshots_every")) &&
      !r.number(*v, "snapshots_every", out.snapshotEvery, true))
    return false;
  if ((v = o.find("formats"))) {
    if (!v->isArray() || v->items.empty())
      return r.fail(*v, "'formats' must be a list of \"npy\", \"vtk\"");
    out.npy = out.vtk = false;
    for (const Value &f : v->items) {
      std::string name;
      if (!r.string(f, "formats", name))
        return false;
      if (name == "npy")
        out.npy = true;
      else if (name == "vtk")
        out.vtk = true;
      else
        return r.fail(f, "unknown format '" + name + "' (npy, vtk)");
    }
  }
  if ((v = o.find("biomarkers")) && !readBiomarkers(r, *v, s))
    return false;
  if ((v = o.find("probes"))) {
    if (!v->isObject())
      return r.fail(*v, "'probes' must map names to points [x, y, z] (mm)");
    for (auto &[name, p] : v->members) {
      std::array<double, 3> x{{0, 0, 0}};
      if (!p.isArray() || !r.triple(p, name, x))
        return r.fail(p, "probe '" + name + "' must be [x, y, z] (mm)");
      for (int a = 0; a < 3; ++a)
        if (x[a] < -1e-9 || x[a] > (s.grid.n[a] - 1) * s.grid.h[a] + 1e-9)
          return r.fail(p, "probe '" + name + "' is outside the grid");
      out.probes.push_back(x);
      out.probeNames.push_back(name);
    }
  }
  return true;
}

bool readModel(Reader &r, const Value &doc, TissueSetup &s) {
  const Value *v = doc.find("model");
  if (!v)
    return r.fail(doc, "the configuration needs 'model' (an EasyML model or "
                       "a compiled .so)");
  if (!r.string(*v, "model", s.model))
    return false;
  s.model = r.resolve(s.model);
  if ((v = doc.find("parameters")) && !r.string(*v, "parameters", s.parameters))
    return false;
  if ((v = doc.find("point_parameters"))) {
    if (!v->isObject())
      return r.fail(*v, "'point_parameters' must map parameter names to "
                        ".npy files");
    for (auto &[name, file] : v->members) {
      std::string f;
      if (!r.string(file, name, f))
        return false;
      s.pointParameters.push_back({name, r.resolve(f)});
    }
  }
  if ((v = doc.find("devices")) && !r.string(*v, "devices", s.devices))
    return false;
  if ((v = doc.find("variant")) && !r.string(*v, "variant", s.variant))
    return false;
  int64_t threads = 0;
  if ((v = doc.find("threads")) && !r.integer(*v, "threads", threads, 0))
    return false;
  s.threads = static_cast<int>(threads);
  s.options.threads = s.threads;
  if ((v = doc.find("process_grid")) && !(v->isString() && v->string == "auto")) {
    if (!v->isArray() || v->items.empty() || v->items.size() > 3)
      return r.fail(*v, "'process_grid' must be \"auto\" or 1 to 3 whole "
                        "numbers (boxes along x, y, z)");
    std::array<int, 3> &p = s.options.processGrid.p;
    p = {{1, 1, 1}};
    for (size_t a = 0; a < v->items.size(); ++a) {
      int64_t k = 0;
      if (!r.integer(v->items[a], "process_grid", k, 1))
        return false;
      p[a] = static_cast<int>(std::min<int64_t>(k, 1 << 20));
    }
  }
  if ((v = doc.find("balance_ranks"))) {
    if (v->kind != Value::Bool)
      return r.fail(*v, "'balance_ranks' must be true or false");
    s.options.balanceRanks = v->boolean;
  }
  return true;
}

/// The settings a restart must match: every top-level key but those that
/// choose where the run computes (which changes no bit of its result).
std::string settingsOf(const Value &doc) {
  std::string out;
  for (const auto &[key, value] : doc.members) {
    if (key == "devices" || key == "threads" || key == "variant" ||
        key == "process_grid" || key == "balance_ranks")
      continue;
    Value v = value;
    if (key == "time" && v.isObject())
      v.members.erase(std::remove_if(v.members.begin(), v.members.end(),
                                     [](const auto &m) {
                                       return m.first == "diffusion_on" ||
                                              m.first == "activation_on";
                                     }),
                      v.members.end());
    out += key + "=" + json::write(v) + "\n";
  }
  return out;
}

} // namespace

bool easyml::rt::readTissueConfig(const std::string &path, TissueSetup &setup,
                                  std::string &error) {
  Expected<Value> parsed = json::parseFile(path);
  if (!parsed.ok())
    return error = parsed.status().message(), false;
  const Value &doc = *parsed;
  Reader r;
  r.path = path;
  size_t slash = path.rfind('/');
  r.folder = slash == std::string::npos ? "" : path.substr(0, slash + 1);
  const Value *v;
  bool ok = r.known(doc, "the configuration",
                    {"model", "parameters", "point_parameters", "devices",
                     "variant", "threads", "process_grid", "balance_ranks",
                     "grid", "conductivity", "time", "stimuli", "outputs"}) &&
            readModel(r, doc, setup);
  if (ok && !(v = doc.find("grid")))
    ok = r.fail(doc, "the configuration needs 'grid'");
  ok = ok && readGrid(r, *v, setup.grid);
  if (ok && (v = doc.find("conductivity")))
    ok = readConductivity(r, *v, setup.conductivity);
  if (ok && !(v = doc.find("time")))
    ok = r.fail(doc, "the configuration needs 'time'");
  ok = ok && readTime(r, *v, setup);
  if (ok && (v = doc.find("stimuli"))) {
    if (!v->isArray())
      ok = r.fail(*v, "'stimuli' must be a list");
    for (size_t i = 0; ok && i < v->items.size(); ++i)
      ok = readStimulus(r, v->items[i], setup);
  }
  if (ok && (v = doc.find("outputs")))
    ok = readOutputs(r, *v, setup);
  if (ok && !setup.outputs.directory.empty())
    setup.outputs.directory = r.resolve(setup.outputs.directory);
  setup.settings = settingsOf(doc);
  error = r.error;
  return ok;
}
