//===- Emulator.cpp - a GPU over host memory for tests --------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "Emulator.h"

#include "easyml/Runtime/ABI.h"

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <map>
#include <string>

using namespace easyml::emulated;

namespace {
struct Module {
  const easyml_model_desc *desc = nullptr;
  const easyml_variant *variant = nullptr;
};

struct Function {
  const easyml_model_desc *desc;
  easyml_kernel_fn fn;
  bool compute;
};

size_t allocated = 0;
std::map<uintptr_t, size_t> blocks;

/// The model and CPU variant standing in for the GPU's kernels: from the
/// library named, or (spec "<variant>" alone) the library holding `image`.
bool substitute(Module &m, const void *image) {
  const char *spec = std::getenv("EASYML_EMULATED_KERNELS");
  if (!spec)
    return false;
  std::string s(spec), path;
  size_t colon = s.rfind(':');
  Dl_info where;
  if (colon != std::string::npos)
    path = s.substr(0, colon);
  else if (dladdr(image, &where) && where.dli_fname)
    path = where.dli_fname;
  else
    return false;
  void *lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib)
    return false;
  m.desc = static_cast<const easyml_model_desc *>(dlsym(lib, "easyml_model"));
  if (!m.desc)
    return false;
  std::string name = colon == std::string::npos ? s : s.substr(colon + 1);
  for (int64_t i = 0; i < m.desc->num_variants; ++i) {
    const easyml_variant &v = m.desc->variants[i];
    if (name == v.name && v.device == EASYML_DEVICE_CPU &&
        v.layout == EASYML_LAYOUT_SOA && v.vector_width == 1) {
      m.variant = &v;
      return true;
    }
  }
  return false;
}

bool endsWith(const std::string &s, const std::string &suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

double seconds() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}
} // namespace

const char *easyml::emulated::statusText(int code) {
  switch (code) {
  case kOutOfMemory:
    return "out of memory";
  case kInvalidImage:
    return "device kernel image is invalid";
  case kNoBinaryForGpu:
    return "no kernel image is available for execution on the device";
  case kNotFound:
    return "named symbol not found";
  case kInvalidDevice:
    return "invalid device ordinal";
  default:
    return nullptr;
  }
}

int easyml::emulated::numDevices() {
  const char *n = std::getenv("EASYML_EMULATED_DEVICES");
  return n ? std::atoi(n) : 1;
}

int easyml::emulated::deviceGet(int *handle, int ordinal) {
  if (ordinal < 0 || ordinal >= numDevices())
    return kInvalidDevice;
  *handle = ordinal;
  return kSuccess;
}

size_t easyml::emulated::memoryPerDevice() {
  const char *m = std::getenv("EASYML_EMULATED_MEMORY");
  return m ? std::strtoull(m, nullptr, 10) : (size_t(1) << 30);
}

int easyml::emulated::loadModule(void **module, const void *image) {
  auto *m = new Module{};
  if (!substitute(*m, image)) {
    delete m;
    return kInvalidImage;
  }
  *module = m;
  return kSuccess;
}

int easyml::emulated::getFunction(void **function, void *module,
                                  const char *name) {
  auto *m = static_cast<Module *>(module);
  std::string n(name);
  auto *f = new Function{m->desc, nullptr, false};
  if (endsWith(n, "_init"))
    f->fn = m->variant->init;
  else if (endsWith(n, "_compute")) {
    f->fn = m->variant->compute;
    f->compute = true;
  } else if (endsWith(n, "_eval"))
    f->fn = m->variant->eval;
  if (!f->fn) {
    delete f;
    return kNotFound;
  }
  *function = f;
  return kSuccess;
}

int easyml::emulated::allocate(void **pointer, size_t bytes) {
  if (allocated + bytes > memoryPerDevice())
    return kOutOfMemory;
  void *mem = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
  if (!mem)
    return kOutOfMemory;
  allocated += bytes;
  blocks[reinterpret_cast<uintptr_t>(mem)] = bytes;
  *pointer = mem;
  return kSuccess;
}

int easyml::emulated::release(void *pointer) {
  auto it = blocks.find(reinterpret_cast<uintptr_t>(pointer));
  if (it == blocks.end())
    return kInvalidValue;
  allocated -= it->second;
  blocks.erase(it);
  std::free(pointer);
  return kSuccess;
}

int easyml::emulated::launch(void *function, void **params) {
  auto *f = static_cast<Function *>(function);
  const auto *args = *static_cast<easyml_kernel_args **>(params[0]);
  f->fn(args);
  if (f->compute) {
    // As the GPU compute kernels: count cells left non-finite.
    const easyml_model_desc &d = *f->desc;
    int64_t bad = 0;
    for (int64_t c = args->begin; c < args->end; ++c) {
      bool finite = true;
      for (int64_t v = 0; v < d.num_states; ++v)
        finite &= std::isfinite(args->sv[v * args->stride + c]);
      for (int64_t e = 0; e < d.num_externals; ++e)
        finite &= std::isfinite(args->ext[e][c]);
      bad += !finite;
    }
    args->counters[d.num_counters] += bad;
  }
  return kSuccess;
}

int easyml::emulated::createStream(void **stream) {
  *stream = new int(0);
  return kSuccess;
}

int easyml::emulated::destroyStream(void *stream) {
  delete static_cast<int *>(stream);
  return kSuccess;
}

int easyml::emulated::createEvent(void **event) {
  *event = new double(0);
  return kSuccess;
}

int easyml::emulated::recordEvent(void *event) {
  *static_cast<double *>(event) = seconds();
  return kSuccess;
}

int easyml::emulated::elapsedMs(float *ms, void *start, void *stop) {
  *ms = static_cast<float>(
      (*static_cast<double *>(stop) - *static_cast<double *>(start)) * 1e3);
  return kSuccess;
}

int easyml::emulated::destroyEvent(void *event) {
  delete static_cast<double *>(event);
  return kSuccess;
}
