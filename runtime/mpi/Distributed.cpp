//===- Distributed.cpp - one simulation across MPI ranks ------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "MpiSupport.h"

#include "easyml/Runtime/MPI/Distributed.h"

#include "RankParts.h"
#include "easyml/Runtime/Core/Population.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <thread>
#include <unistd.h>

using namespace easyml::rt;
using namespace easyml::rt::mpi;

namespace {

/// Rank 0 always holds cell 0 (it writes cell 0's files): when a split
/// leaves it none, it takes the first block of the rank that has it.
std::vector<CellRange> keepCellZero(std::vector<CellRange> ranges,
                                    int64_t align) {
  if (ranges.empty() || !ranges[0].empty())
    return ranges;
  for (size_t r = 1; r < ranges.size(); ++r)
    if (!ranges[r].empty()) {
      ranges[0] = CellRange{0, std::min(align, ranges[r].end)};
      ranges[r].begin = ranges[0].end;
      if (ranges[r].empty())
        ranges[r] = CellRange{};
      break;
    }
  return ranges;
}

/// Contiguous ranges in rank order where every rank holds at least one
/// block of `align` cells (taken from the rank holding most), or the
/// ranges unchanged when there are too few cells for that.
std::vector<CellRange> keepEveryRankHolding(std::vector<CellRange> ranges,
                                            int64_t align) {
  const size_t n = ranges.size();
  if (n == 0 || ranges.back().end < static_cast<int64_t>(n) * align)
    return ranges;
  std::vector<int64_t> size(n);
  for (size_t r = 0; r < n; ++r)
    size[r] = ranges[r].size();
  for (size_t r = 0; r < n; ++r)
    if (size[r] == 0) {
      size_t most = std::max_element(size.begin(), size.end()) - size.begin();
      size[most] -= align;
      size[r] = align;
    }
  int64_t begin = ranges.front().begin;
  for (size_t r = 0; r < n; ++r) {
    ranges[r] = CellRange{begin, begin + size[r]};
    begin = ranges[r].end;
  }
  return ranges;
}

/// Adds what `more` devices did to `into` (by device id); a device's
/// cells are the newest count.
void addDeviceReports(std::vector<DeviceReport> &into,
                      const std::vector<DeviceReport> &more) {
  for (const DeviceReport &dr : more) {
    auto it = std::find_if(into.begin(), into.end(), [&](const DeviceReport &x) {
      return x.id == dr.id;
    });
    if (it == into.end()) {
      into.push_back(dr);
      continue;
    }
    it->cells = dr.cells;
    it->cellSteps += dr.cellSteps;
    it->seconds += dr.seconds;
    it->kernelSeconds += dr.kernelSeconds;
    it->waves += dr.waves;
    it->bytesToDevice += dr.bytesToDevice;
    it->bytesToHost += dr.bytesToHost;
  }
}

/// `root`'s non-finite value, on every rank.
NonFinite broadcastNonFinite(MPI_Comm comm, int root, const NonFinite &nf) {
  double v[4] = {static_cast<double>(nf.cell), static_cast<double>(nf.step),
                 nf.time, nf.value};
  MPI_Bcast(v, 4, MPI_DOUBLE, root, comm);
  NonFinite out;
  out.cell = static_cast<int64_t>(v[0]);
  out.step = static_cast<int64_t>(v[1]);
  out.time = v[2];
  out.value = v[3];
  out.variable = broadcast(comm, root, nf.variable);
  return out;
}

} // namespace

//===----------------------------------------------------------------------===//
// DistributedReport
//===----------------------------------------------------------------------===//

double DistributedReport::meanImbalance() const {
  double s = 0;
  for (const EpochRecord &e : epochs)
    s += e.imbalance;
  return epochs.empty() ? 0 : s / epochs.size();
}

std::string DistributedReport::json(int indent) const {
  std::string pad(indent, ' ');
  std::string s = "{\n";
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "%s  \"ranks\": %d,\n%s  \"cells\": %lld,\n%s  \"steps\": "
                "%lld,\n%s  \"threshold\": %g,\n%s  \"epochs\": %lld,\n%s  "
                "\"mean_imbalance\": %.6f,\n%s  \"bytes_moved\": %.0f,\n%s  "
                "\"wall_seconds\": %.6f,\n",
                pad.c_str(), ranks, pad.c_str(), (long long)cells, pad.c_str(),
                (long long)steps, pad.c_str(), threshold, pad.c_str(),
                (long long)totalEpochs, pad.c_str(), meanImbalance(),
                pad.c_str(), bytesMoved, pad.c_str(), wallSeconds);
  s += buf;
  s += pad + "  \"per_rank\": [";
  for (size_t r = 0; r < rankJson.size(); ++r)
    s += (r ? ",\n" : "\n") + pad + "    " + rankJson[r];
  s += "\n" + pad + "  ],\n";
  s += pad + "  \"epoch_records\": [";
  for (size_t e = 0; e < epochs.size(); ++e) {
    const EpochRecord &ep = epochs[e];
    std::string cells, secs;
    for (size_t r = 0; r < ep.cells.size(); ++r) {
      cells += (r ? ", " : "") + std::to_string(ep.cells[r]);
      std::snprintf(buf, sizeof buf, "%s%.6g", r ? ", " : "", ep.seconds[r]);
      secs += buf;
    }
    std::snprintf(buf, sizeof buf,
                  "{\"step0\": %lld, \"steps\": %lld, \"imbalance\": %.6f, "
                  "\"repartition\": %s, ",
                  (long long)ep.step0, (long long)ep.nsteps, ep.imbalance,
                  ep.repartition ? "true" : "false");
    s += (e ? ",\n" : "\n") + pad + "    " + buf + "\"cells\": [" + cells +
         "], \"seconds\": [" + secs + "]}";
  }
  s += "\n" + pad + "  ],\n";
  s += pad + "  \"repartitions\": [";
  for (size_t i = 0; i < repartitions.size(); ++i) {
    const RepartitionRecord &rp = repartitions[i];
    std::string to;
    for (size_t r = 0; r < rp.to.size(); ++r)
      to += (r ? ", " : "") + std::string("[") +
            std::to_string(rp.to[r].begin) + ", " +
            std::to_string(rp.to[r].end) + "]";
    std::snprintf(buf, sizeof buf,
                  "{\"step\": %lld, \"imbalance\": %.6f, \"bytes\": %.0f, ",
                  (long long)rp.step, rp.imbalance, rp.bytes);
    s += (i ? ",\n" : "\n") + pad + "    " + buf + "\"to\": [" + to + "]}";
  }
  s += "\n" + pad + "  ]\n" + pad + "}";
  return s;
}

void DistributedReport::print(FILE *out) const {
  std::fprintf(out,
               "\nMPI: %d ranks, %lld cells, %lld epochs, mean imbalance "
               "%.1f%% (threshold %.0f%%), %zu repartitions, %.3g MB moved\n",
               ranks, (long long)cells, (long long)totalEpochs,
               100 * meanImbalance(), 100 * threshold, repartitions.size(),
               bytesMoved / 1e6);
  std::fprintf(out, "%-5s %-12s %10s %14s %10s %10s %10s %10s\n", "rank",
               "host", "cells", "cell-steps/s", "busy (s)", "wait (s)",
               "output (s)", "sent (MB)");
  for (const std::string &l : rankLines)
    std::fprintf(out, "%s\n", l.c_str());
}

//===----------------------------------------------------------------------===//
// DistributedSimulation
//===----------------------------------------------------------------------===//

DistributedSimulation::DistributedSimulation(MPI_Comm comm,
                                             const ModelHandle &model,
                                             int64_t cells,
                                             const SimulationOptions &local,
                                             const DistributedOptions &options)
    : comm_(comm), model_(model), cells_(cells), localOptions_(local),
      options_(options), params_(model.desc()),
      parameters_(std::make_unique<RankParameters>(*this)),
      biomarkers_(std::make_unique<RankBiomarkers>(*this)),
      outputs_(std::make_unique<RankOutputs>(*this)),
      figures_(std::make_unique<RankFigures>(*this)) {
  MPI_Comm_rank(comm, &rank_);
  MPI_Comm_size(comm, &size_);
  const easyml_model_desc &d = model.desc();
  counters_.assign(d.num_counters, 0);
  std::vector<double> shares = options.shares;
  if (shares.empty())
    shares.assign(size_, 1.0);
  if (static_cast<int>(shares.size()) != size_) {
    setupError_ = "--lb-shares across ranks: " +
                  std::to_string(shares.size()) + " shares for " +
                  std::to_string(size_) + " ranks";
    shares.assign(size_, 1.0);
  }
  ranges_ = keepCellZero(splitCells(cells, shares, kCellAlignment),
                         kCellAlignment);
  if (!options.counts.empty()) {
    int64_t total = 0;
    for (int64_t c : options.counts)
      total += c;
    if (static_cast<int>(options.counts.size()) != size_ || total != cells)
      setupError_ = std::to_string(options.counts.size()) +
                    " cell counts summing to " + std::to_string(total) +
                    " for " + std::to_string(size_) + " ranks and " +
                    std::to_string(cells) + " cells";
    int64_t begin = 0;
    for (int r = 0; setupError_.empty() && r < size_; ++r) {
      ranges_[r] = {begin, begin + options.counts[r]};
      begin += options.counts[r];
    }
  }
  balancer_ =
      std::make_unique<Balancer>(cells, kCellAlignment, options.balance);
  balancer_->reset(ranges_);
  settleSteps_ = std::max<int64_t>(1, options.probeSteps);
  if (!owned().empty() && setupError_.empty()) {
    local_ = std::make_unique<Simulation>(model, owned().size(), local);
    setupError_ = local_->valid().message();
  }
  report_.ranks = size_;
  report_.cells = cells;
  report_.threshold = options.balance.threshold;
}

DistributedSimulation::~DistributedSimulation() = default;

Status DistributedSimulation::valid() {
  std::string mine = setupError_;
  if (!rt::agree(comm_, mine.empty(), mine))
    return Status::failed(mine);
  return Status();
}

bool DistributedSimulation::failWith(const std::string &error) {
  if (failure_.empty())
    failure_ = error;
  return false;
}

bool DistributedSimulation::initialize(double dt) {
  dt_ = dt;
  std::string mine;
  bool ok = true;
  if (local_) {
    local_->setParamSet(params_);
    if (!local_->initialize(dt)) {
      mine = local_->failure();
      ok = false;
    }
  }
  if (!rt::agree(comm_, ok, mine))
    return failWith(mine);
  // Table warnings are the same on every rank: rank 0 says them.
  if (rank_ == 0 && local_)
    tableWarnings_ = local_->figures().tableWarnings();
  initialized_ = true;
  step_ = 0;
  clock_ = RunClock{};
  return true;
}

void DistributedSimulation::addStimulus(const Stimulus &stimulus) {
  timeline_.addStimulus(stimulus);
  if (local_)
    local_->addStimulus(stimulus);
}

Status DistributedSimulation::applyRecording(Simulation &sim, CellRange range) {
  if (!timeline_.recording())
    return Status();
  CellRange part = recording_.cells.intersect(range);
  if (part.empty()) {
    sim.stopRecording();
    return Status();
  }
  PartSampleFn fn = recording_.fn;
  return sim.record(recording_.variables,
                    CellRange{part.begin - range.begin, part.end - range.begin},
                    timeline_.recordFirst(), timeline_.recordEvery(),
                    [fn, part](int64_t step, CellRange, const double *values) {
                      fn(step, part, values);
                    });
}

Status DistributedSimulation::record(const std::vector<std::string> &variables,
                                     CellRange cells, int64_t first,
                                     int64_t every, PartSampleFn fn) {
  if (cells.begin < 0 || cells.end > cells_ || cells.empty())
    return Status::invalid("cells [" + std::to_string(cells.begin) + ", " +
                           std::to_string(cells.end) +
                           ") to record are outside [0, " +
                           std::to_string(cells_) + ")");
  timeline_.setRecording(first, every);
  recording_.variables = variables;
  recording_.cells = cells;
  recording_.fn = std::move(fn);
  if (!local_)
    return Status();
  // A rank holding none of the cells still checks the names.
  if (recording_.cells.intersect(owned()).empty()) {
    if (Status names =
            local_->record(variables, CellRange{0, 1}, first, every,
                           [](int64_t, CellRange, const double *) {});
        !names.ok())
      return names;
    local_->stopRecording();
    return Status();
  }
  return applyRecording(*local_, owned());
}

void DistributedSimulation::stopRecording() {
  timeline_.stopRecording();
  if (local_)
    local_->stopRecording();
}

int DistributedSimulation::addEvent(int64_t step, EventFn fn, int64_t every) {
  return timeline_.addEvent(
      step,
      [this, fn](int64_t s, std::string &error) { return fn(*this, s, error); },
      every);
}

void DistributedSimulation::onSync(
    std::function<bool(int64_t, std::string &)> fn) {
  epochFns_.push_back(std::move(fn));
}

void DistributedSimulation::onProgress(std::function<void(int64_t)> fn) {
  progress_ = std::move(fn);
}

Status
DistributedSimulation::enableBiomarkers(const BiomarkerOptions &options) {
  Status all = agree(local_ ? local_->biomarkers().enable(options) : Status());
  if (!all.ok()) {
    // Every rank reports the same problem: no rank prefix.
    const std::string &m = all.message();
    size_t colon = m.find(": ");
    return Status::error(all.kind(),
                         colon == std::string::npos ? m : m.substr(colon + 2));
  }
  bioOn_ = true;
  bioOptions_ = options;
  return Status();
}

void DistributedSimulation::drainBiomarkers() {
  if (!bioOn_ || !local_)
    return;
  const BiomarkerTable &t = local_->biomarkers().table();
  if (!t.rows())
    return;
  size_t base = bio_.values.size();
  bio_.values.insert(bio_.values.end(), t.values.begin(), t.values.end());
  for (size_t i = base; i < bio_.values.size(); i += kBioNumColumns)
    bio_.values[i + kBioCell] += static_cast<double>(owned().begin);
  local_->biomarkers().clear();
}

bool DistributedSimulation::closeBeat() {
  std::string mine;
  bool ok = true;
  if (local_) {
    ok = local_->biomarkers().closeBeat();
    if (!ok)
      mine = local_->failure().empty() ? "closing the beat failed"
                                       : local_->failure();
    else
      clock_ = local_->transfer().clock();
  }
  if (!rt::agree(comm_, ok, mine))
    return failWith(mine);
  drainBiomarkers();
  return true;
}

double DistributedSimulation::rankComputeSeconds() const {
  return retiredCompute_ +
         (local_ ? const_cast<Simulation &>(*local_).figures().computeSeconds()
                 : 0);
}

void DistributedSimulation::retireLocal() {
  if (!local_)
    return;
  drainBiomarkers();
  std::vector<int64_t> c = local_->figures().counters();
  for (size_t i = 0; i < c.size() && i < counters_.size(); ++i)
    counters_[i] += c[i];
  retiredCompute_ += local_->figures().computeSeconds();
  addDeviceReports(devices_, local_->report().devices);
}

std::unique_ptr<Simulation> DistributedSimulation::build(CellRange range,
                                                         const RunClock &clock,
                                                         std::string &error) {
  SimulationOptions o = localOptions_;
  if (local_)
    o.speeds = local_->figures().speeds();
  auto sim = std::make_unique<Simulation>(model_, range.size(), o);
  if (Status valid = sim->valid(); !valid.ok())
    return error = valid.message(), nullptr;
  sim->setParamSet(params_);
  std::vector<double> fill(range.size(), 0.0);
  for (const std::string &name : perCellNames_)
    if (Status set = sim->parameters().setPerCell(name, fill.data()); !set.ok())
      return error = set.message(), nullptr;
  sim->initialize(dt_);
  if (!sim->failure().empty()) {
    error = sim->failure();
    return nullptr;
  }
  if (Status bio = bioOn_ ? sim->biomarkers().enable(bioOptions_) : Status();
      !bio.ok())
    return error = bio.message(), nullptr;
  for (const Stimulus &s : timeline_.stimuli())
    sim->addStimulus(s);
  sim->transfer().setClock(clock);
  if (Status rec = applyRecording(*sim, range); !rec.ok())
    return error = rec.message(), nullptr;
  return sim;
}

bool DistributedSimulation::migrate(const std::vector<CellRange> &next,
                                    double imbalance) {
  struct Timer {
    double t0, &sum;
    ~Timer() { sum += now() - t0; }
  } timer{now(), migrateSeconds_};
  // Every rank packs the same number of doubles per cell.
  long long mineK = local_ ? local_->transfer().packedCellSize() : 0, k = 0;
  MPI_Allreduce(&mineK, &k, 1, MPI_LONG_LONG, MPI_MAX, comm_);
  CellRange old = owned(), nw = next[rank_];
  std::vector<double> send(static_cast<size_t>(old.size() * k));
  std::string mine;
  bool ok =
      !local_ || local_->transfer().pack(CellRange{0, old.size()}, send.data());
  if (!ok)
    mine = local_->failure();
  if (!rt::agree(comm_, ok, mine))
    return failWith(mine);
  std::vector<int> sc(size_), sd(size_), rc(size_), rd(size_);
  int so = 0, ro = 0;
  for (int r = 0; r < size_; ++r) {
    sc[r] = static_cast<int>(old.intersect(next[r]).size());
    sd[r] = so;
    so += sc[r];
    rc[r] = static_cast<int>(ranges_[r].intersect(nw).size());
    rd[r] = ro;
    ro += rc[r];
  }
  std::vector<double> recv(static_cast<size_t>(nw.size() * k));
  MPI_Datatype cell;
  MPI_Type_contiguous(static_cast<int>(std::max<long long>(k, 1)), MPI_DOUBLE,
                      &cell);
  MPI_Type_commit(&cell);
  MPI_Alltoallv(send.data(), sc.data(), sd.data(), cell, recv.data(),
                rc.data(), rd.data(), cell, comm_);
  MPI_Type_free(&cell);
  double sent = 0, received = 0;
  for (int r = 0; r < size_; ++r)
    if (r != rank_) {
      sent += static_cast<double>(sc[r]) * k * 8;
      received += static_cast<double>(rc[r]) * k * 8;
    }
  bytesSent_ += sent;
  bytesReceived_ += received;
  // The clock is rank 0's (it always holds cells).
  long long c[3] = {clock_.step, clock_.beat, clock_.beatStart};
  MPI_Bcast(c, 3, MPI_LONG_LONG, 0, comm_);
  RunClock clock{c[0], c[1], c[2]};
  retireLocal();
  std::unique_ptr<Simulation> fresh;
  ok = true;
  if (!nw.empty()) {
    fresh = build(nw, clock, mine);
    ok =
        fresh && fresh->transfer().unpack(CellRange{0, nw.size()}, recv.data());
    if (fresh && !ok)
      mine = fresh->failure();
  }
  local_ = std::move(fresh);
  if (!rt::agree(comm_, ok, mine))
    return failWith(mine);
  double moved = 0;
  MPI_Allreduce(&sent, &moved, 1, MPI_DOUBLE, MPI_SUM, comm_);
  RepartitionRecord rec;
  rec.step = step_;
  rec.imbalance = imbalance;
  rec.from = ranges_;
  rec.to = next;
  rec.speeds = balancer_->speeds();
  rec.bytes = moved;
  rec.reason = "ranks' times differ";
  report_.repartitions.push_back(rec);
  report_.bytesMoved += moved;
  ranges_ = next;
  balancer_->adopt(next);
  // A move costs the slowest rank `cost` seconds (its simulation is
  // rebuilt: tables, initial waves): judge the next split over a window
  // ten times as long, so balancing never costs more than a tenth.
  double took = now() - timer.t0, cost = 0;
  MPI_Allreduce(&took, &cost, 1, MPI_DOUBLE, MPI_MAX, comm_);
  balancer_->setMinWindowSeconds(
      std::max(options_.balance.minWindowSeconds, 10 * cost));
  return true;
}

bool DistributedSimulation::run(int64_t until) {
  if (!failure_.empty())
    return false;
  if (!initialized_)
    return failWith("initialize() must come before run()");
  double wall0 = now();
  constexpr int64_t kMaxSettleFactor = 64;
  while (step_ < until) {
    std::string mine;
    bool ok = timeline_.fireDue(step_, mine);
    // Stimulus edges are the local simulations' business.
    int64_t end = timeline_.nextStop(step_, until, /*stimulusEdges=*/false);
    // One rank has nothing to balance: epochs end only at events.
    if (size_ > 1)
      end = std::min(end, step_ + settleSteps_);
    if (options_.maxEpochSteps > 0)
      end = std::min(end, step_ + options_.maxEpochSteps);
    if (timeline_.recording()) {
      // At most 64 MiB of samples per rank and epoch (the same cap on
      // every rank: from the whole recorded range).
      int64_t per = static_cast<int64_t>(recording_.variables.size()) *
                    recording_.cells.size();
      timeline_.samplesIn(step_, end,
                          std::max<int64_t>(1, (int64_t(64) << 20) / 8 / per));
    }
    // Compute.
    double t0 = now(), seconds = 0;
    int kind = 0; // 0 ok, 1 failure, 2 non-finite
    int64_t badStep = -1;
    NonFinite bad;
    if (ok && local_) {
      ok = local_->run(end);
      seconds = now() - t0;
      if (!ok) {
        if (const NonFinite *nf = local_->nonFinite()) {
          bad = *nf;
          bad.cell += owned().begin;
          mine = "simulation produced a non-finite value: " + bad.message();
          kind = 2;
          badStep = bad.step;
        } else {
          mine = local_->failure().empty() ? "an event stopped the run"
                                           : local_->failure();
        }
      } else {
        clock_ = local_->transfer().clock();
      }
      if (options_.slowRank == rank_ && options_.slowFactor > 1) {
        double extra = seconds * (options_.slowFactor - 1);
        std::this_thread::sleep_for(std::chrono::duration<double>(extra));
        seconds += extra;
      }
    }
    if (!ok && kind == 0)
      kind = 1;
    runSeconds_ += seconds;
    double cellSteps = ok ? static_cast<double>(owned().size()) * (end - step_)
                          : 0;
    cellSteps_ += cellSteps;
    // One exchange of a few numbers per rank.
    double t1 = now();
    // The balancer weighs the rank's whole work since the last epoch.
    double status[4] = {seconds + workSeconds_, cellSteps,
                        static_cast<double>(kind),
                        static_cast<double>(badStep)};
    workSeconds_ = 0;
    std::vector<double> all(4 * size_);
    MPI_Allgather(status, 4, MPI_DOUBLE, all.data(), 4, MPI_DOUBLE, comm_);
    syncSeconds_ += now() - t1;
    int failed = -1;
    for (int r = 0; r < size_; ++r) {
      if (all[4 * r + 2] == 0)
        continue;
      // The earliest non-finite value wins; else the lowest rank.
      if (failed < 0 ||
          (all[4 * r + 2] == 2 && all[4 * failed + 2] == 2 &&
           all[4 * r + 3] < all[4 * failed + 3]))
        failed = r;
    }
    if (failed >= 0) {
      std::string msg = broadcast(comm_, failed, mine);
      failedRank_ = failed;
      if (all[4 * failed + 2] == 2)
        nonFinite_ = broadcastNonFinite(comm_, failed, bad);
      failure_ = "rank " + std::to_string(failed) + ": " + msg;
      wallSeconds_ += now() - wall0;
      return false;
    }
    EpochRecord rec;
    rec.step0 = step_;
    rec.nsteps = end - step_;
    std::vector<double> secs(size_);
    for (int r = 0; r < size_; ++r) {
      secs[r] = all[4 * r];
      rec.cells.push_back(ranges_[r].size());
      rec.seconds.push_back(secs[r]);
    }
    step_ = end;
    drainBiomarkers();
    // Collective output of the epoch.
    std::string err;
    if (!syncOutputs(err)) {
      wallSeconds_ += now() - wall0;
      return failWith(err);
    }
    // The same decision on every rank: the same numbers went in.
    Balancer::Decision d = balancer_->observe(secs, rec.nsteps);
    rec.imbalance = d.imbalance;
    std::vector<CellRange> next =
        d.repartition ? keepCellZero(d.ranges, kCellAlignment) : ranges_;
    if (d.repartition && options_.keepEveryRank) {
      next = keepEveryRankHolding(next, kCellAlignment);
      d.repartition = next != ranges_ &&
                      std::none_of(next.begin(), next.end(),
                                   [](CellRange r) { return r.empty(); });
    }
    if (d.judged) {
      if (d.repartition) {
        rec.repartition = true;
        if (!migrate(next, d.windowImbalance)) {
          wallSeconds_ += now() - wall0;
          return false;
        }
        settling_ = true;
        settleSteps_ = std::max<int64_t>(1, options_.probeSteps);
      } else if (settling_) {
        settleSteps_ = std::min(settleSteps_ * 2,
                                std::max<int64_t>(1, options_.probeSteps) *
                                    kMaxSettleFactor);
      }
    }
    if (report_.epochs.size() < 20000)
      report_.epochs.push_back(rec);
    ++report_.totalEpochs;
    report_.steps += rec.nsteps;
    if (progress_ && rank_ == 0)
      progress_(step_);
  }
  wallSeconds_ += now() - wall0;
  return true;
}

std::vector<int64_t> DistributedSimulation::counters() {
  std::vector<long long> mine(counters_.begin(), counters_.end());
  if (local_) {
    std::vector<int64_t> c = local_->figures().counters();
    for (size_t i = 0; i < c.size() && i < mine.size(); ++i)
      mine[i] += c[i];
  }
  std::vector<long long> sum(mine.size());
  MPI_Allreduce(mine.data(), sum.data(), static_cast<int>(mine.size()),
                MPI_LONG_LONG, MPI_SUM, comm_);
  return std::vector<int64_t>(sum.begin(), sum.end());
}

double DistributedSimulation::adaptiveSteps() {
  // Every rank holds cells of the same model: all -1 or none.
  double mine = local_ ? std::max(0.0, local_->figures().adaptiveSteps()) : 0.0;
  double sum = 0;
  MPI_Allreduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, comm_);
  return adaptiveRows(desc()).empty() ? -1 : sum;
}

DistributedReport DistributedSimulation::report() {
  // This rank's devices: the retired simulations' and the current one's.
  std::vector<DeviceReport> devices = devices_;
  if (local_)
    addDeviceReports(devices, local_->report().devices);
  char host[256] = "?";
  gethostname(host, sizeof host - 1);
  host[sizeof host - 1] = 0;
  double rate = runSeconds_ > 0 ? cellSteps_ / runSeconds_ : 0;
  char buf[1024];
  std::snprintf(buf, sizeof buf,
                "{\"rank\": %d, \"host\": \"%s\", \"cells\": %lld, "
                "\"cell_steps\": %.0f, \"compute_seconds\": %.6f, "
                "\"cell_steps_per_second\": %.6e, \"wait_seconds\": %.6f, "
                "\"output_seconds\": %.6f, \"output_bytes\": %.0f, "
                "\"bytes_sent\": %.0f, \"bytes_received\": %.0f, "
                "\"migrate_seconds\": %.6f, \"devices\": [",
                rank_, jsonEscape(host).c_str(), (long long)owned().size(),
                cellSteps_, runSeconds_, rate, syncSeconds_, outputSeconds_,
                outputBytes_, bytesSent_, bytesReceived_, migrateSeconds_);
  std::string js = buf;
  for (size_t i = 0; i < devices.size(); ++i) {
    const DeviceReport &dr = devices[i];
    std::snprintf(buf, sizeof buf,
                  "%s{\"id\": \"%s\", \"cells\": %lld, \"cell_steps\": %.0f, "
                  "\"seconds\": %.6f, \"cell_steps_per_second\": %.6e}",
                  i ? ", " : "", jsonEscape(dr.id).c_str(),
                  (long long)dr.cells, dr.cellSteps, dr.seconds, dr.rate());
    js += buf;
  }
  js += "]}";
  std::string devs;
  for (const DeviceReport &dr : devices) {
    std::snprintf(buf, sizeof buf, "%s%s %.3g", devs.empty() ? "" : ", ",
                  dr.id.c_str(), dr.rate());
    devs += buf;
  }
  std::snprintf(buf, sizeof buf,
                "%-5d %-12.12s %10lld %14.4g %10.4f %10.4f %10.4f %10.3f  %s",
                rank_, host, (long long)owned().size(), rate, runSeconds_,
                syncSeconds_, outputSeconds_, bytesSent_ / 1e6, devs.c_str());
  DistributedReport out = report_;
  out.rankJson = gatherStrings(comm_, js);
  out.rankLines = gatherStrings(comm_, buf);
  double wall = wallSeconds_;
  MPI_Allreduce(&wall, &out.wallSeconds, 1, MPI_DOUBLE, MPI_MAX, comm_);
  return out;
}
