//===- ModelInfo.cpp - a model and the machine, for people ----------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/Apps/ModelInfo.h"
#include "easyml/Runtime/Devices/GpuDriver.h"
#include "easyml/ABI/Occupancy.h"

#include <cmath>
#include <string>

using namespace easyml::rt;

void easyml::rt::describeDevices(FILE *out, const easyml_model_desc *d) {
  for (Backend vendor : kGpuBackends) {
    std::string error;
    auto driver = GpuDriver::open(vendor, error);
    if (!driver) {
      std::fprintf(out, "%s: %s\n", backendName(vendor), error.c_str());
      continue;
    }
    auto devices = driver->devices(error);
    std::fprintf(out, "%s: %s, %zu device%s%s%s\n", backendName(vendor),
                 driver->version().c_str(), devices.size(),
                 devices.size() == 1 ? "" : "s", error.empty() ? "" : "; ",
                 error.c_str());
    for (const GpuDeviceInfo &dev : devices) {
      std::fprintf(out, "  device %d: %s%s%s, %.1f GiB\n", dev.index,
                   dev.name.c_str(), dev.arch.empty() ? "" : ", ",
                   dev.arch.c_str(), dev.memoryBytes / 1073741824.0);
      if (!d)
        continue;
      for (int64_t i = 0; i < d->num_variants; ++i) {
        const easyml_variant &v = d->variants[i];
        if (backendOf(v) != vendor)
          continue;
        std::string why;
        const easyml_gpu_image *image = driver->selectImage(v, dev, why);
        if (image)
          std::fprintf(out, "    %s: loads %s %s\n", v.name, image->chip,
                       image->format);
        else
          std::fprintf(out, "    %s: %s\n", v.name, why.c_str());
      }
    }
  }
}

void easyml::rt::describeModel(FILE *out, const ParamSet &ps) {
  const easyml_model_desc &d = ps.desc();
  std::fprintf(out, "Ionic model: %s\n", d.name);
  std::fprintf(out, "  source: %s\n  compiled by: %s\n", d.source, d.compiler);
  int64_t numFree = d.num_params - d.num_derived_params;
  std::fprintf(out, "\nParameters (%lld):\n", static_cast<long long>(numFree));
  for (int64_t i = 0; i < d.num_params; ++i)
    if (!ps.isDerived(i))
      std::fprintf(out, "  %-24s %-14g %s%s\n", d.param_names[i], ps.value(i),
                   d.param_units[i], ps.isSet(i) ? "  (set)" : "");
  if (d.num_derived_params) {
    // Computed from the others: a change of what they read reaches them
    // unless they are set themselves.
    std::fprintf(out,
                 "\nDerived parameters (%lld), computed from the others:\n",
                 static_cast<long long>(d.num_derived_params));
    for (int64_t k = 0; k < d.num_derived_params; ++k) {
      int64_t p = d.derived_params[k];
      std::string reads;
      for (int64_t r : ps.reads(p))
        reads += (reads.empty() ? "" : ", ") + ps.name(r);
      std::fprintf(out, "  %-24s %-14g %s%s\n      = %s\n      reads: %s\n",
                   d.param_names[p], ps.value(p), d.param_units[p],
                   ps.isSet(p) ? "  (set: no longer follows its definition)"
                               : "",
                   ps.formula(p).c_str(), reads.c_str());
    }
  }
  std::fprintf(out, "\nFlags (%lld):\n", static_cast<long long>(d.num_flags));
  for (int64_t i = 0; i < d.num_flags; ++i)
    std::fprintf(out, "  %-24s %-14g %s%s\n", d.flag_names[i],
                 ps.value(d.num_params + i), d.flag_cases[i],
                 ps.isSet(d.num_params + i) ? "  (set)" : "");
  std::fprintf(out, "\nState variables (%lld):\n",
               static_cast<long long>(d.num_states));
  for (int64_t i = 0; i < d.num_states; ++i) {
    std::fprintf(out, "  %-24s %-12s %s", d.state_names[i], d.state_methods[i],
                 d.state_units[i]);
    if (!std::isnan(d.state_lb[i]))
      std::fprintf(out, "  lb %g", d.state_lb[i]);
    if (!std::isnan(d.state_ub[i]))
      std::fprintf(out, "  ub %g", d.state_ub[i]);
    std::fprintf(out, "\n");
  }
  std::fprintf(out, "\nExternals (%lld):\n",
               static_cast<long long>(d.num_externals));
  static const char *access[] = {"read", "write", "read/write"};
  for (int64_t i = 0; i < d.num_externals; ++i)
    std::fprintf(out, "  %-24s %-12s %s\n", d.external_names[i],
                 d.external_sim_names[i], access[d.external_access[i]]);
  std::fprintf(out, "\nLookup tables (%lld):\n",
               static_cast<long long>(d.num_tables));
  for (int64_t i = 0; i < d.num_tables; ++i)
    std::fprintf(out, "  %-24s [%g, %g] step %g: %lld rows x %lld columns\n",
                 d.tables[i].variable, d.tables[i].lo, d.tables[i].hi,
                 d.tables[i].step, static_cast<long long>(d.tables[i].num_rows),
                 static_cast<long long>(d.tables[i].num_columns));
  std::fprintf(out, "\nVariants:");
  for (int64_t i = 0; i < d.num_variants; ++i) {
    const easyml_variant &v = d.variants[i];
    std::fprintf(out, " %s", v.name);
    if (v.vector_width > 1)
      std::fprintf(out, " (%lld cells per vector)",
                   static_cast<long long>(v.vector_width));
    if (backendOf(v) != Backend::Cpu) {
      std::fprintf(out, " (");
      for (int64_t k = 0; k < v.num_images; ++k)
        std::fprintf(out, "%s%s %s, %lld bytes", k ? "; " : "",
                     v.images[k].chip, v.images[k].format,
                     static_cast<long long>(v.images[k].size));
      std::fprintf(out, ")");
    }
  }
  std::fprintf(out, "\n");
  // What each GPU code object's compute kernel uses, as read from the code
  // object when it was built, and the launch it was built for.
  bool header = false;
  for (int64_t i = 0; i < d.num_variants; ++i) {
    const easyml_variant &v = d.variants[i];
    for (int64_t k = 0; backendOf(v) != Backend::Cpu && k < v.num_images;
         ++k) {
      const easyml_gpu_image &image = v.images[k];
      if (!header)
        std::fprintf(out,
                     "\nGPU compute kernels (from the code objects):\n"
                     "  %-8s %-8s %9s %11s %7s %10s\n",
                     "variant", "chip", "registers", "local bytes", "block",
                     "occupancy");
      header = true;
      if (image.registers <= 0) {
        std::fprintf(out, "  %-8s %-8s %9s %11s %7s %10s\n", v.name, image.chip,
                     "?", "?", "128", "?");
        continue;
      }
      double occupancy =
          gpuOccupancy(image.chip, image.registers, image.block_size);
      char occ[16] = "?";
      if (occupancy > 0)
        std::snprintf(occ, sizeof(occ), "%.1f%%", 100 * occupancy);
      std::fprintf(out, "  %-8s %-8s %9lld %11lld %7lld %10s\n", v.name,
                   image.chip, static_cast<long long>(image.registers),
                   static_cast<long long>(image.spill_bytes),
                   static_cast<long long>(image.block_size), occ);
    }
  }
}
