//===- DiffusionCheck.cpp - the diffusion operator against a reference ----===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// easyml-diffusion-check <model.so> <variant> [seed]
//
// Runs the diffusion entry (ABI 6) of one variant of a compiled model on a
// random 3-D block with random flags (points outside the tissue, missing
// neighbours), over several ranges (the whole block, one starting and
// ending off any vector boundary), with and without a source term, and
// compares every result with a straightforward reference in the order of
// operations ABI.h documents; then the activation pass of ABI 9 (points
// crossing the threshold, points activated before, values that are not
// finite) against its reference, over the same ranges. Host variants read
// arrays that end at a page guarded against access, so a read past a point's
// own data faults. GPU variants run through the runtime's GpuDriver and
// GpuDiffusion (the emulated drivers in tests). Prints one line per case; exits
// 1 on any difference.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/Devices/Diffusion.h"
#include "easyml/Runtime/Devices/GpuDriver.h"
#include "easyml/Runtime/Simulation/Simulation.h"

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <sys/mman.h>
#include <tuple>
#include <unistd.h>
#include <vector>

using namespace easyml::rt;

namespace {

constexpr int64_t kNx = 13, kNy = 7, kNz = 5, kN = kNx * kNy * kNz;

/// `count` elements of T ending exactly at an inaccessible page, with one
/// before them too: reading outside the array faults.
template <typename T> class GuardedArray {
public:
  explicit GuardedArray(int64_t count) : count_(count) {
    page_ = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    size_t bytes = count * sizeof(T);
    dataPages_ = (bytes + page_ - 1) / page_;
    total_ = (dataPages_ + 2) * page_;
    base_ = static_cast<char *>(mmap(nullptr, total_, PROT_READ | PROT_WRITE,
                                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    mprotect(base_, page_, PROT_NONE);
    mprotect(base_ + (dataPages_ + 1) * page_, page_, PROT_NONE);
    data_ = reinterpret_cast<T *>(base_ + (dataPages_ + 1) * page_ - bytes);
  }
  ~GuardedArray() { munmap(base_, total_); }
  T *data() { return data_; }
  T &operator[](int64_t i) { return data_[i]; }

private:
  int64_t count_;
  size_t page_, dataPages_, total_;
  char *base_;
  T *data_;
};

/// The block: values, flags and a source, all random.
struct Block {
  std::vector<double> v, src;
  std::vector<uint8_t> flags;
  double c[3];
};

Block randomBlock(unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> value(-90.0, 40.0), coef(0.05, 0.2),
      source(-1.0, 1.0), unit(0.0, 1.0);
  Block b;
  b.v.resize(kN);
  b.src.resize(kN);
  b.flags.resize(kN);
  for (int64_t i = 0; i < kN; ++i) {
    b.v[i] = value(rng);
    b.src[i] = source(rng);
  }
  for (double &c : b.c)
    c = coef(rng);
  std::vector<bool> tissue(kN);
  for (int64_t i = 0; i < kN; ++i)
    tissue[i] = unit(rng) < 0.85;
  const int64_t stride[3] = {1, kNx, kNx * kNy};
  const int64_t size[3] = {kNx, kNy, kNz};
  const int minus[3] = {EASYML_DIFFUSION_XM, EASYML_DIFFUSION_YM,
                        EASYML_DIFFUSION_ZM};
  const int plus[3] = {EASYML_DIFFUSION_XP, EASYML_DIFFUSION_YP,
                       EASYML_DIFFUSION_ZP};
  for (int64_t i = 0; i < kN; ++i) {
    int64_t at[3] = {i % kNx, i / kNx % kNy, i / (kNx * kNy)};
    int f = tissue[i] ? EASYML_DIFFUSION_TISSUE : 0;
    for (int a = 0; a < 3; ++a) {
      // No flux across the block's faces or with non-tissue; some links
      // dropped at random besides.
      if (at[a] > 0 && tissue[i - stride[a]] && unit(rng) < 0.9)
        f |= minus[a];
      if (at[a] + 1 < size[a] && tissue[i + stride[a]] && unit(rng) < 0.9)
        f |= plus[a];
    }
    // Outside the tissue: a neighbour bit now and then, which must not
    // matter.
    if (!tissue[i] && unit(rng) < 0.2)
      f |= EASYML_DIFFUSION_XM & (at[0] > 0 ? 0xff : 0);
    b.flags[i] = static_cast<uint8_t>(f);
  }
  return b;
}

/// The reference: ABI.h's formula in its documented order.
void reference(const easyml_diffusion_args &a) {
  const int64_t s[3] = {a.sx, a.sy, a.sz};
  const double c[3] = {a.cx, a.cy, a.cz};
  const int minus[3] = {EASYML_DIFFUSION_XM, EASYML_DIFFUSION_YM,
                        EASYML_DIFFUSION_ZM};
  const int plus[3] = {EASYML_DIFFUSION_XP, EASYML_DIFFUSION_YP,
                       EASYML_DIFFUSION_ZP};
  for (int64_t i = a.begin; i < a.end; ++i) {
    uint8_t f = a.flags[i];
    double center = a.v[i];
    if (!(f & EASYML_DIFFUSION_TISSUE)) {
      a.out[i] = center;
      continue;
    }
    double d[3];
    for (int k = 0; k < 3; ++k) {
      double dm = (f & minus[k]) ? a.v[i - s[k]] - center : 0.0;
      double dp = (f & plus[k]) ? a.v[i + s[k]] - center : 0.0;
      d[k] = dm + dp;
    }
    double lap = c[0] * d[0];
    lap = lap + c[1] * d[1];
    lap = lap + c[2] * d[2];
    double next = center + lap;
    if (a.src)
      next = next + a.src[i];
    a.out[i] = next;
  }
}

/// The activation pass of ABI 9 after reference(): lat, prev and counts.
void referenceActivation(const easyml_diffusion_args &a) {
  for (int64_t i = a.begin; i < a.end; ++i) {
    if (!(a.flags[i] & EASYML_DIFFUSION_TISSUE))
      continue;
    double x = a.out[i], before = a.prev[i];
    if (before < a.threshold && x >= a.threshold && std::isnan(a.lat[i])) {
      a.lat[i] = a.t1 - (a.dt * (x - a.threshold)) / (x - before);
      ++a.counts[0];
    }
    if (!std::isfinite(x))
      ++a.counts[1];
    a.prev[i] = x;
  }
}

/// Runs one variant: on the host or on GPU 0 of its driver.
class Runner {
public:
  explicit Runner(const easyml_variant &variant) : variant_(variant) {}

  bool open(std::string &error) {
    if (variant_.device == EASYML_DEVICE_CPU)
      return true;
    Backend vendor =
        variant_.device == EASYML_DEVICE_CUDA ? Backend::Cuda : Backend::Rocm;
    driver_ = GpuDriver::open(vendor, error);
    if (!driver_)
      return false;
    std::vector<GpuDeviceInfo> devices = driver_->devices(error);
    if (devices.empty()) {
      error = "no GPU: " + error;
      return false;
    }
    ctx_ = driver_->context(devices[0].index, error);
    if (!ctx_)
      return false;
    kernel_ = GpuDiffusion::create(*ctx_, devices[0], variant_, error);
    return kernel_ != nullptr;
  }

  /// `args` over host arrays of kN points (out holding its old values).
  bool run(const easyml_diffusion_args &args, std::string &error) {
    if (!ctx_) {
      if (!diffuseOnHost(variant_, args))
        error = "the variant has no host diffusion entry";
      return error.empty();
    }
    size_t doubles = kN * sizeof(double);
    uint64_t v = ctx_->allocate(doubles, error);
    uint64_t out = ctx_->allocate(doubles, error);
    uint64_t flags = ctx_->allocate(kN, error);
    uint64_t src = ctx_->allocate(doubles, error);
    uint64_t prev = ctx_->allocate(doubles, error);
    uint64_t lat = ctx_->allocate(doubles, error);
    uint64_t counts = ctx_->allocate(2 * sizeof(int64_t), error);
    bool act = args.prev != nullptr;
    bool ok =
        v && out && flags && src && prev && lat && counts &&
        ctx_->copyToDevice(v, args.v, doubles, error) &&
        ctx_->copyToDevice(out, args.out, doubles, error) &&
        ctx_->copyToDevice(flags, args.flags, kN, error) &&
        (!args.src || ctx_->copyToDevice(src, args.src, doubles, error)) &&
        (!act ||
         (ctx_->copyToDevice(prev, args.prev, doubles, error) &&
          ctx_->copyToDevice(lat, args.lat, doubles, error) &&
          ctx_->copyToDevice(counts, args.counts, 2 * sizeof(int64_t), error)));
    if (ok) {
      easyml_diffusion_args d = args;
      d.v = reinterpret_cast<const double *>(v);
      d.out = reinterpret_cast<double *>(out);
      d.flags = reinterpret_cast<const uint8_t *>(flags);
      d.src = args.src ? reinterpret_cast<const double *>(src) : nullptr;
      if (act) {
        d.prev = reinterpret_cast<double *>(prev);
        d.lat = reinterpret_cast<double *>(lat);
        d.counts = reinterpret_cast<int64_t *>(counts);
      }
      ok = kernel_->launch(d, error) &&
           ctx_->copyToHost(args.out, out, doubles, error) &&
           (!act || (ctx_->copyToHost(args.prev, prev, doubles, error) &&
                     ctx_->copyToHost(args.lat, lat, doubles, error) &&
                     ctx_->copyToHost(args.counts, counts, 2 * sizeof(int64_t),
                                      error))) &&
           ctx_->synchronize(error);
    }
    for (uint64_t p : {v, out, flags, src, prev, lat, counts})
      if (p)
        ctx_->release(p);
    return ok;
  }

private:
  const easyml_variant &variant_;
  std::shared_ptr<GpuDriver> driver_;
  std::unique_ptr<GpuContext> ctx_;
  std::unique_ptr<GpuDiffusion> kernel_;
};

/// Points of `got` whose bits differ from `want`'s, reported as `array`.
int64_t compare(const double *got, const double *want, const char *array,
                const char *what) {
  int64_t differ = 0, first = -1;
  for (int64_t i = 0; i < kN; ++i)
    if (std::memcmp(&got[i], &want[i], sizeof(double)) != 0 && differ++ == 0)
      first = i;
  if (differ)
    std::printf("%s: %" PRId64 " points of %s differ from the reference, "
                "first %" PRId64 " (%.17g, expected %.17g)\n",
                what, differ, array, first, got[first], want[first]);
  return differ;
}

/// Arrays of the activation pass, filled so that some points cross the
/// threshold, some activated before and some are not finite.
struct Activation {
  GuardedArray<double> prev{kN}, lat{kN};
  GuardedArray<int64_t> counts{2};
  std::vector<double> wantPrev, wantLat;
  int64_t wantCounts[2] = {0, 0};

  explicit Activation(unsigned seed) {
    std::mt19937_64 rng(seed + 7);
    std::uniform_real_distribution<double> value(-90.0, 40.0), unit(0, 1);
    for (int64_t i = 0; i < kN; ++i) {
      prev[i] = value(rng);
      lat[i] = unit(rng) < 0.1 ? 3.25 : NAN;
    }
    counts[0] = counts[1] = 0;
    wantPrev.assign(prev.data(), prev.data() + kN);
    wantLat.assign(lat.data(), lat.data() + kN);
  }
};

/// One case: the variant against the reference over [begin, end); with
/// `act`, the activation pass too.
bool checkCase(Runner &runner, const Block &b, int64_t begin, int64_t end,
               bool withSrc, const char *what, Activation *act = nullptr) {
  GuardedArray<double> v(kN), src(kN), out(kN);
  GuardedArray<uint8_t> flags(kN);
  std::vector<double> expected(kN);
  for (int64_t i = 0; i < kN; ++i) {
    v[i] = b.v[i];
    src[i] = b.src[i];
    flags[i] = b.flags[i];
    // Points outside [begin, end) must keep what was there.
    out[i] = expected[i] = -1000.0 - i;
  }
  if (act) {
    // Values that are not finite, and what they spread to.
    v[2 * kNx + 4] = NAN;
    v[kNx * kNy + kNx + 6] = INFINITY;
  }
  easyml_diffusion_args a{
      begin,      end,          1,
      kNx,        kNx * kNy,    b.c[0],
      b.c[1],     b.c[2],       v.data(),
      out.data(), flags.data(), withSrc ? src.data() : nullptr,
      nullptr,    nullptr,      nullptr,
      0.0,        0.0,          0.0};
  if (act) {
    a.prev = act->prev.data();
    a.lat = act->lat.data();
    a.counts = act->counts.data();
    a.threshold = -40.0;
    a.t1 = 7.5;
    a.dt = 0.01;
  }
  easyml_diffusion_args ref = a;
  ref.out = expected.data();
  reference(ref);
  if (act) {
    ref.prev = act->wantPrev.data();
    ref.lat = act->wantLat.data();
    ref.counts = act->wantCounts;
    referenceActivation(ref);
  }
  std::string error;
  if (!runner.run(a, error)) {
    std::printf("%s: error: %s\n", what, error.c_str());
    return false;
  }
  if (compare(out.data(), expected.data(), "out", what))
    return false;
  if (act) {
    if (compare(act->lat.data(), act->wantLat.data(), "lat", what) ||
        compare(act->prev.data(), act->wantPrev.data(), "prev", what))
      return false;
    if (act->counts[0] != act->wantCounts[0] ||
        act->counts[1] != act->wantCounts[1]) {
      std::printf("%s: counts %" PRId64 " activated, %" PRId64
                  " not finite; expected %" PRId64 ", %" PRId64 "\n",
                  what, act->counts[0], act->counts[1], act->wantCounts[0],
                  act->wantCounts[1]);
      return false;
    }
    std::printf("%s: bit-identical to the reference (%" PRId64
                " activated, %" PRId64 " not finite)\n",
                what, act->counts[0], act->counts[1]);
    return true;
  }
  std::printf("%s: bit-identical to the reference\n", what);
  return true;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s <model.so> <variant> [seed]\n", argv[0]);
    return 2;
  }
  auto loaded = ModelHandle::load(argv[1]);
  if (!loaded.ok()) {
    std::fprintf(stderr, "error: %s\n", loaded.status().message().c_str());
    return 2;
  }
  std::unique_ptr<ModelHandle> model = loaded.take();
  const easyml_variant *variant = model->variant(argv[2]);
  if (!variant) {
    std::fprintf(stderr, "error: no variant %s\n", argv[2]);
    return 2;
  }
  Runner runner(*variant);
  std::string error;
  if (!runner.open(error)) {
    std::fprintf(stderr, "error: %s\n", error.c_str());
    return 2;
  }
  unsigned seed = argc > 3 ? static_cast<unsigned>(std::atoi(argv[3])) : 1;
  Block b = randomBlock(seed);
  // Interior ranges start and end off any vector boundary; the whole
  // block's first and last points have no neighbour beyond the arrays.
  bool ok = checkCase(runner, b, 0, kN, true, "whole block, source") &&
            checkCase(runner, b, 0, kN, false, "whole block, no source") &&
            checkCase(runner, b, kNx * kNy + 3, kN - kNx * kNy - 5, true,
                      "inner slab, source") &&
            checkCase(runner, b, 5, 6, false, "one point") &&
            checkCase(runner, b, 7, 7, true, "no point");
  for (auto [begin, end, name] :
       {std::tuple<int64_t, int64_t, const char *>{0, kN, "whole block"},
        {kNx * kNy + 3, kN - kNx * kNy - 5, "inner slab"},
        {5, 6, "one point"}}) {
    Activation act(seed);
    std::string what = std::string("activation, ") + name;
    ok = ok && checkCase(runner, b, begin, end, true, what.c_str(), &act);
  }
  return ok ? 0 : 1;
}
