//===- Timeline.h - what happens when in a run ------------------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// The schedule of a run in integer steps: stimulus trains (and the beats
// their onsets start), events with their callbacks, and the steps at which
// samples are recorded. A run loop asks it for the stimulus of a step, the
// events due, and the next step at which something changes; every run loop
// of the runtime (one process, across ranks) uses this one.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_TIMELINE_H
#define EASYML_RUNTIME_TIMELINE_H

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace easyml {
namespace rt {

/// A stimulus train in steps: strength (uA/cm^2, positive depolarises: Vm
/// += strength*dt) on steps [start + k*period, + duration) for k < count.
struct Stimulus {
  int64_t start = 0, duration = 1;
  double strength = 0;
  int64_t period = 0;
  int64_t count = 1;
  /// The same train given in ms, rounded to steps of `dt` as openCARP's
  /// bench does (the duration is at least one step).
  static Stimulus fromMs(double dt, double startMs, double durationMs,
                         double strength, double periodMs = 0,
                         int64_t count = 1);
};

class Timeline {
public:
  /// An event's callback: false (with `error`, possibly empty) stops the
  /// run.
  using EventFn = std::function<bool(int64_t step, std::string &error)>;

  //===--- Stimuli ----------------------------------------------------===//
  void addStimulus(const Stimulus &s) { stimuli_.push_back(s); }
  void clearStimuli() { stimuli_.clear(); }
  const std::vector<Stimulus> &stimuli() const { return stimuli_; }
  /// The summed strength of the trains that are on at `step`.
  double stimulusAt(int64_t step) const;
  /// The first step after `step` at which a train switches on or off
  /// (INT64_MAX when none does).
  int64_t nextStimulusEdge(int64_t step) const;
  /// Whether a pulse starts at `step` (a beat starts there).
  bool stimulusStartsAt(int64_t step) const;

  //===--- Events -----------------------------------------------------===//
  /// `fn` at `step`, then every `every` steps when every > 0. Returns its
  /// id.
  int addEvent(int64_t step, EventFn fn, int64_t every = 0);
  void removeEvent(int id);
  /// Calls, in the order they were added, the events due at `step` (an
  /// event may add others). False when one stopped the run, with its
  /// message in `error`.
  bool fireDue(int64_t step, std::string &error);
  /// The first step after `step` at which an event is due (INT64_MAX when
  /// none is).
  int64_t nextEvent(int64_t step) const;

  //===--- Recording --------------------------------------------------===//
  /// Samples at steps first + k*every.
  void setRecording(int64_t first, int64_t every);
  void stopRecording() { recording_ = false; }
  bool recording() const { return recording_; }
  int64_t recordFirst() const { return first_; }
  int64_t recordEvery() const { return every_; }
  /// The samples a wave [step, end) takes: the first sample step and how
  /// many. At most `capacity`: `end` is brought forward to fit.
  struct Samples {
    int64_t first = 0, count = 0;
  };
  Samples samplesIn(int64_t step, int64_t &end, int64_t capacity) const;

  /// The next step, after `step` and at most `until`, at which something
  /// changes: a stimulus edge (when `stimulusEdges`) or an event.
  int64_t nextStop(int64_t step, int64_t until, bool stimulusEdges) const;

private:
  struct Event {
    int id;
    int64_t step, every;
    EventFn fn;
    bool alive;
  };
  std::vector<Stimulus> stimuli_;
  std::vector<Event> events_;
  int nextId_ = 1;
  bool recording_ = false;
  int64_t first_ = 0, every_ = 1;
};

} // namespace rt
} // namespace easyml

#endif // EASYML_RUNTIME_TIMELINE_H
