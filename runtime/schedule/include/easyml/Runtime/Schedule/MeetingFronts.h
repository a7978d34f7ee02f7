//===- MeetingFronts.h - two devices computing toward each other -*- C++
//-*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// The policy of a wave two host devices share (the scheduler's shared
// waves): the lower device computes chunks of the cells from their low end
// upwards, the upper one from the high end downwards, until they meet;
// the meeting point is the next wave's split. A chunk is a quarter of the
// device's part of the cells left, never less than the device's alignment,
// so the last chunks are short and the two finish within one of each
// other (a scalar device's last chunks can be a cell or two: what one
// costs it is what the two can end apart); a
// device's part follows the two devices' speeds measured in the wave once
// both have computed a chunk (the cost of a cell may have changed since
// the last wave). Near the end a device declines a chunk the other would
// finish, with what it has in hand, before this one could: the slow device
// does not start a last chunk that keeps the fast one waiting. Only policy
// lives here: no devices, no data. Thread-safe: each device calls from its
// own thread.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_MEETINGFRONTS_H
#define EASYML_RUNTIME_MEETINGFRONTS_H

#include "easyml/Runtime/Devices/Device.h"

#include <cstdint>
#include <mutex>

namespace easyml::rt {

class MeetingFronts {
public:
  /// Over `cells` (`cells.begin` a multiple of both alignments): the lower
  /// device's chunks start on multiples of `lowerAlign`, and the upper
  /// one's, but the one that meets the lower device, on multiples of
  /// `upperAlign`. The meeting point itself can be any cell: a vector
  /// kernel computes the vector around a range's start with the lanes
  /// below it masked. `lowerPart` (0..1): the lower device's
  /// expected part of the work; `partKnown`: it comes from measured speeds
  /// (else from a guess, and the first chunks are half as large). No
  /// chunk but the last is smaller than `minChunk` (rounded up to the
  /// device's alignment: a chunk's fixed costs stay small against its
  /// work), nor than a sixteenth of the cells (down to the alignment:
  /// every device gets a chunk, and a slow one no more than it can do).
  /// With at least the two alignments' sum of cells, the first chunk of
  /// each device (taken lower, then upper) is never empty.
  MeetingFronts(CellRange cells, int64_t lowerAlign, int64_t upperAlign,
                double lowerPart, bool partKnown, int64_t minChunk = 1);
  /// The form with one alignment for both devices is gone: a call in that
  /// form would otherwise still compile, its part taken as an alignment.
  MeetingFronts(CellRange cells, int64_t align, double lowerPart,
                bool partKnown, int64_t minChunk = 1) = delete;

  /// The next chunk of the lower (`lower`) or upper device, taken at time
  /// `now` (seconds, on one clock for both devices); empty once every cell
  /// is taken, or once the device has declined a chunk (with both devices'
  /// speeds measured in the wave, the other device would compute every
  /// cell left, after the rest of its chunk in hand, before this one
  /// computed the chunk). The device that declined takes no more, even
  /// if the other then slows down: the other, which never declines then,
  /// takes the rest in one chunk.
  CellRange take(bool lower, double now);
  /// The device computed `cells` cells in `seconds`.
  void done(bool lower, int64_t cells, double seconds);
  /// Where the devices met: the split, once every cell is taken.
  int64_t meeting() const;

  /// A chunk is the device's part of the cells left divided by this: a
  /// part misjudged by up to this factor still leaves the other device
  /// chunks to compute meanwhile.
  static constexpr double kDivisor = 4;

private:
  double partOf(bool lower) const;
  bool worthTaking(int k, int64_t chunk, double now) const;
  mutable std::mutex mutex_;
  int64_t lo_, hi_;
  /// Per device (lower, upper): its alignment and smallest chunk.
  int64_t align_[2], minChunk_[2];
  double lowerPart_;
  bool known_;
  /// Per device (lower, upper): cells computed and their seconds.
  int64_t cells_[2] = {0, 0};
  double seconds_[2] = {0, 0};
  /// Per device: the size and start time of its last chunk, and whether it
  /// has declined one (it is done with the wave).
  int64_t inHand_[2] = {0, 0};
  double since_[2] = {0, 0};
  bool declined_[2] = {false, false};
};

} // namespace easyml::rt

#endif // EASYML_RUNTIME_MEETINGFRONTS_H
