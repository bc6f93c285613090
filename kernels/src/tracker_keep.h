// What the pairing does with a track's candidates, wherever they were found (the
// host's grid, tracker_pairing.cpp, or a device, tracker_found.cpp): cut them to the
// cheapest and note each track's and each component's cheapest pair. Included by
// those two files only (see the top of tracker_state.h on inline members).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "tracker_state.h"

namespace ccl::tracking {

// a when c holds, else b, without a branch: the selections below go either way as
// often, which the processor cannot predict.
template <typename T>
inline T pick(bool c, T a, T b) {
  using U = std::make_unsigned_t<T>;
  return T(U(b) ^ ((U(a) ^ U(b)) & (U(0) - U(c))));
}

inline double pick(bool c, double a, double b) {
  uint64_t ua, ub;
  std::memcpy(&ua, &a, 8);
  std::memcpy(&ub, &b, 8);
  const uint64_t r = pick(c, ua, ub);
  double d;
  std::memcpy(&d, &r, 8);
  return d;
}

}  // namespace ccl::tracking

namespace ccl {

using namespace tracking;

// Whether pair a of a track comes after its pair b (the order of before_in_track),
// computed without branches.
inline bool Tracker::Impl::after_in_track(const Candidate& a, const Candidate& b) {
  return (a.cost > b.cost) | ((a.cost == b.cost) & (a.label > b.label));
}

// In a crowd (noise around a blob covering the frame) a gate can meet hundreds of
// components; only its cheapest few can matter, and keeping more would make the
// matching quadratic. Which few is all that matters here: their order is only
// restored (restore_order) where it can change a swap. Returns the new end.
inline size_t Tracker::Impl::keep_cheapest(Candidate* p, size_t first, size_t end) {
  if (end - first > 3 * kMaxPairsPerTrack) {
    std::nth_element(p + first, p + first + kMaxPairsPerTrack, p + end,
                     [](const Candidate& a, const Candidate& b) { return after_in_track(b, a); });
    return first + kMaxPairsPerTrack;
  }
  while (end - first > kMaxPairsPerTrack) {
    // The worst, unique in this total order, found as the worse of the worst of the
    // even and of the odd places: each comparison waits on the one before it in its
    // half only, and the worst so far is held, not looked up again.
    struct Worst {
      size_t at;
      Candidate c;
      void see(size_t q, const Candidate& x) {
        const bool worse = after_in_track(x, c);
        at = pick(worse, q, at);
        c.cost = pick(worse, x.cost, c.cost);
        c.label = pick(worse, x.label, c.label);
      }
    };
    Worst even{first, p[first]}, odd{first + 1, p[first + 1]};
    size_t q = first + 2;
    for (; q + 1 < end; q += 2) {
      even.see(q, p[q]);
      odd.see(q + 1, p[q + 1]);
    }
    if (q < end) even.see(q, p[q]);
    const size_t worst = after_in_track(odd.c, even.c) ? odd.at : even.at;
    p[worst] = p[--end];
  }
  return end;
}

// Appends track s's pairs list[0, count) to pairs, updating each component's
// cheapest pair so far; returns track s's cheapest.
inline Tracker::Impl::Best Tracker::Impl::note_bests(size_t s, const Candidate* list,
                                                     size_t count) {
  const uint64_t id = tracks[s].id;
  size_t best = 0;
  pair_first[s] = int32_t(npairs);
  for (size_t c = 0; c < count; ++c) {
    const Candidate& cd = list[c];
    best = pick(after_in_track(list[best], cd), c, best);
    const int32_t p = int32_t(npairs++);
    pairs[size_t(p)] = {cd.cost, int32_t(s), cd.det};
    DetBest& b = det_best[size_t(cd.det)];
    // Between pairs of one component the order is cost, then track id.
    const bool take = (b.pair < 0) | (cd.cost < b.cost) | ((cd.cost == b.cost) & (id < b.id));
    b.cost = pick(take, cd.cost, b.cost);
    b.id = pick(take, id, b.id);
    b.pair = pick(take, p, b.pair);
  }
  pair_end[s] = int32_t(npairs);
  return {pair_first[s] + int32_t(best), list[best].det, list[best].cost};
}

}  // namespace ccl
