//===- GpuDevice.cpp - one GPU as a device --------------------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// One CUDA or HIP device. It keeps a window of the simulation's cells in
// device memory (all of them when they fit, else its range with a margin),
// so a repartition moves only the cells that change owner. A wave is queued
// on the device's stream in one go: externals up, counters cleared, the
// state saved for NaN diagnosis, the compute kernel, externals, counters
// and recorded samples down, each step bracketed by device events. The host
// store's rows and the staging buffers are page-locked so the copies are
// DMA transfers that overlap with the CPU pool's work.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/Devices/Device.h"
#include "easyml/Runtime/Devices/DiffusionDevice.h"
#include "easyml/Runtime/Devices/Diffusion.h"
#include "easyml/Runtime/Devices/GpuDriver.h"

#include <algorithm>
#include <cmath>
#include <cstring>

using namespace easyml::rt;

namespace {

constexpr size_t kDouble = sizeof(double);

class GpuDevice final : public Device, public DiffusionDevice {
public:
  GpuDevice(const easyml_model_desc &desc, const easyml_variant &variant,
            std::unique_ptr<GpuContext> ctx, const GpuDeviceInfo &info,
            const easyml_gpu_image *image, void *init, void *compute,
            void *eval)
      : Device(std::string(backendName(ctx->driver().vendor())) + ":" +
                   std::to_string(info.index),
               desc, variant),
        ctx_(std::move(ctx)), info_(info), image_(image), init_(init),
        compute_(compute), eval_(eval) {}

  ~GpuDevice() override;

  Backend kind() const override {
    return ctx_->driver().vendor() == Backend::Cuda ? Backend::Cuda
                                                      : Backend::Rocm;
  }
  std::string description() const override {
    std::string s = std::string(backendName(ctx_->driver().vendor())) +
                    " device " + std::to_string(info_.index) + ": " +
                    info_.name;
    if (!info_.arch.empty())
      s += ", " + info_.arch;
    if (image_)
      s += std::string(", code object ") + image_->chip;
    return s;
  }
  // A warp (CUDA) or a wavefront (AMD) of cells.
  int64_t alignment() const override {
    return kind() == Backend::Cuda ? 32 : 64;
  }

  bool bind(CellStore &store, std::string &error) override;
  bool setUniforms(const std::vector<double> &params,
                   const std::vector<double> &derived,
                   const std::vector<double> &tables,
                   std::string &error) override;
  bool own(CellRange range, std::string &error) override;
  bool upload(CellRange r, unsigned rows, std::string &error) override;
  bool download(CellRange r, unsigned rows, std::string &error) override;
  void drain() override {
    std::string ignored;
    ctx_->synchronize(ignored);
  }
  bool launch(const WaveTask &task, std::string &error) override;
  bool wait(WaveTiming &timing, std::string &error) override;
  bool diagnose(const WaveTask &task, NonFinite &where,
                std::string &error) override;
  bool sendHalo(const DiffusionTask &task, std::string &error) override;
  bool diffuse(const DiffusionTask &task, std::string &error) override;
  bool finishDiffusion(const DiffusionTask &task,
                       std::string &error) override;
  DiffusionDevice *diffusion() override { return this; }

private:
  int64_t local(int64_t cell) const { return cell - window_.begin; }
  uint64_t row(uint64_t base, int64_t r) const {
    return base + static_cast<uint64_t>(r * wstride_) * kDouble;
  }
  uint64_t at(uint64_t base, int64_t r, int64_t cell) const {
    return row(base, r) + static_cast<uint64_t>(local(cell)) * kDouble;
  }
  bool fail(std::string &error, const std::string &what) {
    error = what + ": " + error;
    return false;
  }
  /// Device memory for `window` of cells (freeing the old window).
  bool allocateWindow(CellRange window, std::string &error);
  void releaseWindow();
  /// Device rows for the parameters the store has per cell, and the
  /// table of their pointers.
  bool syncParamLayout(std::string &error);
  /// Device buffers for `samples` samples of `plan` over `cells`.
  bool prepareRecord(const RecordPlan &plan, CellRange cells, int64_t samples,
                     std::string &error);
  void fillArgs(easyml_kernel_args &a, const WaveTask &task, CellRange cells);
  /// The launch's kernel parameters (ABI 4): the staged kernel arguments
  /// and, where the variant takes them so, the parameters, both by value
  /// (the driver copies them when the launch is queued).
  std::vector<void *> kernelParams() {
    std::vector<void *> p{argsStage_};
    if (variant_->params_by_value)
      p.push_back(paramsHost_.data());
    return p;
  }
  bool copyRows(bool toDevice, uint64_t base, double *const *hostRows,
                int64_t numRows, CellRange r, std::string &error);
  void pin(void *p, size_t bytes) {
    if (ctx_->driver().pin(p, bytes))
      pinned_.push_back(p);
  }

  std::unique_ptr<GpuContext> ctx_;
  GpuDeviceInfo info_;
  const easyml_gpu_image *image_;
  void *init_, *compute_, *eval_;
  CellStore *store_ = nullptr;

  CellRange window_;
  int64_t wstride_ = 0;
  uint64_t sv_ = 0, lastSv_ = 0, ext_ = 0, lastExt_ = 0, out_ = 0;
  /// Biomarker accumulators of the window (0 until the store enables
  /// them).
  uint64_t bio_ = 0;
  bool syncBio(std::string &error);
  std::vector<uint64_t> paramRows_;
  uint64_t paramTable_ = 0;
  uint64_t paramVersion_ = ~0ull;
  uint64_t params_ = 0, tables_ = 0, counters_ = 0, extTable_ = 0;
  /// The parameters and flags then the derived values, for launches that
  /// pass them by value.
  std::vector<double> paramsHost_;
  size_t paramsBytes_ = 0, tablesBytes_ = 0;
  uint64_t rec_ = 0, recSlots_ = 0;
  size_t recBytes_ = 0, recSlotsBytes_ = 0;
  uint64_t recVersion_ = ~0ull;
  const RecordPlan *recPlan_ = nullptr;

  // Page-locked host staging.
  std::vector<int64_t> countersStage_, zeros_;
  easyml_kernel_args *argsStage_ = nullptr;
  std::vector<uint64_t> tableStage_;
  AlignedVector recStage_;
  std::vector<void *> pinned_;

  void *evStart_ = nullptr, *evKernelStart_ = nullptr, *evKernelStop_ = nullptr,
       *evEnd_ = nullptr;
  // A tissue's diffusion: the kernel, and Vm, flags and sources of the
  // range with its halo ([tissueSpan_.begin, tissueSpan_.end) of the grid).
  std::unique_ptr<GpuDiffusion> diffusion_;
  uint64_t tissueV_ = 0, tissueFlags_ = 0, tissueSrc_ = 0;
  size_t tissueCapacity_ = 0;
  CellRange tissueSpan_, srcSpan_;
  uint64_t flagsVersion_ = ~0ull, srcVersion_ = ~0ull;
  bool prepareDiffusion(const DiffusionTask &task, std::string &error);
  void releaseTissue();
  // A tissue's activation pass (DeviceActivation): activation times and
  // Vm after the last step of actRange_, kept between steps, copied from
  // and to the host's arrays; the pass's two counts.
  uint64_t actLat_ = 0, actPrev_ = 0, actCounts_ = 0;
  size_t actCapacity_ = 0;
  CellRange actRange_;
  double *hostLat_ = nullptr, *hostPrev_ = nullptr;
  std::vector<int64_t> actStage_ = std::vector<int64_t>(2, 0),
                       actZeros_ = std::vector<int64_t>(2, 0);
  bool prepareActivation(const DeviceActivation &act, std::string &error);
  void releaseActivationBuffers();

public:
  bool releaseActivation(bool keep, std::string &error) override;
  void dropActivation() override { actRange_ = {}; }

private:
  /// The range's row of Vm on the device.
  uint64_t vmRow() const { return at(ext_, desc_->vm_index, range_.begin); }

  WaveTask task_;
  bool launched_ = false;
  CellRange recCells_;
  double waveBytesIn_ = 0, waveBytesOut_ = 0;
};

GpuDevice::~GpuDevice() {
  std::string ignored;
  ctx_->synchronize(ignored);
  releaseWindow();
  for (uint64_t p : {params_, tables_, counters_, extTable_, rec_, recSlots_,
                     paramTable_})
    ctx_->release(p);
  for (void *e : {evStart_, evKernelStart_, evKernelStop_, evEnd_})
    ctx_->destroyEvent(e);
  for (void *p : pinned_)
    ctx_->driver().unpin(p);
  releaseTissue();
  releaseActivationBuffers();
  delete argsStage_;
}

bool GpuDevice::bind(CellStore &store, std::string &error) {
  store_ = &store;
  const easyml_model_desc &d = *desc_;
  // The host rows the device copies to and from, page-locked once.
  pin(store.svBase(), store.svBytes());
  for (int64_t e = 0; e < d.num_externals; ++e)
    pin(store.ext(e), store.stride() * kDouble);
  if (d.num_traces)
    pin(store.traceBase(), d.num_traces * store.stride() * kDouble);
  countersStage_.assign(d.num_counters + 1, 0);
  zeros_.assign(d.num_counters + 1, 0);
  argsStage_ = new easyml_kernel_args{};
  pin(countersStage_.data(), countersStage_.size() * sizeof(int64_t));
  pin(zeros_.data(), zeros_.size() * sizeof(int64_t));
  int64_t byValue = variant_->params_by_value;
  int64_t uniforms = d.num_params + d.num_flags + d.num_derived;
  if (byValue != 0 && byValue != uniforms) {
    error = "variant '" + std::string(variant_->name) + "' passes " +
            std::to_string(byValue) + " values by value, but the model has " +
            std::to_string(uniforms) + " parameters, flags and derived values";
    return false;
  }
  counters_ = ctx_->allocate(countersStage_.size() * sizeof(int64_t), error);
  if (counters_)
    extTable_ = ctx_->allocate(
        std::max<int64_t>(1, d.num_externals) * sizeof(uint64_t), error);
  for (void **e : {&evStart_, &evKernelStart_, &evKernelStop_, &evEnd_})
    if (extTable_ && !(*e = ctx_->createEvent(error)))
      return false;
  return extTable_ != 0;
}

bool GpuDevice::setUniforms(const std::vector<double> &params,
                            const std::vector<double> &derived,
                            const std::vector<double> &tables,
                            std::string &error) {
  auto ensure = [&](uint64_t &p, size_t &have, size_t bytes) {
    if (p && have >= bytes)
      return true;
    ctx_->release(p);
    have = bytes;
    p = ctx_->allocate(bytes, error);
    return p != 0;
  };
  // What kernels that take their parameters by value get: the parameters,
  // then the derived values.
  paramsHost_ = params;
  paramsHost_.insert(paramsHost_.end(), derived.begin(), derived.end());
  if (!ensure(params_, paramsBytes_, params.size() * kDouble) ||
      !ensure(tables_, tablesBytes_, tables.size() * kDouble))
    return fail(error, "allocating parameters and tables");
  if (!ctx_->copyToDevice(params_, params.data(), params.size() * kDouble,
                          error) ||
      !ctx_->copyToDevice(tables_, tables.data(), tables.size() * kDouble,
                          error) ||
      !ctx_->synchronize(error))
    return fail(error, "uploading parameters and tables");
  bytesToDevice += (params.size() + tables.size()) * kDouble;
  return true;
}

void GpuDevice::releaseWindow() {
  for (uint64_t p : {sv_, lastSv_, ext_, lastExt_, out_, bio_})
    ctx_->release(p);
  sv_ = lastSv_ = ext_ = lastExt_ = out_ = bio_ = 0;
  for (uint64_t &p : paramRows_) {
    ctx_->release(p);
    p = 0;
  }
  paramVersion_ = ~0ull;
  window_ = {};
}

bool GpuDevice::allocateWindow(CellRange window, std::string &error) {
  releaseWindow();
  const easyml_model_desc &d = *desc_;
  wstride_ =
      (window.size() + kCellAlignment - 1) / kCellAlignment * kCellAlignment;
  size_t rowBytes = wstride_ * kDouble;
  int64_t svRows = store_->svRows();
  std::string what = "allocating device memory for cells [" +
                     std::to_string(window.begin) + ", " +
                     std::to_string(window.end) + ")";
  if (!(sv_ = ctx_->allocate(svRows * rowBytes, error)) ||
      !(lastSv_ = ctx_->allocate(svRows * rowBytes, error)) ||
      !(ext_ = ctx_->allocate(d.num_externals * rowBytes, error)) ||
      !(lastExt_ = ctx_->allocate(d.num_externals * rowBytes, error)) ||
      !(out_ = ctx_->allocate(d.num_traces * rowBytes, error))) {
    releaseWindow();
    return fail(error, what);
  }
  window_ = window;
  std::vector<uint64_t> extRows(std::max<int64_t>(1, d.num_externals), 0);
  for (int64_t e = 0; e < d.num_externals; ++e)
    extRows[e] = row(ext_, e);
  if (!ctx_->copyToDevice(extTable_, extRows.data(),
                          extRows.size() * sizeof(uint64_t), error) ||
      !ctx_->synchronize(error))
    return fail(error, what);
  return true;
}

bool GpuDevice::own(CellRange range, std::string &error) {
  // Activation times of cells that may go to another device go to the
  // host first; the new range's come back at the next diffusion step.
  if (!actRange_.empty() && !(range == actRange_) &&
      !releaseActivation(false, error))
    return false;
  if (range.empty() || window_.contains(range)) {
    range_ = range;
    return true;
  }
  // A new window. The cells this device keeps are on the device only if
  // hostStale: bring them to the host, then back into the new window.
  CellRange keep = range_.intersect(range);
  unsigned newer = (hostStale ? kStateRows : 0) |
                   (externalsOnDevice ? kExternalRows : 0);
  if (!keep.empty() && newer && !download(keep, newer, error))
    return false;
  // The accumulators on the device are always the newest.
  if (!keep.empty() && bio_ && !download(keep, kBioRows, error))
    return false;
  int64_t cells = store_->cells();
  int64_t perCell = 2 * store_->svRows() + 2 * desc_->num_externals +
                    desc_->num_traces + store_->numPerCell() +
                    (store_->bioOn() ? EASYML_BIO_NUM_ROWS : 0);
  size_t free = 0, total = 0;
  size_t held = static_cast<size_t>(window_.size()) * perCell * kDouble;
  bool known = ctx_->memoryInfo(free, total);
  CellRange window{0, cells};
  // All cells when they fit in 60% of the memory (so repartitions never
  // reallocate); else the range with a quarter of it on each side.
  if (known &&
      static_cast<double>(cells) * perCell * kDouble > 0.6 * (free + held)) {
    int64_t margin = std::max<int64_t>(range.size() / 4, kCellAlignment);
    window.begin = std::max<int64_t>(0, (range.begin - margin) /
                                            kCellAlignment * kCellAlignment);
    window.end = std::min<int64_t>(cells, range.end + margin);
  }
  if (!allocateWindow(window, error))
    return false;
  range_ = range;
  if (!syncBio(error))
    return false;
  if (!keep.empty() &&
      !upload(keep, kStateRows | kExternalRows | kParamRows | kBioRows,
              error))
    return false;
  return true;
}

bool GpuDevice::syncBio(std::string &error) {
  if (bio_ || !store_->bioOn() || !window_.size())
    return true;
  if (!(bio_ = ctx_->allocate(EASYML_BIO_NUM_ROWS * wstride_ * kDouble,
                              error)))
    return fail(error, "allocating biomarker accumulators");
  if (!range_.empty()) {
    std::vector<double *> host;
    for (int64_t r = 0; r < EASYML_BIO_NUM_ROWS; ++r)
      host.push_back(store_->bio(r));
    if (!copyRows(true, bio_, host.data(), host.size(), range_, error) ||
        !ctx_->synchronize(error))
      return fail(error, "uploading biomarker accumulators");
  }
  return true;
}

bool GpuDevice::syncParamLayout(std::string &error) {
  if (paramVersion_ == store_->paramLayoutVersion())
    return true;
  int64_t np = store_->numParams();
  paramRows_.resize(np, 0);
  tableStage_.assign(std::max<int64_t>(1, np), 0);
  bool any = false;
  const easyml_variant &v = *variant_;
  for (int64_t p = 0; p < np; ++p) {
    if (!store_->perCell(p)) {
      ctx_->release(paramRows_[p]);
      paramRows_[p] = 0;
      continue;
    }
    // Simulation::setPerCellParam refuses these; a device added later
    // must not run with them either.
    if (v.num_row_params >= 0 &&
        std::find(v.row_params, v.row_params + v.num_row_params, p) ==
            v.row_params + v.num_row_params) {
      const easyml_model_desc &d = *desc_;
      std::string name = p < d.num_params ? d.param_names[p]
                                          : d.flag_names[p - d.num_params];
      error = "parameter '" + name + "' varies per cell, but variant '" +
              v.name + "' reads it shared (compile the model with " +
              "--per-cell-params=" + name + ")";
      return false;
    }
    any = true;
    if (!paramRows_[p] &&
        !(paramRows_[p] = ctx_->allocate(wstride_ * kDouble, error)))
      return fail(error, "allocating per-cell parameter rows");
    tableStage_[p] = paramRows_[p];
    // A row made now holds nothing yet.
    if (!range_.empty() &&
        !ctx_->copyToDevice(paramRows_[p] + local(range_.begin) * kDouble,
                            store_->paramRow(p) + range_.begin,
                            range_.size() * kDouble, error))
      return fail(error, "uploading per-cell parameters");
  }
  if (any) {
    if (!paramTable_ &&
        !(paramTable_ = ctx_->allocate(tableStage_.size() * 8, error)))
      return fail(error, "allocating per-cell parameter rows");
    if (!ctx_->copyToDevice(paramTable_, tableStage_.data(),
                            tableStage_.size() * 8, error))
      return fail(error, "uploading per-cell parameter rows");
  }
  if (!ctx_->synchronize(error))
    return fail(error, "uploading per-cell parameters");
  paramVersion_ = store_->paramLayoutVersion();
  return true;
}

bool GpuDevice::copyRows(bool toDevice, uint64_t base, double *const *hostRows,
                         int64_t numRows, CellRange r, std::string &error) {
  size_t bytes = r.size() * kDouble;
  for (int64_t k = 0; k < numRows; ++k) {
    uint64_t dev = at(base, k, r.begin);
    double *host = hostRows[k] + r.begin;
    if (!(toDevice ? ctx_->copyToDevice(dev, host, bytes, error)
                   : ctx_->copyToHost(host, dev, bytes, error)))
      return false;
    (toDevice ? waveBytesIn_ : waveBytesOut_) += bytes;
  }
  return true;
}

bool GpuDevice::upload(CellRange r, unsigned rows, std::string &error) {
  r = r.intersect(range_);
  if (r.empty())
    return true;
  waveBytesIn_ = 0;
  std::vector<double *> host;
  if (rows & kStateRows) {
    for (int64_t v = 0; v < store_->svRows(); ++v)
      host.push_back(store_->sv(v));
    if (!copyRows(true, sv_, host.data(), host.size(), r, error))
      return fail(error, "uploading states");
  }
  if (rows & kExternalRows &&
      !copyRows(true, ext_, store_->extTable(), desc_->num_externals, r, error))
    return fail(error, "uploading externals");
  if (rows & kParamRows) {
    if (paramVersion_ != store_->paramLayoutVersion()) {
      if (!syncParamLayout(error)) // uploads the whole range
        return false;
    } else {
      for (int64_t p = 0; p < store_->numParams(); ++p) {
        if (!paramRows_[p])
          continue;
        double *hostRow = store_->paramRow(p);
        if (!ctx_->copyToDevice(paramRows_[p] + local(r.begin) * kDouble,
                                hostRow + r.begin, r.size() * kDouble, error))
          return fail(error, "uploading per-cell parameters");
        waveBytesIn_ += r.size() * kDouble;
      }
    }
  }
  if (rows & kBioRows && bio_) {
    host.clear();
    for (int64_t k = 0; k < EASYML_BIO_NUM_ROWS; ++k)
      host.push_back(store_->bio(k));
    if (!copyRows(true, bio_, host.data(), host.size(), r, error))
      return fail(error, "uploading biomarker accumulators");
  }
  if (!ctx_->synchronize(error))
    return fail(error, "uploading cells");
  bytesToDevice += waveBytesIn_;
  return true;
}

bool GpuDevice::download(CellRange r, unsigned rows, std::string &error) {
  r = r.intersect(range_);
  if (r.empty())
    return true;
  waveBytesOut_ = 0;
  std::vector<double *> host;
  if (rows & kStateRows) {
    for (int64_t v = 0; v < store_->svRows(); ++v)
      host.push_back(store_->sv(v));
    if (!copyRows(false, sv_, host.data(), host.size(), r, error))
      return fail(error, "downloading states");
  }
  if (rows & kExternalRows && !copyRows(false, ext_, store_->extTable(),
                                        desc_->num_externals, r, error))
    return fail(error, "downloading externals");
  if (rows & kTraceRows) {
    host.clear();
    for (int64_t k = 0; k < desc_->num_traces; ++k)
      host.push_back(store_->trace(k));
    if (!copyRows(false, out_, host.data(), host.size(), r, error))
      return fail(error, "downloading traced values");
  }
  if (rows & kBioRows && bio_) {
    host.clear();
    for (int64_t k = 0; k < EASYML_BIO_NUM_ROWS; ++k)
      host.push_back(store_->bio(k));
    if (!copyRows(false, bio_, host.data(), host.size(), r, error))
      return fail(error, "downloading biomarker accumulators");
  }
  if (!ctx_->synchronize(error))
    return fail(error, "downloading cells");
  bytesToHost += waveBytesOut_;
  return true;
}

bool GpuDevice::prepareRecord(const RecordPlan &plan, CellRange cells,
                              int64_t samples, std::string &error) {
  if (recPlan_ != &plan || recVersion_ != plan.version) {
    size_t bytes = std::max<size_t>(1, plan.slots.size()) * sizeof(int64_t);
    if (recSlotsBytes_ < bytes) {
      ctx_->release(recSlots_);
      if (!(recSlots_ = ctx_->allocate(bytes, error)))
        return fail(error, "allocating the recording");
      recSlotsBytes_ = bytes;
    }
    if (!ctx_->copyToDevice(recSlots_, plan.slots.data(),
                            plan.slots.size() * sizeof(int64_t), error) ||
        !ctx_->synchronize(error))
      return fail(error, "uploading the recording");
    recPlan_ = &plan;
    recVersion_ = plan.version;
  }
  size_t bytes = samples * plan.num * cells.size() * kDouble;
  if (recBytes_ < bytes) {
    ctx_->release(rec_);
    if (!(rec_ = ctx_->allocate(bytes, error)))
      return fail(error, "allocating the recording");
    recBytes_ = bytes;
  }
  if (recStage_.size() * kDouble < bytes) {
    if (!recStage_.empty())
      for (auto it = pinned_.begin(); it != pinned_.end(); ++it)
        if (*it == recStage_.data()) {
          ctx_->driver().unpin(*it);
          pinned_.erase(it);
          break;
        }
    recStage_.assign(bytes / kDouble, 0.0);
    pin(recStage_.data(), bytes);
  }
  return true;
}

void GpuDevice::fillArgs(easyml_kernel_args &a, const WaveTask &task,
                         CellRange cells) {
  a = easyml_kernel_args{};
  a.begin = local(cells.begin);
  a.end = local(cells.end);
  a.nsteps = task.entry == Entry::Compute ? task.nsteps : 0;
  a.step0 = task.step0;
  a.dt = task.dt;
  a.stim = task.stim;
  a.integrate_vm = task.integrateVm;
  a.stride = wstride_;
  a.sv = reinterpret_cast<double *>(sv_);
  a.ext = reinterpret_cast<double **>(extTable_);
  a.params = reinterpret_cast<const double *>(params_);
  a.tables = reinterpret_cast<double *>(tables_);
  a.counters = reinterpret_cast<int64_t *>(counters_);
  a.out = reinterpret_cast<double *>(out_);
  a.param_rows = store_->numPerCell()
                     ? reinterpret_cast<const double *const *>(paramTable_)
                     : nullptr;
  a.rec_every = 1;
  a.bio = task.oneInterval ? nullptr : reinterpret_cast<double *>(bio_);
  a.bio_ca = store_->bioCa();
  a.one_interval = task.oneInterval;
}

bool GpuDevice::launch(const WaveTask &task, std::string &error) {
  task_ = task;
  launched_ = false;
  waveBytesIn_ = waveBytesOut_ = 0;
  if (range_.empty())
    return true;
  if (!syncParamLayout(error) || !syncBio(error))
    return false;
  const easyml_model_desc &d = *desc_;
  CellRange r = range_;
  size_t bytes = r.size() * kDouble;
  recCells_ = {};
  bool compute = task.entry == Entry::Compute;
  if (compute && task.recSamples > 0) {
    recCells_ = task.record->cells.intersect(r);
    if (!recCells_.empty() &&
        !prepareRecord(*task.record, recCells_, task.recSamples, error))
      return false;
  }
  auto failed = [&](const std::string &what) { return fail(error, what); };
  if (!ctx_->record(evStart_, error))
    return failed("starting a wave");
  // Externals kept on the device by earlier waves come to the host before
  // a wave that takes the host's.
  if (!task.keepExternals && externalsOnDevice) {
    if (!download(r, kExternalRows, error))
      return false;
    externalsOnDevice = false;
  }
  if (!task.keepExternals &&
      !copyRows(true, ext_, store_->extTable(), d.num_externals, r, error))
    return failed("uploading externals");
  if (!ctx_->copyToDevice(counters_, zeros_.data(),
                          zeros_.size() * sizeof(int64_t), error))
    return failed("clearing the counters");
  if (compute && task.snapshot) {
    for (int64_t v = 0; v < store_->svRows(); ++v)
      if (!ctx_->copyOnDevice(at(lastSv_, v, r.begin), at(sv_, v, r.begin),
                              bytes, error))
        return failed("saving the states before the wave");
    for (int64_t e = 0; e < d.num_externals; ++e)
      if (!ctx_->copyOnDevice(at(lastExt_, e, r.begin), at(ext_, e, r.begin),
                              bytes, error))
        return failed("saving the externals before the wave");
  }
  easyml_kernel_args &a = *argsStage_;
  fillArgs(a, task, r);
  if (!recCells_.empty()) {
    const RecordPlan &plan = *task.record;
    a.rec = reinterpret_cast<double *>(rec_);
    a.rec_slot = reinterpret_cast<const int64_t *>(recSlots_);
    a.rec_num = plan.num;
    a.rec_begin = local(recCells_.begin);
    a.rec_end = local(recCells_.end);
    a.rec_stride = recCells_.size();
    a.rec_first = task.recFirst;
    a.rec_every = task.recEvery;
    a.rec_samples = task.recSamples;
    a.rec_traces = plan.traces;
  }
  void *fn = task.entry == Entry::Init      ? init_
             : task.entry == Entry::Compute ? compute_
                                            : eval_;
  const char *name = task.entry == Entry::Init      ? "init"
                     : task.entry == Entry::Compute ? "compute"
                                                    : "eval";
  unsigned block = static_cast<unsigned>(
      image_ && image_->block_size > 0 ? image_->block_size : 128);
  int64_t blocks = std::max<int64_t>(1, (r.size() + block - 1) / block);
  std::vector<void *> params = kernelParams();
  if (!ctx_->record(evKernelStart_, error) ||
      !ctx_->launch(fn, static_cast<unsigned>(blocks), block, params.data(),
                    error) ||
      !ctx_->record(evKernelStop_, error))
    return failed(std::string("kernel ") + name + " on cells [" +
                  std::to_string(r.begin) + ", " + std::to_string(r.end) + ")");
  if (task.keepExternals)
    externalsOnDevice = true;
  else if (!copyRows(false, ext_, store_->extTable(), d.num_externals, r,
                     error))
    return failed("downloading externals");
  if (!ctx_->copyToHost(countersStage_.data(), counters_,
                        countersStage_.size() * sizeof(int64_t), error))
    return failed("downloading the counters");
  if (task.entry == Entry::Eval && d.num_traces) {
    std::vector<double *> host;
    for (int64_t k = 0; k < d.num_traces; ++k)
      host.push_back(store_->trace(k));
    if (!copyRows(false, out_, host.data(), host.size(), r, error))
      return failed("downloading traced values");
  }
  if (!recCells_.empty()) {
    size_t recBytes =
        task.recSamples * task.record->num * recCells_.size() * kDouble;
    if (!ctx_->copyToHost(recStage_.data(), rec_, recBytes, error))
      return failed("downloading recorded samples");
    waveBytesOut_ += recBytes;
  }
  if (!ctx_->record(evEnd_, error))
    return failed("ending a wave");
  launched_ = true;
  return true;
}

bool GpuDevice::wait(WaveTiming &timing, std::string &error) {
  timing = WaveTiming{};
  timing.counters.assign(desc_->num_counters, 0);
  if (!launched_)
    return true;
  launched_ = false;
  if (!ctx_->waitFor(evEnd_, error))
    return fail(error, "running a wave");
  double ms = 0, kernelMs = 0;
  if (!ctx_->elapsedMs(evStart_, evEnd_, ms, error) ||
      !ctx_->elapsedMs(evKernelStart_, evKernelStop_, kernelMs, error))
    return false;
  timing.seconds = ms / 1e3;
  timing.kernelSeconds = kernelMs / 1e3;
  std::copy(countersStage_.begin(), countersStage_.end() - 1,
            timing.counters.begin());
  timing.nonFinite = task_.entry == Entry::Compute ? countersStage_.back() : 0;
  if (!recCells_.empty()) {
    // Into the host buffer's layout: sample, slot, cell.
    const RecordPlan &plan = *task_.record;
    RecordPlan &host = *task_.record;
    int64_t n = recCells_.size(), all = plan.cells.size();
    for (int64_t k = 0; k < task_.recSamples; ++k)
      for (int64_t s = 0; s < plan.num; ++s)
        std::memcpy(host.host.data() +
                        ((task_.recOffset + k) * plan.num + s) * all +
                        (recCells_.begin - plan.cells.begin),
                    recStage_.data() + (k * plan.num + s) * n, n * kDouble);
  }
  timing.bytesToDevice = waveBytesIn_;
  timing.bytesToHost = waveBytesOut_;
  bytesToDevice += waveBytesIn_;
  bytesToHost += waveBytesOut_;
  return true;
}

bool GpuDevice::diagnose(const WaveTask &task, NonFinite &where,
                         std::string &error) {
  const easyml_model_desc &d = *desc_;
  // The state after the wave, on the host, and the externals where the
  // waves keep them here (a tissue's Vm may be steps newer than the
  // host's).
  unsigned rows = kStateRows | (externalsOnDevice ? kExternalRows : 0u);
  if (!ctx_->synchronize(error) || !download(range_, rows, error))
    return false;
  hostStale = false;
  externalsOnDevice = false;
  auto badValue = [&](const double *sv, const double *ext, std::string &name,
                      double &value) {
    for (int64_t v = 0; v < d.num_states; ++v)
      if (!std::isfinite(sv[v])) {
        name = d.state_names[v];
        value = sv[v];
        return true;
      }
    for (int64_t e = 0; e < d.num_externals; ++e)
      if (!std::isfinite(ext[e])) {
        name = std::string(d.external_names[e]) + " (" +
               d.external_sim_names[e] + ")";
        value = ext[e];
        return true;
      }
    return false;
  };
  const int64_t svRows = store_->svRows();
  std::vector<double> sv(svRows), ext(std::max<int64_t>(1, d.num_externals));
  std::string name;
  double value = 0;
  int64_t bad = -1;
  for (int64_t c = range_.begin; c < range_.end && bad < 0; ++c) {
    for (int64_t v = 0; v < svRows; ++v)
      sv[v] = store_->sv(v)[c];
    for (int64_t e = 0; e < d.num_externals; ++e)
      ext[e] = store_->ext(e)[c];
    if (badValue(sv.data(), ext.data(), name, value))
      bad = c;
  }
  where.cell = bad < 0 ? range_.begin : bad;
  int64_t c = where.cell;
  // Replay that cell on the device from the state saved before the wave,
  // one step per launch, fetching only its own values after each step.
  size_t bytes = range_.size() * kDouble;
  for (int64_t v = 0; v < svRows; ++v)
    if (!ctx_->copyOnDevice(at(sv_, v, range_.begin),
                            at(lastSv_, v, range_.begin), bytes, error))
      return fail(error, "restoring the states before the wave");
  for (int64_t e = 0; e < d.num_externals; ++e)
    if (!ctx_->copyOnDevice(at(ext_, e, range_.begin),
                            at(lastExt_, e, range_.begin), bytes, error))
      return fail(error, "restoring the externals before the wave");
  deviceStale = true; // the host holds the state after the wave
  std::vector<void *> params = kernelParams();
  // Steps crossed as one interval are replayed as one.
  int64_t replays = task.oneInterval ? 1 : task.nsteps;
  for (int64_t k = 0; k < replays; ++k) {
    WaveTask one = task;
    one.step0 = task.step0 + k;
    one.nsteps = task.oneInterval ? task.nsteps : 1;
    fillArgs(*argsStage_, one, CellRange{c, c + 1});
    if (!ctx_->launch(compute_, 1, 1, params.data(), error))
      return fail(error, "replaying cell " + std::to_string(c));
    for (int64_t v = 0; v < svRows; ++v)
      if (!ctx_->copyToHost(&sv[v], at(sv_, v, c), kDouble, error))
        return fail(error, "downloading cell " + std::to_string(c));
    for (int64_t e = 0; e < d.num_externals; ++e)
      if (!ctx_->copyToHost(&ext[e], at(ext_, e, c), kDouble, error))
        return fail(error, "downloading cell " + std::to_string(c));
    if (!ctx_->synchronize(error))
      return fail(error, "replaying cell " + std::to_string(c));
    if (badValue(sv.data(), ext.data(), name, value)) {
      where.variable = name;
      where.value = value;
      where.step = one.step0;
      where.time = one.step0 * task.dt;
      break;
    }
  }
  if (where.step < 0) {
    where.variable = "(a nodal parameter)";
    where.step = task.step0;
    where.time = task.step0 * task.dt;
  }
  return true;
}

} // namespace

//===----------------------------------------------------------------------===//
// A tissue's diffusion on the device
//===----------------------------------------------------------------------===//

void GpuDevice::releaseTissue() {
  for (uint64_t p : {tissueV_, tissueFlags_, tissueSrc_})
    ctx_->release(p);
  tissueV_ = tissueFlags_ = tissueSrc_ = 0;
  tissueCapacity_ = 0;
  tissueSpan_ = srcSpan_ = {};
}

/// The range's Vm at its first and last `halo` points, to the host: the
/// halos of the neighbouring ranges.
bool GpuDevice::sendHalo(const DiffusionTask &task, std::string &error) {
  CellRange r = range_;
  if (r.empty())
    return true;
  int64_t h = task.halo;
  std::vector<CellRange> ends = {r};
  if (2 * h < r.size())
    ends = {{r.begin, r.begin + h}, {r.end - h, r.end}};
  for (CellRange e : ends) {
    if (!ctx_->copyToHost(task.hostVm + e.begin,
                          at(ext_, desc_->vm_index, e.begin),
                          e.size() * kDouble, error))
      return fail(error, "downloading the halo of Vm");
    bytesToHost += e.size() * kDouble;
  }
  if (!ctx_->synchronize(error))
    return fail(error, "downloading the halo of Vm");
  return true;
}

/// Buffers for the range and its halo, the kernel, and the flags and
/// sources when their version changed.
bool GpuDevice::prepareDiffusion(const DiffusionTask &task,
                                 std::string &error) {
  if (!diffusion_) {
    diffusion_ = GpuDiffusion::create(*ctx_, info_, *variant_, error);
    if (!diffusion_)
      return false;
  }
  int64_t hi = task.hi < 0 ? store_->cells() : task.hi;
  CellRange span{std::max<int64_t>(task.lo, range_.begin - task.halo),
                 std::min(hi, range_.end + task.halo)};
  size_t bytes = span.size() * kDouble;
  if (bytes > tissueCapacity_) {
    releaseTissue();
    tissueV_ = ctx_->allocate(bytes, error);
    tissueFlags_ = tissueV_ ? ctx_->allocate(span.size(), error) : 0;
    tissueSrc_ = tissueFlags_ ? ctx_->allocate(bytes, error) : 0;
    if (!tissueSrc_)
      return fail(error, "allocating the tissue's buffers");
    tissueCapacity_ = bytes;
  }
  bool moved = span.begin != tissueSpan_.begin || span.end != tissueSpan_.end;
  tissueSpan_ = span;
  if (moved || flagsVersion_ != task.flagsVersion) {
    if (!ctx_->copyToDevice(tissueFlags_, task.flags + span.begin,
                            span.size(), error))
      return fail(error, "uploading the tissue's flags");
    flagsVersion_ = task.flagsVersion;
    bytesToDevice += span.size();
  }
  bool srcMoved = span.begin != srcSpan_.begin || span.end != srcSpan_.end;
  if (task.src && (srcMoved || srcVersion_ != task.srcVersion)) {
    if (!ctx_->copyToDevice(tissueSrc_, task.src + span.begin, bytes, error))
      return fail(error, "uploading the tissue's stimulus");
    srcVersion_ = task.srcVersion;
    srcSpan_ = span;
    bytesToDevice += bytes;
  }
  return true;
}

/// Queues the sub-step: the halo from the host and the range's own Vm
/// into the tissue buffer, then the generated kernel from it into the
/// range's Vm.
bool GpuDevice::diffuse(const DiffusionTask &task, std::string &error) {
  if (range_.empty())
    return true;
  if (!prepareDiffusion(task, error))
    return false;
  CellRange span = tissueSpan_, r = range_;
  auto offset = [&](int64_t point) {
    return tissueV_ + static_cast<uint64_t>(point - span.begin) * kDouble;
  };
  CellRange halos[2] = {{span.begin, r.begin}, {r.end, span.end}};
  for (CellRange h : halos)
    if (!h.empty()) {
      if (!ctx_->copyToDevice(offset(h.begin), task.hostVm + h.begin,
                              h.size() * kDouble, error))
        return fail(error, "uploading the halo of Vm");
      bytesToDevice += h.size() * kDouble;
    }
  // The host's Vm is rewritten as devices finish: the halo must be on the
  // device before.
  if (!ctx_->synchronize(error))
    return fail(error, "uploading the halo of Vm");
  if (!ctx_->copyOnDevice(offset(r.begin), vmRow(), r.size() * kDouble,
                          error))
    return fail(error, "copying Vm for the diffusion");
  // The kernel indexes its arrays by grid point: each pointer is the
  // buffer's address less its first point's offset.
  auto shifted = [](uint64_t base, int64_t first, size_t size) {
    return base - static_cast<uint64_t>(first) * size;
  };
  easyml_diffusion_args a = task.grid;
  a.begin = r.begin;
  a.end = r.end;
  a.v = reinterpret_cast<const double *>(
      shifted(tissueV_, span.begin, kDouble));
  a.out = reinterpret_cast<double *>(shifted(vmRow(), r.begin, kDouble));
  a.flags = reinterpret_cast<const uint8_t *>(
      shifted(tissueFlags_, span.begin, 1));
  a.src = task.src ? reinterpret_cast<const double *>(
                         shifted(tissueSrc_, span.begin, kDouble))
                   : nullptr;
  a.prev = a.lat = nullptr;
  a.counts = nullptr;
  if (const DeviceActivation *act = task.activation) {
    if (!prepareActivation(*act, error))
      return false;
    a.prev = reinterpret_cast<double *>(shifted(actPrev_, r.begin, kDouble));
    a.lat = reinterpret_cast<double *>(shifted(actLat_, r.begin, kDouble));
    a.counts = reinterpret_cast<int64_t *>(actCounts_);
    a.threshold = act->threshold;
    a.t1 = act->t1;
    a.dt = act->dt;
  }
  if (!diffusion_->launch(a, error))
    return fail(error, "kernel diffuse on points [" + std::to_string(r.begin) +
                           ", " + std::to_string(r.end) + ")");
  // The range's Vm is newer here than on the host (which may have taken
  // it since the wave) until a copy brings it there.
  externalsOnDevice = true;
  return true;
}

bool GpuDevice::finishDiffusion(const DiffusionTask &task,
                                std::string &error) {
  if (range_.empty())
    return true;
  if (task.downloadVm) {
    if (!ctx_->copyToHost(task.hostVm + range_.begin, vmRow(),
                          range_.size() * kDouble, error))
      return fail(error, "downloading Vm");
    bytesToHost += range_.size() * kDouble;
  }
  if (task.activation &&
      !ctx_->copyToHost(actStage_.data(), actCounts_,
                        actStage_.size() * sizeof(int64_t), error))
    return fail(error, "downloading the activation counts");
  if (!ctx_->synchronize(error))
    return fail(error, "running the diffusion");
  if (DeviceActivation *act = task.activation) {
    act->activated += actStage_[0];
    act->nonFinite += actStage_[1];
    act->done.push_back(range_);
  }
  return true;
}

void GpuDevice::releaseActivationBuffers() {
  for (uint64_t p : {actLat_, actPrev_, actCounts_})
    ctx_->release(p);
  actLat_ = actPrev_ = actCounts_ = 0;
  actCapacity_ = 0;
  actRange_ = {};
}

/// Buffers for the range's activation times and Vm after the last step,
/// filled from the host's arrays unless they hold the range already; the
/// counts cleared.
bool GpuDevice::prepareActivation(const DeviceActivation &act,
                                  std::string &error) {
  CellRange r = range_;
  bool held = r == actRange_ && hostLat_ == act.lat && hostPrev_ == act.prev;
  if (!held) {
    if (!actRange_.empty() && !releaseActivation(false, error))
      return false;
    size_t bytes = r.size() * kDouble;
    if (bytes > actCapacity_ || !actCounts_) {
      releaseActivationBuffers();
      actLat_ = ctx_->allocate(bytes, error);
      actPrev_ = actLat_ ? ctx_->allocate(bytes, error) : 0;
      actCounts_ = actPrev_ ? ctx_->allocate(2 * sizeof(int64_t), error) : 0;
      if (!actCounts_)
        return fail(error, "allocating the activation times");
      actCapacity_ = bytes;
    }
    if (!ctx_->copyToDevice(actLat_, act.lat + r.begin, bytes, error) ||
        !ctx_->copyToDevice(actPrev_, act.prev + r.begin, bytes, error))
      return fail(error, "uploading the activation times");
    bytesToDevice += 2 * bytes;
    actRange_ = r;
    hostLat_ = act.lat;
    hostPrev_ = act.prev;
  }
  if (!ctx_->copyToDevice(actCounts_, actZeros_.data(),
                          actZeros_.size() * sizeof(int64_t), error))
    return fail(error, "clearing the activation counts");
  return true;
}

bool GpuDevice::releaseActivation(bool keep, std::string &error) {
  CellRange r = actRange_;
  if (r.empty())
    return true;
  size_t bytes = r.size() * kDouble;
  if (!ctx_->copyToHost(hostLat_ + r.begin, actLat_, bytes, error) ||
      !ctx_->copyToHost(hostPrev_ + r.begin, actPrev_, bytes, error) ||
      !ctx_->synchronize(error))
    return fail(error, "downloading the activation times");
  bytesToHost += 2 * bytes;
  if (!keep)
    actRange_ = {};
  return true;
}

std::unique_ptr<Device>
easyml::rt::makeGpuDevice(const easyml_model_desc &desc,
                          const easyml_variant &variant,
                          std::shared_ptr<GpuDriver> driver,
                          const GpuDeviceInfo &info, std::string &error) {
  std::unique_ptr<GpuContext> ctx = driver->context(info.index, error);
  if (!ctx)
    return nullptr;
  const easyml_gpu_image *image = nullptr;
  void *module = ctx->loadVariant(variant, info, image, error);
  if (!module)
    return nullptr;
  void *init = ctx->function(module, variant.init_kernel, error);
  void *compute =
      init ? ctx->function(module, variant.compute_kernel, error) : nullptr;
  void *eval =
      compute ? ctx->function(module, variant.eval_kernel, error) : nullptr;
  if (!eval)
    return nullptr;
  return std::make_unique<GpuDevice>(desc, variant, std::move(ctx), info, image,
                                     init, compute, eval);
}
