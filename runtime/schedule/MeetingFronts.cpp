//===- MeetingFronts.cpp - two devices computing toward each other --------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/Schedule/MeetingFronts.h"

#include <algorithm>

using namespace easyml::rt;

MeetingFronts::MeetingFronts(CellRange cells, int64_t lowerAlign,
                             int64_t upperAlign, double lowerPart,
                             bool partKnown, int64_t minChunk)
    : lo_(cells.begin), hi_(cells.end),
      lowerPart_(std::clamp(lowerPart, 0.0, 1.0)), known_(partKnown) {
  align_[0] = std::max<int64_t>(1, lowerAlign);
  align_[1] = std::max<int64_t>(1, upperAlign);
  for (int k = 0; k < 2; ++k) {
    int64_t a = align_[k];
    minChunk_[k] = std::min((std::max<int64_t>(1, minChunk) + a - 1) / a * a,
                            std::max(a, cells.size() / 16 / a * a));
  }
}

double MeetingFronts::partOf(bool lower) const {
  int k = lower ? 0 : 1;
  if (cells_[0] > 0 && cells_[1] > 0 && seconds_[0] > 0 && seconds_[1] > 0) {
    double mine = cells_[k] / seconds_[k];
    double theirs = cells_[1 - k] / seconds_[1 - k];
    return mine / (mine + theirs);
  }
  return lower ? lowerPart_ : 1 - lowerPart_;
}

bool MeetingFronts::worthTaking(int k, int64_t chunk, double now) const {
  if (declined_[1 - k])
    return true;
  if (cells_[0] == 0 || cells_[1] == 0 || seconds_[0] <= 0 || seconds_[1] <= 0)
    return true;
  double mine = cells_[k] / seconds_[k];
  double theirs = cells_[1 - k] / seconds_[1 - k];
  // What the other device still has to compute of its chunk in hand.
  double busy = std::max(0.0, static_cast<double>(inHand_[1 - k]) -
                                  (now - since_[1 - k]) * theirs);
  double left = static_cast<double>(hi_ - lo_);
  return chunk / mine < (left + busy) / theirs;
}

CellRange MeetingFronts::take(bool lower, double now) {
  std::lock_guard<std::mutex> lock(mutex_);
  int k = lower ? 0 : 1;
  int64_t left = hi_ - lo_;
  if (left <= 0 || declined_[k])
    return {};
  // Until a device has a chunk measured its first is from the guess or
  // the last wave: half as large when that was a guess.
  double divisor = known_ || cells_[k] > 0 ? kDivisor : 2 * kDivisor;
  const int64_t align = align_[k];
  int64_t n = static_cast<int64_t>(static_cast<double>(left) * partOf(lower) /
                                   divisor) /
              align * align;
  n = std::max(n, minChunk_[k]);
  // The other device has declined: no one to share the rest with.
  if (declined_[1 - k])
    n = left;
  CellRange c = lower
                    ? CellRange{lo_, std::min(hi_, lo_ + n)}
                    : CellRange{std::max(lo_, (hi_ - n) / align * align), hi_};
  if (!worthTaking(k, c.size(), now)) {
    declined_[k] = true;
    return {};
  }
  if (lower)
    lo_ = c.end;
  else
    hi_ = c.begin;
  inHand_[k] = c.size();
  since_[k] = now;
  return c;
}

void MeetingFronts::done(bool lower, int64_t cells, double seconds) {
  std::lock_guard<std::mutex> lock(mutex_);
  int k = lower ? 0 : 1;
  cells_[k] += cells;
  seconds_[k] += seconds;
}

int64_t MeetingFronts::meeting() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return lo_;
}
