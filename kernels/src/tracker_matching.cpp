// Matching: the pairs are matched one to one, cheapest first (pairs that are each
// other's best go at once; only the contested rest is sorted); then matches that are
// cheaper swapped crosswise are swapped.
#include "tracker_state.h"

#include <algorithm>

namespace ccl {

using namespace tracking;

// Greedy one-to-one matching, cheapest first. A pair that is the best of both its
// track and its component is taken by the greedy order whatever happens before it,
// so those go at once and only the rest is sorted.
void Tracker::Impl::match_one_to_one() {
  linked = 0;
  unmatched.clear();
  for (size_t k = 0; k < searching.size(); ++k) {
    const int32_t s = searching[k];
    const Best& best = searching_best[k];
    if (det_best[size_t(best.det)].pair == best.pair) {
      link(s, best.det, best.cost);
      ++linked;
    } else {
      unmatched.push_back(s);
    }
  }
  group_pairs.clear();
  for (int32_t s : unmatched)
    for (int32_t i = pair_first[size_t(s)]; i < pair_end[size_t(s)]; ++i)
      if (det_track[size_t(pairs[size_t(i)].det)] < 0) group_pairs.push_back(pairs[size_t(i)]);
  std::sort(group_pairs.begin(), group_pairs.end(),
            [&](const Pair& a, const Pair& b) { return before(a, b); });
  for (const Pair& p : group_pairs)
    if (match[size_t(p.track)] < 0 && det_track[size_t(p.det)] < 0) {
      link(p.track, p.det, p.cost);
      ++linked;
    }
  // From here on `unmatched` lists the searching tracks without a match.
  unmatched.erase(std::remove_if(unmatched.begin(), unmatched.end(),
                                 [&](int32_t s) { return match[size_t(s)] >= 0; }),
                  unmatched.end());
}

// The cost of pairing track s with component d, or a negative value when the two
// are no pair.
inline double Tracker::Impl::cost_of(int32_t s, int32_t d) const {
  for (int32_t p = pair_first[size_t(s)]; p < pair_end[size_t(s)]; ++p)
    if (pairs[size_t(p)].det == d) return pairs[size_t(p)].cost;
  return -1.0;
}

// Whether the pair p would swap its track's match with that of its component's.
inline bool Tracker::Impl::crosses(const Pair& p, double* c12) const {
  const int32_t t2 = p.track, d1 = p.det;
  const int32_t t1 = det_track[size_t(d1)];
  const int32_t d2 = match[size_t(t2)];
  if (t1 < 0 || t1 == t2 || d2 < 0) return false;
  // Costs are not negative: no swap can pay unless this pair alone is cheaper
  // than the two matches together (which spares looking up the crossed pair).
  const double now = match_cost[size_t(t1)] + match_cost[size_t(t2)];
  if (p.cost >= now) return false;
  *c12 = cost_of(t1, d2);
  return !(*c12 < 0 || p.cost + *c12 >= now - 1e-9);
}

inline bool Tracker::Impl::block_crosses(int32_t s) const {
  double c12;
  for (int32_t p = pair_first[size_t(s)]; p < pair_end[size_t(s)]; ++p)
    if (crosses(pairs[size_t(p)], &c12)) return true;
  return false;
}

// Whether some pair of track s may cross: crosses() needs track s matched and a pair
// with another track's component cheaper than the two matches together, and this
// tests that alone, the other match's cost read from one array (det_cost) rather
// than through det_track. A track none of whose pairs pass cannot swap, since its
// state does not change before a swap: nearly every track is passed over at this.
inline bool Tracker::Impl::may_cross(int32_t s) const {
  const int32_t mine = match[size_t(s)];
  if (mine < 0) return false;
  const double own = match_cost[size_t(s)];
  const Pair* p = pairs.data() + pair_first[size_t(s)];
  const Pair* const end = pairs.data() + pair_end[size_t(s)];
  bool any = false;
  for (; p != end; ++p) any |= (p->det != mine) & (p->cost < det_cost[size_t(p->det)] + own);
  return any;
}

// Cheapest-first matching can pair two neighbours crosswise when their predictions
// both lean the same way (objects turning side by side). Two matches whose tracks
// would both be cheaper swapped are swapped; a pass over the pairs, twice.
void Tracker::Impl::swap_crossed_matches() {
  for (int pass = 0; pass < 2; ++pass) {
    bool swapped = false;
    for (int32_t s : searching) {
      if (!may_cross(s)) continue;
      // Until a swap, the order of a track's pairs changes nothing; from one on it
      // does, and a cut track's pairs must be back in their first order.
      if (has(size_t(s), kTruncated)) {
        if (!block_crosses(s)) continue;
        restore_order(s);  // tracker_pairing.cpp
      }
      for (int32_t i = pair_first[size_t(s)]; i < pair_end[size_t(s)]; ++i) {
        const Pair p = pairs[size_t(i)];
        double c12;
        if (!crosses(p, &c12)) continue;
        const int32_t t1 = det_track[size_t(p.det)], d2 = match[size_t(s)];
        link(s, p.det, p.cost);
        link(t1, d2, c12);
        swapped = true;
      }
    }
    if (!swapped) break;
  }
}

}  // namespace ccl
