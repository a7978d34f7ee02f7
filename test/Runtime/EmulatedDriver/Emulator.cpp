//===- Emulator.cpp - GPUs over host memory for tests ---------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "Emulator.h"

#include "easyml/ABI/ABI.h"

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <dlfcn.h>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

using namespace easyml::emulated;

namespace {
/// A GPU kernel compiled for the host (easyml-copy-gpu-kernels-to-host).
using HostKernelFn = void (*)(const easyml_kernel_args *, const double *);
/// The host copy of a diffusion kernel (ABI 6): one argument, the second
/// pointer of every host copy unused.
using HostDiffuseFn = void (*)(const easyml_diffusion_args *, const void *);

struct Module {
  const easyml_model_desc *desc = nullptr;
  /// The CPU variant standing in for the kernels, or null when the
  /// kernels' host copies run (EASYML_EMULATED_KERNELS=host).
  const easyml_variant *variant = nullptr;
  void *library = nullptr;
  /// Doubles the GPU variant whose code object was loaded takes by value
  /// after the kernel arguments (ABI 4).
  int64_t paramsByValue = 0;
};

struct Function {
  const easyml_model_desc *desc;
  easyml_kernel_fn fn;
  HostKernelFn host;
  bool compute;
  int64_t paramsByValue;
  /// The diffusion kernel: its host copy, or the CPU variant's entry.
  HostDiffuseFn hostDiffuse = nullptr;
  easyml_diffuse_fn diffuse = nullptr;
};

double hostSeconds() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

double envNumber(const char *name, double fallback) {
  const char *v = std::getenv(name);
  return v && *v ? std::strtod(v, nullptr) : fallback;
}

/// The modelled speed of `device` (cell-steps per second), or 0: host
/// time.
double modelledRate(int device) {
  const char *spec = std::getenv("EASYML_EMULATED_RATE");
  if (!spec || !*spec)
    return 0;
  std::vector<double> rates;
  for (const char *p = spec; *p;) {
    char *end = nullptr;
    rates.push_back(std::strtod(p, &end));
    p = *end == ',' ? end + 1 : end + std::strlen(end);
  }
  if (rates.empty())
    return 0;
  return rates[std::min<size_t>(device, rates.size() - 1)];
}

/// Modelled cost of steps [step0, step0 + nsteps) on `device` relative to
/// its rate, by EASYML_EMULATED_PHASE=PERIOD:FRACTION:FACTOR[,FACTOR...]:
/// steps in the first FRACTION of every PERIOD steps cost FACTOR times
/// (one factor per device, the last repeating), the rest once. Unset: the
/// step count.
double modelledSteps(int device, int64_t step0, int64_t nsteps) {
  const char *spec = std::getenv("EASYML_EMULATED_PHASE");
  long long period = 0;
  double fraction = 0;
  int used = 0;
  if (!spec || std::sscanf(spec, "%lld:%lf:%n", &period, &fraction, &used) < 2 ||
      period <= 0 || used == 0)
    return static_cast<double>(nsteps);
  std::vector<double> factors;
  for (const char *p = spec + used; *p;) {
    char *end = nullptr;
    factors.push_back(std::strtod(p, &end));
    if (end == p)
      break;
    p = *end == ',' ? end + 1 : end;
  }
  if (factors.empty())
    return static_cast<double>(nsteps);
  double factor = factors[std::min<size_t>(device, factors.size() - 1)];
  int64_t hot = static_cast<int64_t>(fraction * period);
  // Steps whose phase is below `hot`, counted period by period.
  auto hotBefore = [&](int64_t s) {
    int64_t whole = s / period, part = s % period;
    return whole * hot + std::min(part, hot);
  };
  double expensive =
      static_cast<double>(hotBefore(step0 + nsteps) - hotBefore(step0));
  return static_cast<double>(nsteps) + (factor - 1) * expensive;
}

/// Modelled cell-steps of a compute launch over cells [begin, end) on
/// `device`: by EASYML_EMULATED_EXCITED=EXT:THRESHOLD:FACTOR[,FACTOR...],
/// a cell whose external EXT is at least THRESHOLD after the launch costs
/// FACTOR times (one factor per device, the last repeating: a tissue's
/// excited cells, whose region travels with the wave); unset, every cell
/// once.
double modelledCells(int device, const easyml_kernel_args &a) {
  double cells = static_cast<double>(a.end - a.begin);
  const char *spec = std::getenv("EASYML_EMULATED_EXCITED");
  long long ext = 0;
  double threshold = 0;
  int used = 0;
  if (!spec || std::sscanf(spec, "%lld:%lf:%n", &ext, &threshold, &used) < 2 ||
      used == 0 || ext < 0 || !a.ext)
    return cells;
  std::vector<double> factors;
  for (const char *p = spec + used; *p;) {
    char *end = nullptr;
    double f = std::strtod(p, &end);
    if (end == p)
      break;
    factors.push_back(f);
    p = *end == ',' ? end + 1 : end;
  }
  if (factors.empty())
    return cells;
  double factor = factors[std::min<size_t>(device, factors.size() - 1)];
  const double *v = a.ext[ext];
  int64_t excited = 0;
  for (int64_t c = a.begin; c < a.end; ++c)
    excited += v[c] >= threshold;
  return cells + (factor - 1) * static_cast<double>(excited);
}

/// A stream: a thread that runs its queue in order, with a clock.
struct Stream {
  int device;
  double rate;
  std::mutex mutex;
  std::condition_variable wake, idle;
  std::deque<std::function<void(Stream &)>> queue;
  bool busy = false, quit = false;
  /// Modelled seconds of work done (rate > 0).
  double clock = 0;
  std::thread thread;

  /// EASYML_EMULATED_INLINE=1: every operation runs on the thread that
  /// queues it, before the call returns, so a GPU's work never competes
  /// for a core with the CPU pool's (whose time is real while the GPUs'
  /// is modelled).
  bool inlined = envNumber("EASYML_EMULATED_INLINE", 0) != 0;
  std::mutex inlineMutex;

  explicit Stream(int device) : device(device), rate(modelledRate(device)) {
    if (!inlined)
      thread = std::thread([this] { loop(); });
  }
  ~Stream() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      quit = true;
    }
    wake.notify_all();
    if (thread.joinable())
      thread.join();
  }
  double now() const { return rate > 0 ? clock : hostSeconds(); }
  void post(std::function<void(Stream &)> op) {
    if (inlined) {
      std::lock_guard<std::mutex> in(inlineMutex);
      op(*this);
      return;
    }
    std::lock_guard<std::mutex> lock(mutex);
    queue.push_back(std::move(op));
    wake.notify_all();
  }
  void synchronize() {
    if (inlined) {
      // Waits for an operation another thread is running inline.
      std::lock_guard<std::mutex> in(inlineMutex);
      return;
    }
    std::unique_lock<std::mutex> lock(mutex);
    idle.wait(lock, [this] { return queue.empty() && !busy; });
  }
  void loop() {
    std::unique_lock<std::mutex> lock(mutex);
    for (;;) {
      wake.wait(lock, [this] { return quit || !queue.empty(); });
      if (queue.empty() && quit)
        return;
      auto op = std::move(queue.front());
      queue.pop_front();
      busy = true;
      lock.unlock();
      op(*this);
      lock.lock();
      busy = false;
      if (queue.empty())
        idle.notify_all();
    }
  }
};

struct Event {
  std::mutex mutex;
  std::condition_variable done;
  uint64_t recorded = 0, completed = 0;
  double stamp = 0;
};

std::mutex memoryMutex;
std::map<int, size_t> allocated;
std::map<uintptr_t, std::pair<size_t, int>> blocks;
std::map<int, long> launches, copies, diffusions;
/// Devices lost for good (EASYML_EMULATED_FAIL=D:lost:N, D:diffusion:N).
std::map<int, bool> lost;
thread_local int current = 0;

/// The model and CPU variant standing in for the GPU's kernels: from the
/// library named, or (spec "<variant>" alone) the library holding `image`.
bool substitute(Module &m, const void *image) {
  const char *spec = std::getenv("EASYML_EMULATED_KERNELS");
  if (!spec)
    return false;
  std::string s(spec), path;
  size_t colon = s == "host" ? std::string::npos : s.rfind(':');
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
  m.library = lib;
  m.desc = static_cast<const easyml_model_desc *>(dlsym(lib, "easyml_model"));
  if (!m.desc)
    return false;
  std::string name = colon == std::string::npos ? s : s.substr(colon + 1);
  // The GPU variant the code object belongs to says how its kernels take
  // their arguments.
  for (int64_t i = 0; i < m.desc->num_variants; ++i) {
    const easyml_variant &v = m.desc->variants[i];
    for (int64_t k = 0; k < v.num_images; ++k)
      if (v.images[k].data == image)
        m.paramsByValue = v.params_by_value;
  }
  if (name == "host")
    return true;
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

/// The faults EASYML_EMULATED_FAIL asks for, one item each.
std::vector<std::string> faultItems() {
  std::vector<std::string> items;
  const char *spec = std::getenv("EASYML_EMULATED_FAIL");
  std::string all = spec ? spec : "";
  for (size_t start = 0; start < all.size();) {
    size_t comma = std::min(all.find(',', start), all.size());
    items.push_back(all.substr(start, comma - start));
    start = comma + 1;
  }
  return items;
}

/// Whether call `n` (from 1) of `kind` ("launch", "copy" or "diffusion":
/// a diffusion kernel's launch) on `device` fails, by EASYML_EMULATED_FAIL:
/// comma-separated D:N (launch N), D:copy:N (copy N), D:lost:N (the device
/// is lost at launch N: that call and every later launch and copy fail) or
/// D:diffusion:N (lost at its diffusion kernel N); D:step:S is lostAtStep's.
/// Call with memoryMutex held.
bool injectedFailure(int device, long n, const char *kind) {
  if (lost[device])
    return true;
  for (const std::string &item : faultItems()) {
    int d = -1;
    long k = -1;
    char what[16] = "launch";
    if (std::sscanf(item.c_str(), "%d:%15[a-z]:%ld", &d, what, &k) != 3 &&
        std::sscanf(item.c_str(), "%d:%ld", &d, &k) != 2)
      continue;
    std::string w = what;
    if (w == "step" || d != device || k != n)
      continue;
    if (w == "lost" && std::string(kind) == "launch")
      return lost[device] = true;
    if (w == "diffusion" && w == kind)
      return lost[device] = true;
    if (w == kind)
      return true;
  }
  return false;
}

/// Whether a compute launch over global steps [step0, step0 + nsteps)
/// loses `device` by EASYML_EMULATED_FAIL's D:step:S (the device is lost
/// at the first launch that would compute step S or a later one, so a
/// device the balancer left without cells at step S is lost at its next
/// launch: that launch and every later call fail). Call with memoryMutex
/// held.
bool lostAtStep(int device, int64_t step0, int64_t nsteps) {
  for (const std::string &item : faultItems()) {
    int d = -1;
    long long s = -1;
    if (std::sscanf(item.c_str(), "%d:step:%lld", &d, &s) == 2 &&
        d == device && s < step0 + nsteps)
      return lost[device] = true;
  }
  return false;
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
  case kInvalidValue:
    return "invalid argument";
  case kLaunchFailed:
    return "unspecified launch failure";
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

int easyml::emulated::setCurrentDevice(int ordinal) {
  if (ordinal < 0 || ordinal >= numDevices())
    return kInvalidDevice;
  current = ordinal;
  return kSuccess;
}

int easyml::emulated::currentDevice() { return current; }

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
  auto *f = new Function{m->desc, nullptr, nullptr, endsWith(n, "_compute"),
                         m->paramsByValue};
  bool diffusion = endsWith(n, "_diffuse");
  if (!m->variant && diffusion)
    f->hostDiffuse = reinterpret_cast<HostDiffuseFn>(
        dlsym(m->library, (n + "_host").c_str()));
  else if (!m->variant)
    f->host = reinterpret_cast<HostKernelFn>(
        dlsym(m->library, (n + "_host").c_str()));
  else if (diffusion)
    f->diffuse = m->variant->diffuse;
  else if (endsWith(n, "_init"))
    f->fn = m->variant->init;
  else if (endsWith(n, "_compute"))
    f->fn = m->variant->compute;
  else if (endsWith(n, "_eval"))
    f->fn = m->variant->eval;
  if (!f->fn && !f->host && !f->hostDiffuse && !f->diffuse) {
    delete f;
    return kNotFound;
  }
  *function = f;
  return kSuccess;
}

int easyml::emulated::allocate(void **pointer, size_t bytes) {
  std::lock_guard<std::mutex> lock(memoryMutex);
  if (allocated[current] + bytes > memoryPerDevice())
    return kOutOfMemory;
  void *mem = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
  if (!mem)
    return kOutOfMemory;
  allocated[current] += bytes;
  blocks[reinterpret_cast<uintptr_t>(mem)] = {bytes, current};
  *pointer = mem;
  return kSuccess;
}

int easyml::emulated::release(void *pointer) {
  std::lock_guard<std::mutex> lock(memoryMutex);
  auto it = blocks.find(reinterpret_cast<uintptr_t>(pointer));
  if (it == blocks.end())
    return kInvalidValue;
  allocated[it->second.second] -= it->second.first;
  blocks.erase(it);
  std::free(pointer);
  return kSuccess;
}

int easyml::emulated::memoryInfo(size_t *free, size_t *total) {
  std::lock_guard<std::mutex> lock(memoryMutex);
  *total = memoryPerDevice();
  *free = *total - allocated[current];
  return kSuccess;
}

int easyml::emulated::copy(void *dst, const void *src, size_t bytes,
                           void *stream) {
  {
    int device = stream ? static_cast<Stream *>(stream)->device : current;
    std::lock_guard<std::mutex> lock(memoryMutex);
    if (injectedFailure(device, ++copies[device], "copy"))
      return kLaunchFailed;
  }
  if (!stream) {
    std::memcpy(dst, src, bytes);
    return kSuccess;
  }
  double bandwidth = envNumber("EASYML_EMULATED_BANDWIDTH", 2.5e10);
  static_cast<Stream *>(stream)->post([=](Stream &s) {
    std::memcpy(dst, src, bytes);
    if (s.rate > 0)
      s.clock += bytes / bandwidth;
  });
  return kSuccess;
}

namespace {
/// Queues a diffusion kernel (ABI 6): its one argument, the struct, by
/// value, copied now.
void launchDiffusion(const Function &f, void **params, Stream &s) {
  auto args = std::make_shared<easyml_diffusion_args>(
      *static_cast<const easyml_diffusion_args *>(params[0]));
  double latency = envNumber("EASYML_EMULATED_LATENCY", 5e-6);
  s.post([f, args, latency](Stream &st) {
    if (f.hostDiffuse)
      f.hostDiffuse(args.get(), nullptr);
    else
      f.diffuse(args.get());
    if (st.rate > 0)
      st.clock +=
          latency + static_cast<double>(args->end - args->begin) / st.rate;
  });
}
} // namespace

int easyml::emulated::launch(void *function, void **params, void *stream) {
  auto *f = static_cast<Function *>(function);
  auto *s = static_cast<Stream *>(stream);
  {
    std::lock_guard<std::mutex> lock(memoryMutex);
    if (injectedFailure(s->device, ++launches[s->device], "launch"))
      return kLaunchFailed;
    if ((f->hostDiffuse || f->diffuse) &&
        injectedFailure(s->device, ++diffusions[s->device], "diffusion"))
      return kLaunchFailed;
    const auto *a = static_cast<const easyml_kernel_args *>(params[0]);
    if (f->compute && !f->hostDiffuse && !f->diffuse &&
        lostAtStep(s->device, a->step0, a->nsteps))
      return kLaunchFailed;
  }
  if (f->hostDiffuse || f->diffuse) {
    launchDiffusion(*f, params, *s);
    return kSuccess;
  }
  // ABI 4: the kernel arguments by value, then (where the variant says so)
  // the parameters by value, both copied now as a driver copies them when
  // the launch is queued. The substitute CPU kernel reads the parameters
  // through args.params, so it is pointed at this launch's copy: a launch
  // given the wrong values computes with them.
  auto args = std::make_shared<easyml_kernel_args>(
      *static_cast<const easyml_kernel_args *>(params[0]));
  auto byValue = std::make_shared<std::vector<double>>();
  if (f->paramsByValue > 0) {
    const auto *p = static_cast<const double *>(params[1]);
    byValue->assign(p, p + f->paramsByValue);
    args->params = byValue->data();
  }
  double latency = envNumber("EASYML_EMULATED_LATENCY", 5e-6);
  s->post([f, args, byValue, latency](Stream &st) {
    if (f->host)
      f->host(args.get(), byValue->empty() ? nullptr : byValue->data());
    else
      f->fn(args.get());
    if (st.rate > 0) {
      double cellSteps =
          f->compute ? modelledCells(st.device, *args) *
                           modelledSteps(st.device, args->step0, args->nsteps)
                     : static_cast<double>(args->end - args->begin);
      st.clock += latency + cellSteps / st.rate;
    }
  });
  return kSuccess;
}

int easyml::emulated::createStream(void **stream) {
  *stream = new Stream(current);
  return kSuccess;
}

int easyml::emulated::synchronizeStream(void *stream) {
  static_cast<Stream *>(stream)->synchronize();
  return kSuccess;
}

int easyml::emulated::destroyStream(void *stream) {
  delete static_cast<Stream *>(stream);
  return kSuccess;
}

int easyml::emulated::createEvent(void **event) {
  *event = new Event;
  return kSuccess;
}

int easyml::emulated::recordEvent(void *event, void *stream) {
  auto *e = static_cast<Event *>(event);
  uint64_t generation;
  {
    std::lock_guard<std::mutex> lock(e->mutex);
    generation = ++e->recorded;
  }
  static_cast<Stream *>(stream)->post([e, generation](Stream &s) {
    std::lock_guard<std::mutex> lock(e->mutex);
    e->stamp = s.now();
    e->completed = generation;
    e->done.notify_all();
  });
  return kSuccess;
}

int easyml::emulated::synchronizeEvent(void *event) {
  auto *e = static_cast<Event *>(event);
  std::unique_lock<std::mutex> lock(e->mutex);
  e->done.wait(lock, [e] { return e->completed == e->recorded; });
  return kSuccess;
}

int easyml::emulated::elapsedMs(float *ms, void *start, void *stop) {
  auto *a = static_cast<Event *>(start), *b = static_cast<Event *>(stop);
  *ms = static_cast<float>((b->stamp - a->stamp) * 1e3);
  return kSuccess;
}

int easyml::emulated::destroyEvent(void *event) {
  delete static_cast<Event *>(event);
  return kSuccess;
}
