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

#include "easyml/Runtime/Devices/GpuDriver.h"

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
  Backend vendor;
  std::shared_ptr<GpuDriver> driver;
  GpuDeviceInfo info;
  const easyml_variant *variant;
  std::string id() const {
    return std::string(backendName(vendor)) + ":" + std::to_string(info.index);
  }
};

} // namespace

namespace {

using Item = DeviceSpec::Item;

/// Opens the devices a model and its options call for, step by step.
class Selection {
public:
  Selection(const ModelHandle &model, const SimulationOptions &options,
            DeviceSet &set, std::string &error)
      : model_(model), d_(model.desc()), options_(options),
        spec_(options.devices), set_(set), error_(error) {}

  bool run() {
    if (!spec_.valid()) {
      error_ = spec_.error;
      return false;
    }
    set_.automatic = spec_.automatic();
    if (!addCpuPools())
      return false;
    if (!set_.cpus.empty())
      set_.cpu = set_.cpus.front();
    if (!spec_.wantsGpu() && !set_.automatic)
      return true;
    findGpus();
    if (!chooseGpus() || !openGpus())
      return false;
    if (set_.devices.empty()) {
      error_ = "no device can run model " + std::string(d_.name) +
               " (compiled variants: " + variantList(d_) + ")";
      return false;
    }
    return true;
  }

private:
  /// The CPU variant `name` ("": the default) of the model.
  bool cpuVariant(const std::string &name, const easyml_variant *&v) {
    v = model_.variant(name);
    if (v && backendOf(*v) != Backend::Cpu) {
      error_ = "variant '" + name + "' of model " + d_.name +
               " runs on a GPU, not on the CPU (give the GPU in the device "
               "list, e.g. " +
               backendName(backendOf(*v)) + ":0)";
      return false;
    }
    if (!v) {
      error_ = "model " + std::string(d_.name) +
               (name.empty() ? " has no CPU variant"
                             : " has no variant '" + name + "'") +
               " (compiled variants: " + variantList(d_) + ")";
      return false;
    }
    return true;
  }

  /// One pool per cpu item (and one for auto).
  bool addCpuPools() {
    std::vector<const Item *> cpuItems;
    for (const Item &item : spec_.items)
      if (item.kind == Item::Kind::Cpu)
        cpuItems.push_back(&item);
    for (const Item *item : cpuItems) {
      const easyml_variant *v = nullptr;
      if (!cpuVariant(
              item->variant.empty() ? options_.cpuVariant : item->variant, v))
        return false;
      // A lone "cpu" keeps the id "cpu" (remembered speeds use it);
      // several are told apart by what was written.
      std::string id = cpuItems.size() == 1 ? "cpu" : item->text;
      for (const auto &other : set_.devices)
        if (other->id() == id) {
          error_ = "device '" + id + "' given twice in '" + spec_.str() + "'";
          return false;
        }
      int index = static_cast<int>(set_.devices.size());
      set_.devices.push_back(makeCpuDevice(
          d_, *v, item->threads ? item->threads : options_.threads, id));
      set_.cpus.push_back(index);
      set_.cpuThreadsGiven.push_back(item->threads != 0);
      set_.initial.push_back(index);
    }
    if (!set_.automatic)
      return true;
    const easyml_variant *v = nullptr;
    if (cpuVariant(options_.cpuVariant, v)) {
      set_.cpus.push_back(static_cast<int>(set_.devices.size()));
      set_.devices.push_back(makeCpuDevice(d_, *v, options_.threads, "cpu"));
      set_.cpuThreadsGiven.push_back(false);
      return true;
    }
    if (!options_.cpuVariant.empty())
      return false; // a CPU variant asked for that is not there
    error_.clear(); // no CPU variant: auto dimensions the GPUs alone
    return true;
  }

  /// The GPUs the model has code for, CUDA first.
  void findGpus() {
    for (Backend backend : kGpuBackends) {
      std::string &why = why_[slot(backend)];
      const easyml_variant *v = nullptr;
      for (int64_t i = 0; i < d_.num_variants; ++i)
        if (backendOf(d_.variants[i]) == backend)
          v = &d_.variants[i];
      if (!v) {
        why = "model " + std::string(d_.name) + " has no " +
              backendName(backend) +
              " variant (compiled variants: " + variantList(d_) +
              "; recompile with --variant=...," + backendName(backend) + ")";
        continue;
      }
      auto driver = GpuDriver::open(backend, why);
      if (!driver)
        continue;
      std::string err;
      auto infos = driver->devices(err);
      if (infos.empty())
        why = std::string("the ") + backendName(backend) +
              " driver reports no device" + (err.empty() ? "" : ": " + err);
      for (const GpuDeviceInfo &info : infos)
        candidates_.push_back({backend, driver, info, v});
    }
  }

  static int slot(Backend b) { return b == Backend::Cuda ? 0 : 1; }
  std::string noGpuReason(int s) const {
    return why_[s].empty() ? std::string("none found") : why_[s];
  }
  void add(size_t c) {
    if (std::find(chosen_.begin(), chosen_.end(), c) == chosen_.end())
      chosen_.push_back(c);
  }

  /// A "gpu" or "auto" item: GPUs of either backend, numbered together.
  bool chooseAnyGpu(const Item &item) {
    if (candidates_.empty()) {
      if (item.kind == Item::Kind::Auto)
        return true; // the CPU alone
      error_ = "no GPU can run model " + std::string(d_.name) +
               " (cuda: " + noGpuReason(0) + "; rocm: " + noGpuReason(1) + ")";
      return false;
    }
    if (item.all) {
      for (size_t c = 0; c < candidates_.size(); ++c)
        add(c);
      return true;
    }
    for (int i : item.indices) {
      if (i >= static_cast<int>(candidates_.size())) {
        std::string all;
        for (size_t c = 0; c < candidates_.size(); ++c)
          all += (c ? ", " : "") + std::string("gpu:") + std::to_string(c) +
                 " = " + candidates_[c].id() + " " + candidates_[c].info.name;
        error_ = "no GPU " + std::to_string(i) + ": " +
                 std::to_string(candidates_.size()) + " GPU" +
                 (candidates_.size() == 1 ? "" : "s") + " can run model " +
                 d_.name + " (" + all + ")";
        return false;
      }
      add(i);
    }
    return true;
  }

  /// A "cuda" or "rocm" item: that backend's devices by their index.
  bool chooseBackendGpu(const Item &item) {
    std::vector<size_t> mine;
    for (size_t c = 0; c < candidates_.size(); ++c)
      if (candidates_[c].vendor == item.backend)
        mine.push_back(c);
    std::string name = backendName(item.backend);
    if (mine.empty()) {
      error_ = "no " + name + " device: " + noGpuReason(slot(item.backend));
      return false;
    }
    if (item.all) {
      for (size_t c : mine)
        add(c);
      return true;
    }
    for (int i : item.indices) {
      auto it = std::find_if(mine.begin(), mine.end(), [&](size_t c) {
        return candidates_[c].info.index == i;
      });
      if (it == mine.end()) {
        std::string found;
        for (size_t c : mine)
          found += (found.empty() ? "" : ", ") + candidates_[c].id() + " " +
                   candidates_[c].info.name;
        error_ = "no " + name + " device " + std::to_string(i) + ": " +
                 std::to_string(mine.size()) + " found (" + found + ")";
        return false;
      }
      add(*it);
    }
    return true;
  }

  bool chooseGpus() {
    for (const Item &item : spec_.items) {
      bool ok = item.kind == Item::Kind::Cpu   ? true
                : item.kind == Item::Kind::Gpu ? chooseBackendGpu(item)
                                               : chooseAnyGpu(item);
      if (!ok)
        return false;
    }
    return true;
  }

  bool openGpus() {
    for (size_t c : chosen_) {
      const GpuCandidate &g = candidates_[c];
      std::string err;
      auto device = makeGpuDevice(d_, *g.variant, g.driver, g.info, err);
      if (!device) {
        error_ = g.id() + " (" + g.info.name + "): " + err;
        return false;
      }
      int index = static_cast<int>(set_.devices.size());
      set_.devices.push_back(std::move(device));
      set_.gpus.push_back(index);
      if (!set_.automatic)
        set_.initial.push_back(index);
    }
    return true;
  }

  const ModelHandle &model_;
  const easyml_model_desc &d_;
  const SimulationOptions &options_;
  const DeviceSpec &spec_;
  DeviceSet &set_;
  std::string &error_;
  std::vector<GpuCandidate> candidates_;
  std::vector<size_t> chosen_;
  std::string why_[2];
};

} // namespace

bool easyml::rt::selectDevices(const ModelHandle &model,
                               const SimulationOptions &options, DeviceSet &set,
                               std::string &error) {
  return Selection(model, options, set, error).run();
}
