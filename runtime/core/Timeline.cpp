//===- Timeline.cpp - what happens when in a run --------------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/Core/Timeline.h"

#include <algorithm>
#include <climits>
#include <cmath>

using namespace easyml::rt;

Stimulus Stimulus::fromMs(double dt, double startMs, double durationMs,
                          double strength, double periodMs, int64_t count) {
  Stimulus s;
  s.start = std::llround(startMs / dt);
  s.duration = std::max<int64_t>(1, std::llround(durationMs / dt));
  s.strength = strength;
  s.period = std::llround(periodMs / dt);
  s.count = count;
  return s;
}

double Timeline::stimulusAt(int64_t s) const {
  double total = 0;
  for (const Stimulus &st : stimuli_) {
    if (st.count <= 0 || s < st.start)
      continue;
    int64_t period = st.period > 0 ? st.period : 0;
    int64_t last =
        period ? std::min<int64_t>((s - st.start) / period, st.count - 1) : 0;
    for (int64_t k = last; k >= 0; --k) {
      int64_t on = st.start + k * period;
      if (s < on + st.duration) {
        if (s >= on) {
          total += st.strength;
          break;
        }
      } else {
        break; // earlier pulses ended earlier still
      }
      if (!period)
        break;
    }
  }
  return total;
}

int64_t Timeline::nextStimulusEdge(int64_t s) const {
  int64_t best = INT64_MAX;
  for (const Stimulus &st : stimuli_) {
    if (st.count <= 0)
      continue;
    int64_t period = st.period > 0 ? st.period : 0;
    int64_t k0 = 0;
    if (period && s > st.start)
      k0 = std::max<int64_t>(0, (s - st.start - st.duration) / period);
    for (int64_t k = k0; k < st.count; ++k) {
      int64_t on = st.start + k * period, off = on + st.duration;
      if (on > s) {
        best = std::min(best, on);
        break;
      }
      if (off > s)
        best = std::min(best, off);
      if (!period)
        break;
    }
  }
  return best;
}

bool Timeline::stimulusStartsAt(int64_t s) const {
  for (const Stimulus &st : stimuli_) {
    if (st.count <= 0 || s < st.start)
      continue;
    if (st.period <= 0) {
      if (s == st.start)
        return true;
      continue;
    }
    if ((s - st.start) % st.period == 0 &&
        (s - st.start) / st.period < st.count)
      return true;
  }
  return false;
}

int Timeline::addEvent(int64_t step, EventFn fn, int64_t every) {
  int id = nextId_++;
  events_.push_back({id, step, every, std::move(fn), true});
  return id;
}

void Timeline::removeEvent(int id) {
  for (Event &e : events_)
    if (e.id == id)
      e.alive = false;
}

bool Timeline::fireDue(int64_t step, std::string &error) {
  // By index: a callback may add events (and so reallocate the list).
  for (size_t e = 0; e < events_.size(); ++e) {
    Event &ev = events_[e];
    if (!ev.alive || ev.step > step)
      continue;
    EventFn fn = ev.fn;
    if (ev.every > 0)
      while (ev.step <= step)
        ev.step += ev.every;
    else
      ev.alive = false;
    if (!fn(step, error))
      return false;
  }
  return true;
}

int64_t Timeline::nextEvent(int64_t step) const {
  int64_t best = INT64_MAX;
  for (const Event &ev : events_)
    if (ev.alive && ev.step > step)
      best = std::min(best, ev.step);
  return best;
}

void Timeline::setRecording(int64_t first, int64_t every) {
  recording_ = true;
  first_ = first;
  every_ = std::max<int64_t>(1, every);
}

Timeline::Samples Timeline::samplesIn(int64_t step, int64_t &end,
                                      int64_t capacity) const {
  Samples s;
  if (!recording_)
    return s;
  // The first sample at or after this step.
  s.first = first_;
  if (step > first_)
    s.first = first_ + (step - first_ + every_ - 1) / every_ * every_;
  if (s.first < end)
    s.count = (end - 1 - s.first) / every_ + 1;
  if (s.count > capacity) {
    s.count = capacity;
    end = s.first + s.count * every_;
  }
  return s;
}

int64_t Timeline::nextStop(int64_t step, int64_t until,
                           bool stimulusEdges) const {
  int64_t end = std::min(until, nextEvent(step));
  if (stimulusEdges)
    end = std::min(end, nextStimulusEdge(step));
  return end;
}
