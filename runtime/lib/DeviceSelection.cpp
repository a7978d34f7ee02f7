//===- DeviceSelection.cpp - the devices a simulation may use -------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// Parses a device list ("cpu", "gpu:0,2", "cuda:all", "cpu+gpu:all",
// "auto") and opens the devices it names for one model: CPU pools for its
// CPU variants, and every GPU whose driver is present and for which the
// model has a code object.
//
//===----------------------------------------------------------------------===//

#include "DeviceSelection.h"

#include "easyml/Runtime/GpuDriver.h"

#include <algorithm>
#include <sstream>

using namespace easyml::rt;

namespace {

std::string variantList(const easyml_model_desc &d) {
  std::string names;
  for (int64_t i = 0; i < d.num_variants; ++i)
    names += (i ? ", " : "") + std::string(d.variants[i].name);
  return names.empty() ? "none" : names;
}

/// A GPU the model can run on.
struct GpuCandidate {
  GpuVendor vendor;
  std::shared_ptr<GpuDriver> driver;
  GpuDeviceInfo info;
  const easyml_variant *variant;
  std::string id() const {
    return std::string(vendorName(vendor)) + ":" + std::to_string(info.index);
  }
};

/// One item of a device list: "cpu[:variant][@threads]", "auto",
/// "gpu[:sel]", "cuda[:sel]", "rocm[:sel]" with sel = "all" or indices
/// separated by ','.
struct Item {
  std::string kind;
  std::string text;
  bool all = true;
  std::vector<int> indices;
  /// cpu: the variant ("" = the options' cpuVariant) and threads (0 = the
  /// options' threads).
  std::string variant;
  int threads = 0;
};

bool parseDevices(const std::string &spec, std::vector<Item> &items,
                  std::string &error) {
  std::string s = spec;
  s.erase(std::remove_if(s.begin(), s.end(), ::isspace), s.end());
  if (s.empty()) {
    error = "empty device list (expected cpu, gpu:0,1, cuda:all, "
            "cpu+gpu:all or auto)";
    return false;
  }
  std::stringstream parts(s);
  for (std::string part; std::getline(parts, part, '+');) {
    Item item;
    item.text = part;
    size_t colon = part.find(':');
    item.kind = part.substr(0, colon);
    if (item.kind.rfind("cpu@", 0) == 0)
      item.kind = "cpu";
    if (item.kind != "cpu" && item.kind != "auto" && item.kind != "gpu" &&
        item.kind != "cuda" && item.kind != "rocm") {
      error = "unknown device '" + part + "' in '" + spec +
              "' (expected cpu[:VARIANT][@THREADS], gpu[:N,...|all], "
              "cuda[:...], rocm[:...] or auto)";
      return false;
    }
    if (item.kind == "cpu") {
      // cpu[:variant][@threads]
      std::string rest = part.substr(3);
      size_t at = rest.find('@');
      if (at != std::string::npos) {
        std::string n = rest.substr(at + 1);
        char *end = nullptr;
        long v = std::strtol(n.c_str(), &end, 10);
        if (n.empty() || *end || v <= 0 || v > 4096) {
          error = "bad thread count '" + n + "' in '" + spec +
                  "' (expected cpu@N with N > 0)";
          return false;
        }
        item.threads = static_cast<int>(v);
        rest = rest.substr(0, at);
      }
      if (!rest.empty()) {
        item.variant = rest.substr(1);
        if (rest[0] != ':' || item.variant.empty()) {
          error = "bad CPU device '" + part + "' in '" + spec +
                  "' (expected cpu, cpu:VARIANT, cpu@THREADS or "
                  "cpu:VARIANT@THREADS)";
          return false;
        }
      }
      items.push_back(item);
      continue;
    }
    if (colon != std::string::npos) {
      std::string sel = part.substr(colon + 1);
      if (item.kind == "auto") {
        error = "'auto' takes no device numbers (in '" + spec + "')";
        return false;
      }
      if (sel != "all") {
        item.all = false;
        std::stringstream nums(sel);
        for (std::string n; std::getline(nums, n, ',');) {
          char *end = nullptr;
          long v = std::strtol(n.c_str(), &end, 10);
          if (n.empty() || *end || v < 0) {
            error = "bad device number '" + n + "' in '" + spec + "'";
            return false;
          }
          item.indices.push_back(static_cast<int>(v));
        }
      }
    }
    items.push_back(item);
  }
  return true;
}
} // namespace

bool easyml::rt::selectDevices(const ModelHandle &model,
                               const SimulationOptions &options, DeviceSet &set,
                               std::string &error) {
  const easyml_model_desc &d = model.desc();
  std::vector<Item> items;
  if (!parseDevices(options.devices, items, error))
    return false;
  bool automatic = false, wantGpu = false;
  for (const Item &item : items) {
    automatic |= item.kind == "auto";
    wantGpu |= item.kind != "cpu" && item.kind != "auto";
  }
  if (automatic && items.size() > 1) {
    error = "'auto' chooses the devices itself: give it alone (not '" +
            options.devices + "')";
    return false;
  }
  set.automatic = automatic;

  // The CPU pools: one per cpu item (or one for auto).
  auto cpuVariantOf = [&](const std::string &name,
                          const easyml_variant *&v) -> bool {
    v = model.variant(name);
    if (v && v->device != EASYML_DEVICE_CPU) {
      error = "variant '" + name + "' of model " + d.name +
              " runs on a GPU, not on the CPU (give the GPU in the device "
              "list, e.g. " +
              (v->device == EASYML_DEVICE_CUDA ? "cuda:0" : "rocm:0") + ")";
      return false;
    }
    if (!v) {
      error = name.empty() ? "model " + std::string(d.name) +
                                 " has no CPU variant (compiled variants: " +
                                 variantList(d) + ")"
                           : "model " + std::string(d.name) +
                                 " has no variant '" + name +
                                 "' (compiled variants: " + variantList(d) +
                                 ")";
      return false;
    }
    return true;
  };
  std::vector<const Item *> cpuItems;
  for (const Item &item : items)
    if (item.kind == "cpu")
      cpuItems.push_back(&item);
  for (const Item *item : cpuItems) {
    const easyml_variant *v = nullptr;
    if (!cpuVariantOf(item->variant.empty() ? options.cpuVariant
                                            : item->variant,
                      v))
      return false;
    // A lone "cpu" keeps the id "cpu" (remembered speeds use it); several
    // are told apart by what was written.
    std::string id = cpuItems.size() == 1 ? "cpu" : item->text;
    for (const auto &other : set.devices)
      if (other->id() == id) {
        error = "device '" + id + "' given twice in '" + options.devices +
                "'";
        return false;
      }
    int index = static_cast<int>(set.devices.size());
    set.devices.push_back(makeCpuDevice(
        d, *v, item->threads ? item->threads : options.threads, id));
    set.cpus.push_back(index);
    set.cpuThreadsGiven.push_back(item->threads != 0);
    set.initial.push_back(index);
  }
  if (automatic) {
    const easyml_variant *v = nullptr;
    if (cpuVariantOf(options.cpuVariant, v)) {
      set.cpus.push_back(static_cast<int>(set.devices.size()));
      set.devices.push_back(makeCpuDevice(d, *v, options.threads, "cpu"));
      set.cpuThreadsGiven.push_back(false);
    } else if (!options.cpuVariant.empty()) {
      return false; // a CPU variant asked for that is not there
    } else {
      error.clear(); // no CPU variant: auto dimensions the GPUs alone
    }
  }
  if (!set.cpus.empty())
    set.cpu = set.cpus.front();
  if (!wantGpu && !automatic)
    return true;

  // The GPUs the model has code for, CUDA first.
  std::vector<GpuCandidate> candidates;
  std::string why[2];
  for (GpuVendor vendor : {GpuVendor::Cuda, GpuVendor::Rocm}) {
    int slot = vendor == GpuVendor::Cuda ? 0 : 1;
    const easyml_variant *v = nullptr;
    for (int64_t i = 0; i < d.num_variants; ++i)
      if (d.variants[i].device ==
          (vendor == GpuVendor::Cuda ? EASYML_DEVICE_CUDA : EASYML_DEVICE_ROCM))
        v = &d.variants[i];
    if (!v) {
      why[slot] = "model " + std::string(d.name) + " has no " +
                  vendorName(vendor) +
                  " variant (compiled variants: " + variantList(d) +
                  "; recompile with --variant=...," + vendorName(vendor) + ")";
      continue;
    }
    std::string err;
    auto driver = GpuDriver::open(vendor, err);
    if (!driver) {
      why[slot] = err;
      continue;
    }
    auto infos = driver->devices(err);
    if (infos.empty())
      why[slot] = std::string("the ") + vendorName(vendor) +
                  " driver reports no device" + (err.empty() ? "" : ": " + err);
    for (const GpuDeviceInfo &info : infos)
      candidates.push_back({vendor, driver, info, v});
  }
  auto describeAll = [&] {
    std::string s;
    for (size_t i = 0; i < candidates.size(); ++i)
      s += (i ? ", " : "") + std::string("gpu:") + std::to_string(i) + " = " +
           candidates[i].id() + " " + candidates[i].info.name;
    return s;
  };
  auto noGpuReason = [&](int slot) {
    return why[slot].empty() ? std::string("none found") : why[slot];
  };

  std::vector<size_t> chosen;
  auto add = [&](size_t c) {
    if (std::find(chosen.begin(), chosen.end(), c) == chosen.end())
      chosen.push_back(c);
  };
  for (const Item &item : items) {
    if (item.kind == "cpu")
      continue;
    if (item.kind == "auto" || item.kind == "gpu") {
      if (candidates.empty()) {
        if (item.kind == "auto")
          break; // the CPU alone
        error = "no GPU can run model " + std::string(d.name) +
                " (cuda: " + noGpuReason(0) + "; rocm: " + noGpuReason(1) + ")";
        return false;
      }
      if (item.all) {
        for (size_t c = 0; c < candidates.size(); ++c)
          add(c);
        continue;
      }
      for (int i : item.indices) {
        if (i >= static_cast<int>(candidates.size())) {
          error = "no GPU " + std::to_string(i) + ": " +
                  std::to_string(candidates.size()) + " GPU" +
                  (candidates.size() == 1 ? "" : "s") + " can run model " +
                  d.name + " (" + describeAll() + ")";
          return false;
        }
        add(i);
      }
      continue;
    }
    GpuVendor vendor = item.kind == "cuda" ? GpuVendor::Cuda : GpuVendor::Rocm;
    int slot = vendor == GpuVendor::Cuda ? 0 : 1;
    std::vector<size_t> ofVendor;
    for (size_t c = 0; c < candidates.size(); ++c)
      if (candidates[c].vendor == vendor)
        ofVendor.push_back(c);
    if (ofVendor.empty()) {
      error = "no " + item.kind + " device: " + noGpuReason(slot);
      return false;
    }
    if (item.all) {
      for (size_t c : ofVendor)
        add(c);
      continue;
    }
    for (int i : item.indices) {
      auto it = std::find_if(ofVendor.begin(), ofVendor.end(), [&](size_t c) {
        return candidates[c].info.index == i;
      });
      if (it == ofVendor.end()) {
        std::string found;
        for (size_t c : ofVendor)
          found += (found.empty() ? "" : ", ") + candidates[c].id() + " " +
                   candidates[c].info.name;
        error = "no " + item.kind + " device " + std::to_string(i) + ": " +
                std::to_string(ofVendor.size()) + " found (" + found + ")";
        return false;
      }
      add(*it);
    }
  }
  for (size_t c : chosen) {
    const GpuCandidate &g = candidates[c];
    std::string err;
    auto device = makeGpuDevice(d, *g.variant, g.driver, g.info, err);
    if (!device) {
      error = g.id() + " (" + g.info.name + "): " + err;
      return false;
    }
    int index = static_cast<int>(set.devices.size());
    set.devices.push_back(std::move(device));
    set.gpus.push_back(index);
    if (!automatic)
      set.initial.push_back(index);
  }
  if (set.devices.empty()) {
    error = "no device can run model " + std::string(d.name) +
            " (compiled variants: " + variantList(d) + ")";
    return false;
  }
  return true;
}
