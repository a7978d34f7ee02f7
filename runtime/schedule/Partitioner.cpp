//===- Partitioner.cpp - which device computes which cells ---------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/Schedule/Partitioner.h"
#include "easyml/Runtime/Schedule/PhaseSpeeds.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

using namespace easyml::rt;

namespace {
/// Waves while a split settles are at most this many times probeSteps.
constexpr int64_t kMaxSettleFactor = 64;
} // namespace

Partitioner::Partitioner(DeviceTeam &team, const Timeline &timeline,
                         PartitionOptions options)
    : team_(team), timeline_(timeline), options_(std::move(options)) {}

Partitioner::~Partitioner() = default;

Status Partitioner::start() {
  DeviceSet &set = team_.set();
  RunReport &report = team_.report();
  int64_t cells = team_.store().cells();
  // Ranges start on a multiple of every device's alignment (powers of
  // two: the largest), not of kCellAlignment: two CPU pools split at
  // vector widths, so a slow one's small share is not coarsely quantised.
  // Two host devices sharing waves meet on any cell (SharedWave.cpp).
  team_.align = 1;
  for (auto &device : set.devices)
    team_.align = std::max(team_.align, device->alignment());
  balancer_ = std::make_unique<Balancer>(cells, team_.align, options_.balance);
  countHotCells();
  report.alignment = team_.align;
  std::vector<int> initial = set.initial;
  if (set.automatic) {
    dimensioner_ = std::make_unique<Dimensioner>(
        static_cast<int>(set.gpus.size()), set.cpu >= 0, options_.dimension);
    report.dimensioning.enabled = true;
    report.dimensioning.maxWindows = dimensioner_->maxWindows();
    DeviceConfig c = dimensioner_->next();
    initial.clear();
    if (c.cpu)
      initial.push_back(set.cpu);
    for (int g = 0; g < c.gpus; ++g)
      initial.push_back(set.gpus[g]);
    if (dimensioner_->done()) {
      report.dimensioning.complete = true;
      report.dimensioning.chosen = c.str();
      report.dimensioning.reason = dimensioner_->reason();
    }
  }
  // Initial shares: given, else from remembered speeds, else even until
  // measured.
  for (int i = 0; i < team_.size(); ++i) {
    auto it = options_.speeds.find(team_.device(i).id());
    if (it != options_.speeds.end() && it->second > 0)
      team_.speeds[i] = it->second;
  }
  std::vector<CellRange> r;
  if (options_.shares.size() == initial.size()) {
    r = splitCells(cells, options_.shares, team_.align);
  } else if (!options_.shares.empty()) {
    return Status::invalid(std::to_string(options_.shares.size()) +
                           " shares given for " +
                           std::to_string(initial.size()) + " devices");
  } else {
    r = team_.splitFor(initial);
  }
  for (size_t i = 0; i < initial.size(); ++i)
    team_.ranges[initial[i]] = r[i];
  balanced_ = initial;
  balancer_->reset(r);
  // The first split is a guess unless speeds or shares were given: waves
  // start at one step (the balancer accumulates them into a window), so a
  // slow device given half the cells holds the others up for little.
  bool known = !options_.shares.empty();
  for (int i : initial)
    known = known || team_.speeds[i] > 0;
  settleSteps_ = known ? std::max<int64_t>(1, options_.probeSteps) : 1;
  for (int i = 0; i < team_.size(); ++i) {
    std::string err;
    if (!team_.device(i).own(team_.ranges[i], err))
      return Status::failed(team_.device(i).description() + ": " + err);
  }
  return Status::success();
}

std::vector<int> Partitioner::working() const {
  std::vector<int> w;
  for (int i : balanced_)
    if (!team_.lost[i])
      w.push_back(i);
  return w;
}

bool Partitioner::settled() const {
  return (!dimensioner_ || dimensioner_->done()) && !window_.open;
}

void Partitioner::beforeWave() {
  if (dimensioner_ && !dimensioner_->done() && !window_.open)
    startWindow();
}

/// Where a wave from the current step ends, at the latest at `stop` (the
/// next event or stimulus edge): cut for the balancer and the measuring
/// windows.
int64_t Partitioner::waveEnd(int64_t stop) const {
  int64_t step = team_.step;
  int64_t end = stop;
  if (options_.maxWaveSteps > 0)
    end = std::min(end, step + options_.maxWaveSteps);
  if (window_.open) {
    end = std::min(end, window_.end);
    // A window is cut in three so the balancer settles before the last
    // two are measured. A cycle window on one device has nothing to
    // balance: it runs the waves that device will run once chosen (cut
    // at stimulus edges), where hundred-step waves cost a GPU a
    // synchronisation each (5% of its rate on an H100 at 16,384 cells).
    // On several devices, waves that long would keep for a whole cycle
    // a split measured at one phase of it.
    if (!window_.cycle || balanced_.size() > 1)
      end = std::min(end, step + std::max<int64_t>(
                                     1, options_.dimension.windowSteps / 3));
    // The window's first wave settles the split and is not measured: it
    // stays short where a device not measured yet got a guessed share,
    // and where the rest of the window must be whole cycles.
    if (window_.waves == 0 && (window_.cycle || !allMeasured()))
      end = std::min(end, step + std::max<int64_t>(1, options_.probeSteps));
  } else if (balanced_.size() > 1 && settling_ && options_.probeSteps > 0) {
    end = std::min(end, step + settleSteps_);
  }
  return end;
}

bool Partitioner::sharedPair(int &a, int &b) const {
  if (!options_.balance.share || options_.balance.fixed || window_.open ||
      balanced_.size() != 2)
    return false;
  std::vector<int> act = team_.active();
  if (act.size() != 2)
    return false;
  a = act[0];
  b = act[1];
  for (int i : act)
    if (!team_.device(i).runsOnHost() || !team_.device(i).computesChunks())
      return false;
  if (team_.ranges[a].begin > team_.ranges[b].begin)
    std::swap(a, b);
  return team_.ranges[a].end == team_.ranges[b].begin &&
         team_.ranges[a].size() + team_.ranges[b].size() >= 2 * team_.align;
}

void Partitioner::sharedWaveDone() {
  balancer_->reset(
      {team_.ranges[balanced_[0]], team_.ranges[balanced_[1]]});
}

void Partitioner::afterWave(const WaveTask &task, double wall,
                            const std::vector<WaveTiming> &timing,
                            bool shared) {
  RunReport &report = team_.report();
  waveShared_ = shared;
  // The wave's record and the balancer's view of it.
  WaveRecord w;
  w.step0 = task.step0;
  w.nsteps = task.nsteps;
  w.wallSeconds = wall;
  for (int i = 0; i < team_.size(); ++i) {
    w.cells.push_back(team_.ranges[i].size());
    w.seconds.push_back(timing[i].seconds);
  }
  w.imbalance = imbalance(w.seconds, w.cells);
  ++report.totalWaves;
  bool logged = report.waves.size() < report.maxWaveRecords;
  if (logged)
    report.waves.push_back(w);
  learnPhase(task, timing);
  // A repartition decided now takes effect at the step after the wave.
  moveStep_ = task.step0 + task.nsteps;
  measureWindow(task, timing);
  judge(task, timing);
  moveStep_ = -1;
  if (logged && !report.repartitions.empty() &&
      report.repartitions.back().step == task.step0 + task.nsteps)
    report.waves.back().repartition = true;
}

void Partitioner::measureWindow(const WaveTask &task,
                                const std::vector<WaveTiming> &timing) {
  // Dimensioning windows measure the wave time of the slowest device.
  if (!window_.open)
    return;
  double slowest = 0;
  for (int i : team_.active())
    slowest = std::max(slowest, timing[i].seconds);
  // The window's first wave settles the split; the rest are measured
  // (or the first, when it is all there is).
  double cellSteps = static_cast<double>(team_.store().cells()) * task.nsteps;
  if (window_.waves++ == 0) {
    window_.firstCellSteps = cellSteps;
    window_.firstSeconds = slowest;
  } else {
    window_.cellSteps += cellSteps;
    window_.seconds += slowest;
  }
}

void Partitioner::judge(const WaveTask &task,
                        const std::vector<WaveTiming> &timing) {
  if (balanced_.size() < 2)
    return;
  // A shared wave left its devices balanced (and measured), and the
  // phase's speeds split this wave: the split that follows the last
  // windows would only chase them.
  if (waveShared_ || phasePredicted_) {
    settling_ = false;
    return;
  }
  std::vector<double> seconds, cost;
  for (int i : balanced_) {
    seconds.push_back(timing[i].seconds);
    cost.push_back(team_.device(i).sharesHostStore()
                       ? 0.0
                       : team_.store().svRows() * sizeof(double) *
                             team_.moveSecondsPerByte);
  }
  balancer_->setMoveCost(cost, runEnd_ - (task.step0 + task.nsteps));
  Balancer::Decision decision = balancer_->observe(seconds, task.nsteps);
  RunReport &report = team_.report();
  if (!std::isnan(decision.measuredGain))
    for (auto r = report.repartitions.rbegin(); r != report.repartitions.rend();
         ++r)
      if (r->balancer) {
        if (std::isnan(r->measuredGain))
          r->measuredGain = decision.measuredGain;
        break;
      }
  report.movesRefused += decision.tooCostly;
  if (decision.judged)
    for (size_t k = 0; k < balanced_.size(); ++k)
      if (decision.speeds[k] > 0)
        team_.speeds[balanced_[k]] = decision.speeds[k];
  // Until a judged window comes out below the threshold, waves stay short
  // so a split still being found costs little: a window not yet long
  // enough to judge is completed by one wave sized from the last one's
  // time per step; after a judgement waves double from probeSteps.
  int64_t cap = kMaxSettleFactor * std::max<int64_t>(1, options_.probeSteps);
  double slowest = *std::max_element(seconds.begin(), seconds.end());
  if (decision.judged) {
    windowSeconds_ = 0;
    if (!decision.repartition &&
        decision.windowImbalance <= balancer_->options().threshold)
      settling_ = false;
    else if (settling_)
      settleSteps_ = std::min(settleSteps_ * 2, cap);
  } else if (settling_) {
    windowSeconds_ += slowest;
    double perStep = slowest / std::max<int64_t>(1, task.nsteps);
    double left = balancer_->options().minWindowSeconds - windowSeconds_;
    int64_t need = perStep > 0
                       ? static_cast<int64_t>(std::ceil(1.2 * left / perStep))
                       : settleSteps_ * 2;
    settleSteps_ = std::clamp<int64_t>(need, 1, cap);
  }
  if (decision.repartition)
    repartition(decision);
}

void Partitioner::repartition(const Balancer::Decision &decision) {
  settling_ = true;
  settleSteps_ = std::max<int64_t>(1, options_.probeSteps);
  std::vector<CellRange> next(team_.size());
  for (size_t k = 0; k < balanced_.size(); ++k)
    next[balanced_[k]] = decision.ranges[k];
  char why[96];
  double threshold = balancer_->options().threshold;
  if (!decision.forOrder)
    std::snprintf(why, sizeof why, "imbalance %.1f%% > %.1f%%%s",
                  100 * decision.windowImbalance, 100 * threshold,
                  decision.reordered ? ", devices reordered" : "");
  else
    std::snprintf(why, sizeof why,
                  "devices reordered for the hot cells: %.1f%% faster",
                  100 * decision.predictedGain);
  if (moveTo(next, why, decision.windowImbalance)) {
    RepartitionRecord &r = team_.report().repartitions.back();
    r.balancer = true;
    r.predictedGain = decision.predictedGain;
    r.gainSeconds = decision.gainSeconds;
    r.moveSeconds = decision.moveSeconds;
    balancer_->adopt(decision.ranges);
  }
}

bool Partitioner::afterStep() {
  // A cycle window measures one whole cycle after its settling wave,
  // however short that wave was cut.
  int64_t step = team_.step;
  if (window_.open && window_.cycle && window_.waves == 1 &&
      !window_.settled) {
    window_.settled = true;
    window_.end = step + window_.steps;
  }
  if (!window_.open || step < window_.end)
    return true;
  double rate = window_.seconds > 0 ? window_.cellSteps / window_.seconds
                : window_.firstSeconds > 0
                    ? window_.firstCellSteps / window_.firstSeconds
                    : 0;
  DeviceConfig measured = dimensioner_->next();
  dimensioner_->observe(rate);
  RunReport &report = team_.report();
  report.dimensioning.windows.push_back(
      {measured.str(), window_.start, window_.end - window_.start, rate});
  window_.open = false;
  resetBalancer(options_.balance);
  if (!dimensioner_->done())
    return true;
  DeviceConfig c = dimensioner_->chosen();
  report.dimensioning.complete = true;
  report.dimensioning.chosen = c.str();
  report.dimensioning.reason = dimensioner_->reason();
  return useConfig(c, "dimensioning chose " + c.str());
}

void Partitioner::addStepSeconds(double seconds) {
  // After the window's first wave (which settles the split) the step is
  // that wave's; after a later one, measured; before any (a window opened
  // after the wave), the last window's.
  if (!window_.open || window_.waves == 0)
    return;
  (window_.waves == 1 ? window_.firstSeconds : window_.seconds) += seconds;
}

bool Partitioner::moveTo(const std::vector<CellRange> &next,
                         const std::string &why, double imbalance,
                         int64_t atStep) {
  int64_t saved = moveStep_;
  if (atStep >= 0)
    moveStep_ = atStep;
  MoveResult r = team_.move(next, why, imbalance, moveStep());
  bool ok = r.ok;
  if (r.failedDevice >= 0)
    ok = moveFailure_ ? moveFailure_(r.failedDevice, next, why, r.error)
                      : team_.fail(team_.device(r.failedDevice), r.error);
  moveStep_ = saved;
  return ok;
}

int64_t Partitioner::moveStep() const {
  return moveStep_ >= 0 ? moveStep_ : team_.step;
}

void Partitioner::forget(int i) {
  balanced_.erase(std::remove(balanced_.begin(), balanced_.end(), i),
                  balanced_.end());
}

bool Partitioner::useConfig(const DeviceConfig &config,
                            const std::string &why) {
  const DeviceSet &set = team_.set();
  std::vector<int> act;
  if (config.cpu && set.cpu >= 0)
    act.push_back(set.cpu);
  // The first GPUs not lost.
  int gpus = 0;
  for (int g : set.gpus)
    if (gpus < config.gpus && !team_.lost[g]) {
      act.push_back(g);
      ++gpus;
    }
  if (act.empty())
    return team_.fail("dimensioning: no device of " + config.str() +
                      " is left");
  std::vector<CellRange> r = team_.splitFor(act);
  std::vector<CellRange> next(team_.size());
  for (size_t k = 0; k < act.size(); ++k)
    next[act[k]] = r[k];
  if (next != team_.ranges && !moveTo(next, why, 0))
    return false;
  balanced_ = act;
  resetBalancer(balancer_->options());
  return true;
}

int64_t Partitioner::windowLength() {
  int64_t steps = std::max<int64_t>(1, options_.dimension.windowSteps);
  // Under periodic pacing the cost per step follows the cycle (an
  // upstroke can cost ten times a diastolic step, and not by the same
  // factor on every device): device sets measured over different parts
  // of a cycle do not compare. Windows of a whole cycle (after a settling
  // wave) do, where pacing starts within the first cycle, lasts through
  // every window, and the run holds them and two cycles more. Decided at
  // the first window, for all of them.
  int64_t step = team_.step;
  if (cycleWindow_ < 0) {
    cycleWindow_ = 0;
    int64_t left = dimensioner_->maxWindows();
    int64_t probe = std::max<int64_t>(1, options_.probeSteps);
    for (const Stimulus &s : timeline_.stimuli()) {
      int64_t p = s.period;
      if (p <= steps || s.count < 2 || s.start >= step + p)
        continue;
      int64_t windowsEnd = step + left * (p + probe);
      bool paced = (windowsEnd - s.start) / p <= s.count - 1;
      if (paced && runEnd_ - step >= left * (p + probe) + 2 * p) {
        cycleWindow_ = p;
        break;
      }
    }
  }
  return cycleWindow_ > 0 ? cycleWindow_ : steps;
}

bool Partitioner::allMeasured() const {
  return std::all_of(balanced_.begin(), balanced_.end(),
                     [&](int i) { return team_.speeds[i] > 0; });
}

void Partitioner::startWindow() {
  DeviceConfig c = dimensioner_->next();
  char why[128];
  std::snprintf(why, sizeof why, "dimensioning: measuring %s", c.str().c_str());
  if (!useConfig(c, why))
    return;
  window_ = Window{};
  window_.open = true;
  window_.start = team_.step;
  window_.steps = windowLength();
  window_.cycle = cycleWindow_ > 0;
  window_.end = team_.step + window_.steps;
  // A window of cycles measures whole cycles after its settling wave.
  if (window_.cycle)
    window_.end += std::max<int64_t>(1, options_.probeSteps);
  // The balancer judges every wave while measuring.
  BalanceOptions fast = options_.balance;
  fast.minWindowSeconds = 0;
  resetBalancer(fast);
}

void Partitioner::resetBalancer(const BalanceOptions &options) {
  *balancer_ = Balancer(team_.store().cells(), team_.align, options);
  countHotCells();
  settling_ = true;
  windowSeconds_ = 0;
  settleSteps_ = std::max<int64_t>(1, options_.probeSteps);
  std::vector<CellRange> r;
  for (int i : balanced_)
    r.push_back(team_.ranges[i]);
  balancer_->reset(r);
}

void Partitioner::countHotCells() {
  double threshold = balancer_->options().hotVm;
  if (std::isnan(threshold) || team_.desc().vm_index < 0)
    return;
  // Every cell's Vm is on the host at a judgement (tissue). At most
  // kHotBlocks blocks (of a multiple of the alignment: on a large grid a
  // split a few thousandths finer would not pay), each counted from at
  // most 16 of its cells: a judgement reads at most 64 Ki values.
  balancer_->setHotCells([this, threshold](HotBlocks &hot) {
    constexpr int64_t kHotBlocks = 4096, kSamples = 16;
    // Steps that leave Vm on the devices (DeviceActivation) bring it here
    // only when something reads it.
    team_.syncExternals();
    const double *vm = team_.store().ext(team_.desc().vm_index);
    int64_t align = team_.align;
    hot.cells = team_.store().cells();
    int64_t units = (hot.cells + align - 1) / align;
    hot.align = align * ((units + kHotBlocks - 1) / kHotBlocks);
    int64_t blocks = (hot.cells + hot.align - 1) / hot.align;
    int64_t stride = std::max<int64_t>(1, hot.align / kSamples);
    hot.prefix.assign(blocks + 1, 0);
    for (int64_t k = 0; k < blocks; ++k) {
      int64_t begin = k * hot.align,
              end = std::min(hot.cells, begin + hot.align);
      int64_t seen = 0, above = 0;
      for (int64_t c = begin; c < end; c += stride, ++seen)
        above += vm[c] >= threshold;
      hot.prefix[k + 1] =
          hot.prefix[k] +
          (seen ? (above * (end - begin) + seen / 2) / seen : 0);
    }
  });
}
