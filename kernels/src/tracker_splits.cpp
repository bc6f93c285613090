// Splits and merges, and the tracks waiting merged in others:
//  - resolve_merges (before the pairing): which live track each merged track waits in;
//  - split (after the matching): an unmatched component inside the predicted box of a
//    matched track joins that track's group; the largest part keeps the id, or, when
//    tracks merged into it are waiting, each part goes to the track whose own motion
//    and size predict it best; the other parts start new tracks with the parent's id;
//  - merge: a track seen in the previous frame that found no component, whose
//    predicted box meets a matched component grown by about its area, merged into it;
//    the component keeps the id of the group's largest track, the others wait merged
//    in it (lost), remembering their own motion.
#include "tracker_state.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace ccl {

using namespace tracking;

// Which track each merged track waits in (chains followed to the end), as
// `waiting` (host id, waiting track) and the count per host; merged tracks whose
// host has ended wait no more and are plainly lost.
void Tracker::Impl::resolve_merges() {
  for (int32_t s : hosts) waiting_in[size_t(s)] = 0;
  hosts.clear();
  waiting.clear();
  if (merged_count == 0) return;
  for (size_t s = 0; s < tracks.size(); ++s) {
    const Track& t = tracks[s];
    if (!t.alive || t.merged_into < 0) continue;
    int32_t r = int32_t(s);
    int hops = 0;
    while (r >= 0 && tracks[size_t(r)].merged_into >= 0 && hops++ <= int(tracks.size())) {
      const int32_t host_slot = tracks[size_t(r)].merged_into;
      const Track& host = tracks[size_t(host_slot)];
      if (!host.alive || host.id != history[size_t(r)].merged_into_id) {
        r = -1;
        break;
      }
      r = host_slot;
    }
    if (r < 0) {
      set_merged_into(s, -1);
      continue;
    }
    waiting.push_back({tracks[size_t(r)].id, int32_t(s)});
    host_gains(r);
  }
}

void Tracker::Impl::split_stage() {
  // Every component matched: none can be a part.
  if (linked == dets.size()) return;
  // The parent of each unmatched component: the matched track whose predicted box
  // (grown a little) overlaps it most and that was larger than it.
  parent_of_det.assign(dets.size(), -1);
  best_overlap.assign(dets.size(), 0.0);
  for (size_t i = 0; i < npairs; ++i) {
    const Pair& p = pairs[i];
    const Track& t = tracks[size_t(p.track)];
    const Det& d = dets[size_t(p.det)];
    if (det_track[size_t(p.det)] >= 0 || match[size_t(p.track)] < 0 ||
        has(size_t(p.track), kBornNow) || d.area > t.area)
      continue;
    const double ov = overlap_area(
        grown(predicted[size_t(p.track)], std::max(2.0, 0.25 * std::max(t.w, t.h))), d.box());
    if (ov <= 0) continue;
    int32_t& cur = parent_of_det[size_t(p.det)];
    if (cur < 0 || ov > best_overlap[size_t(p.det)] ||
        (ov == best_overlap[size_t(p.det)] && t.id < tracks[size_t(cur)].id)) {
      cur = p.track;
      best_overlap[size_t(p.det)] = ov;
    }
  }
  groups.clear();
  for (size_t d = 0; d < dets.size(); ++d)
    if (parent_of_det[d] >= 0) groups.push_back({tracks[size_t(parent_of_det[d])].id, int32_t(d)});
  if (groups.empty()) return;
  std::sort(groups.begin(), groups.end());

  // Tracks merged into each parent, by parent id then their own id.
  std::sort(waiting.begin(), waiting.end(), [&](const auto& a, const auto& b) {
    return a.first != b.first ? a.first < b.first
                              : tracks[size_t(a.second)].id < tracks[size_t(b.second)].id;
  });

  for (size_t g = 0; g < groups.size();) {
    const uint64_t parent_id = groups[g].first;
    const int32_t parent = parent_of_det[size_t(groups[g].second)];
    members.clear();
    members.push_back(match[size_t(parent)]);
    for (; g < groups.size() && groups[g].first == parent_id; ++g)
      members.push_back(groups[g].second);
    candidates.clear();
    auto w = std::lower_bound(waiting.begin(), waiting.end(), parent_id,
                              [](const auto& a, uint64_t id) { return a.first < id; });
    for (; w != waiting.end() && w->first == parent_id; ++w) candidates.push_back(w->second);
    split_group(parent, members, candidates);
  }
}

// One parent and its parts (its matched component first): which part keeps the id,
// and which go to tracks waiting merged in it.
inline void Tracker::Impl::split_group(int32_t parent, std::vector<int32_t>& parts,
                                       std::vector<int32_t>& merged) {
  const size_t ps = size_t(parent);
  det_track[size_t(match[ps])] = -1;
  match[ps] = -1;
  auto larger = [&](int32_t a, int32_t b) {
    const Det &da = dets[size_t(a)], &db = dets[size_t(b)];
    return da.area != db.area ? da.area > db.area : da.label < db.label;
  };
  std::sort(parts.begin(), parts.end(), larger);
  if (merged.empty()) {
    // A plain split: the largest part keeps the id.
    link(parent, parts[0]);
    flags[ps] |= kJumped;
  } else {
    // Tracks merged into the parent wait for their parts: each part goes to the
    // track whose own motion and size predict it best, cheapest first.
    merged.push_back(parent);
    group_pairs.clear();
    for (int32_t s : merged) {
      const Track& t = tracks[size_t(s)];
      double x, y;
      own_prediction(size_t(s), &x, &y);
      const double scale = std::max({kMinMargin, double(t.w), double(t.h)});
      const double own_area = own_motion(size_t(s)).area;
      for (int32_t d : parts) {
        const Det& det = dets[size_t(d)];
        const double cost =
            distance(det.cx - x, det.cy - y) / scale + area_change(det.area, own_area);
        group_pairs.push_back({cost, s, d});
      }
    }
    std::sort(group_pairs.begin(), group_pairs.end(),
              [&](const Pair& a, const Pair& b) { return before(a, b); });
    for (const Pair& pr : group_pairs)
      if (match[size_t(pr.track)] < 0 && det_track[size_t(pr.det)] < 0) link(pr.track, pr.det);
    for (int32_t s : merged) {
      const size_t ss = size_t(s);
      if (match[ss] < 0) continue;
      if (s != parent) set_merged_into(ss, -1);  // back on its own
      // Its own motion resumes from before the merge.
      const Motion own = own_motion(ss);
      tracks[ss].vx = own.vx;
      tracks[ss].vy = own.vy;
      flags[ss] |= kJumped;
    }
    // The parent keeps an id on some part whenever one is left.
    if (match[ps] < 0)
      for (int32_t d : parts)
        if (det_track[size_t(d)] < 0) {
          link(parent, d);
          flags[ps] |= kJumped;
          break;
        }
    if (match[ps] < 0) unmatched.push_back(parent);
  }
  const uint64_t parent_id = tracks[ps].id;
  const double vx = tracks[ps].vx, vy = tracks[ps].vy;
  for (int32_t d : parts)
    if (det_track[size_t(d)] < 0) new_track(d, parent_id, vx, vy);
}

void Tracker::Impl::merge_stage() {
  // The component each lost track seen in the previous frame merged into. Only
  // tracks left unmatched can be lost; their pairs are all that is looked at.
  groups.clear();
  for (int32_t s : unmatched) {
    const size_t us = size_t(s);
    const Track& u = tracks[us];
    if (match[us] >= 0 || u.last_seen + 1 != frame) continue;
    int32_t best = -1;
    double best_ov = 0.0;
    const Box inside = grown(predicted[us], std::max(2.0, 0.25 * std::max(u.w, u.h)));
    for (int32_t i = pair_first[us]; i < pair_end[us]; ++i) {
      const Pair& p = pairs[size_t(i)];
      const int32_t host = det_track[size_t(p.det)];
      if (host < 0 || host == p.track) continue;
      const Track& h = tracks[size_t(host)];
      const Det& d = dets[size_t(p.det)];
      if (has(size_t(host), kBornNow) ||
          d.area - h.area < std::max(kMergeGrowth * u.area, kMergeNoise * std::sqrt(h.area)))
        continue;
      const double ov = overlap_area(inside, d.box());
      if (ov < kMergeInside * (inside.x1 - inside.x0) * (inside.y1 - inside.y0)) continue;
      if (best < 0 || ov > best_ov || (ov == best_ov && d.label < dets[size_t(best)].label)) {
        best = p.det;
        best_ov = ov;
      }
    }
    if (best < 0) continue;
    merge_det[us] = best;
    groups.push_back({dets[size_t(best)].label, s});
  }
  if (groups.empty()) return;
  std::sort(groups.begin(), groups.end(), [&](const auto& a, const auto& b) {
    return a.first != b.first ? a.first < b.first
                              : tracks[size_t(a.second)].id < tracks[size_t(b.second)].id;
  });
  for (size_t g = 0; g < groups.size();) {
    const int32_t d = merge_det[size_t(groups[g].second)];
    const int32_t host = det_track[size_t(d)];
    members.clear();
    members.push_back(host);
    double merging_area = 0;
    for (const uint64_t label = groups[g].first; g < groups.size() && groups[g].first == label; ++g) {
      members.push_back(groups[g].second);
      merging_area += tracks[size_t(groups[g].second)].area;
    }
    // Together too, the tracks must account for the growth; and not too many.
    const size_t mergers = members.size() - 1;
    int32_t held = 0;  // tracks the keeper would hold: the others and theirs
    for (int32_t s : members) held += 1 + waiting_in[size_t(s)];
    if (mergers > kMaxMergers || held - 1 > kMaxWaiting ||
        dets[size_t(d)].area - tracks[size_t(host)].area < kMergeGrowth * merging_area)
      continue;
    // The largest track before the merge keeps the component.
    int32_t keeper = members[0];
    for (int32_t s : members) {
      const Track &t = tracks[size_t(s)], &k = tracks[size_t(keeper)];
      if (t.area > k.area || (t.area == k.area && t.id < k.id)) keeper = s;
    }
    if (keeper != host) {
      match[size_t(host)] = -1;
      link(keeper, d);
    }
    flags[size_t(keeper)] |= kJumped;
    for (int32_t s : members) {
      if (s == keeper) continue;
      set_merged_into(size_t(s), keeper);
      history[size_t(s)].merged_into_id = tracks[size_t(keeper)].id;
      host_gains(keeper);
    }
  }
}

}  // namespace ccl
