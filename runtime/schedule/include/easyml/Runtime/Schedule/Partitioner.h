//===- Partitioner.h - which device computes which cells --------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// Decides the split of the cells over the devices of a DeviceTeam and
// moves cells when it changes: the first split (given shares, remembered
// speeds or an even guess), the balancer's repartitions after measured
// waves, resource dimensioning's measuring windows over candidate device
// sets, and, under periodic pacing, splits by the speeds each device had
// at the same phase of earlier cycles. It also says how long the next wave
// may be, since short waves are how a split still being found costs
// little.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_SCHEDULE_PARTITIONER_H
#define EASYML_RUNTIME_SCHEDULE_PARTITIONER_H

#include "easyml/Runtime/Core/Timeline.h"
#include "easyml/Runtime/Schedule/Balancer.h"
#include "easyml/Runtime/Schedule/DeviceTeam.h"
#include "easyml/Runtime/Schedule/Dimensioner.h"

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace easyml::rt {

class PhaseSpeeds;

/// What decides the split (SimulationOptions' fields of the same names).
struct PartitionOptions {
  BalanceOptions balance;
  /// Initial shares per device in device order (empty: from `speeds`).
  std::vector<double> shares;
  /// Remembered speeds by device id (cell-steps/s).
  std::map<std::string, double> speeds;
  /// Waves are at most this many steps until a split is judged good.
  int64_t probeSteps = 20;
  DimensionOptions dimension;
  /// At most this many steps per wave (0: waves end only at events).
  int64_t maxWaveSteps = 0;
};

class Partitioner {
public:
  Partitioner(DeviceTeam &team, const Timeline &timeline,
              PartitionOptions options);
  ~Partitioner();

  /// The first split, on the devices given (or the first set dimensioning
  /// measures); an error when it cannot be made.
  Status start();
  const PartitionOptions &options() const { return options_; }

  /// Devices `over` failed to take their cells in a move: what the run
  /// does then (the recovery policy's choice). Without one, it fails.
  using MoveFailure = std::function<bool(
      int device, const std::vector<CellRange> &next, const std::string &why,
      const std::string &error)>;
  void onMoveFailure(MoveFailure handler) { moveFailure_ = std::move(handler); }

  /// The devices the balancer splits over (all given, or those
  /// dimensioning chose).
  const std::vector<int> &balanced() const { return balanced_; }
  /// The balanced devices not lost, with cells or not.
  std::vector<int> working() const;
  /// One device computes every cell and no measuring window may change
  /// that (a tissue may fuse its diffusion with that device's waves).
  bool settled() const;
  /// The step the current run goes to (the balancer weighs a move's cost
  /// against the steps left).
  void setRunEnd(int64_t until) { runEnd_ = until; }

  //===--- Around one wave -------------------------------------------===//
  /// Before a wave: opens dimensioning's next measuring window when due.
  void beforeWave();
  /// Where a wave from the team's step ends, at the latest at `stop`: cut
  /// for the balancer and the measuring windows.
  int64_t waveEnd(int64_t stop) const;
  /// Before the wave [step0, end): the split its phase's speeds give, when
  /// that pays. False (a failure) when moving the cells failed.
  bool splitForPhase(int64_t step0, int64_t end);
  /// Whether the next compute wave is shared by two host devices (`a`
  /// holding the lower cells): BalanceOptions::share, two balanced host
  /// devices that compute chunks, with adjacent ranges.
  bool sharedPair(int &a, int &b) const;
  /// A shared wave moved the split to where its devices met.
  void sharedWaveDone();
  /// After a measured compute wave: its record in the report, the phase
  /// speeds and the balancer's judgement (which may move cells).
  void afterWave(const WaveTask &task, double wall,
                 const std::vector<WaveTiming> &timing, bool shared);
  /// After the step the team is at now: closes a measuring window that
  /// ended; false when switching to the chosen device set failed.
  bool afterStep();
  /// Seconds a step spent outside its ionic wave (a tissue's diffusion):
  /// measuring windows count them with the wave they follow.
  void addStepSeconds(double seconds);

  //===--- Moves -----------------------------------------------------===//
  /// Moves cells so device d holds next[d], a repartition at `atStep`
  /// (-1: the team's step, or the end of the wave being judged).
  bool moveTo(const std::vector<CellRange> &next, const std::string &why,
              double imbalance, int64_t atStep = -1);
  /// The step a move now takes effect at.
  int64_t moveStep() const;
  /// Device `i` no longer counts for balancing.
  void forget(int i);
  /// A fresh balancer over the current ranges (after devices were lost).
  void restartBalancing() { resetBalancer(options_.balance); }

private:
  bool useConfig(const DeviceConfig &config, const std::string &why);
  void startWindow();
  int64_t windowLength();
  bool allMeasured() const;
  void resetBalancer(const BalanceOptions &options);
  void countHotCells();
  void learnPhase(const WaveTask &task, const std::vector<WaveTiming> &timing);
  void judge(const WaveTask &task, const std::vector<WaveTiming> &timing);
  void measureWindow(const WaveTask &task,
                     const std::vector<WaveTiming> &timing);
  void repartition(const Balancer::Decision &decision);

  DeviceTeam &team_;
  const Timeline &timeline_;
  PartitionOptions options_;
  MoveFailure moveFailure_;
  std::unique_ptr<Balancer> balancer_;
  std::unique_ptr<Dimensioner> dimensioner_;
  std::unique_ptr<PhaseSpeeds> phases_;
  std::vector<int> balanced_;
  int64_t runEnd_ = -1;
  /// The split is not yet known good: waves are capped at settleSteps_.
  bool settling_ = true;
  int64_t settleSteps_ = 20;
  /// Slowest-device seconds in the balancer's window not yet judged.
  double windowSeconds_ = 0;
  /// The step a repartition takes effect at (-1: the team's step).
  int64_t moveStep_ = -1;
  /// The wave running now was split by its phase's predicted speeds.
  bool phasePredicted_ = false;
  /// The last compute wave was shared.
  bool waveShared_ = false;
  /// Steps of a cycle window (0: windows of windowSteps; -1: not decided).
  int64_t cycleWindow_ = -1;
  struct Window {
    bool open = false;
    int64_t start = 0, end = 0, steps = 0;
    bool cycle = false, settled = false;
    int waves = 0;
    double firstCellSteps = 0, firstSeconds = 0;
    double cellSteps = 0, seconds = 0;
  } window_;
};

} // namespace easyml::rt

#endif // EASYML_RUNTIME_SCHEDULE_PARTITIONER_H
