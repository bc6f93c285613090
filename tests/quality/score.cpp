// Scoring (score.h).
#include "score.h"

#include <algorithm>
#include <cstdlib>
#include <set>
#include <tuple>

namespace ccl::quality {

double iou(int ax, int ay, int aw, int ah, int bx, int by, int bw, int bh) {
  const int x0 = std::max(ax, bx), y0 = std::max(ay, by);
  const int x1 = std::min(ax + aw, bx + bw), y1 = std::min(ay + ah, by + bh);
  if (x1 <= x0 || y1 <= y0) return 0.0;
  const double inter = double(x1 - x0) * double(y1 - y0);
  return inter / (double(aw) * ah + double(bw) * bh - inter);
}

void score_frame(int frame, const FrameTruth& truth, const std::vector<Detection>& detections,
                 const BinaryImage& mask, int min_visible, Tally& tally) {
  ++tally.frames;
  // Every pair above the IoU bar, best first; ties by position so the result does not
  // depend on the sort.
  std::vector<std::tuple<double, size_t, size_t>> pairs;
  for (size_t o = 0; o < truth.objects.size(); ++o)
    for (size_t d = 0; d < detections.size(); ++d) {
      const ObjectTruth& t = truth.objects[o];
      const Detection& c = detections[d];
      const double v = iou(t.x, t.y, t.width, t.height, c.x, c.y, c.width, c.height);
      if (v >= 0.5) pairs.emplace_back(v, o, d);
    }
  std::sort(pairs.begin(), pairs.end(), [](const auto& a, const auto& b) {
    if (std::get<0>(a) != std::get<0>(b)) return std::get<0>(a) > std::get<0>(b);
    return std::make_pair(std::get<1>(a), std::get<2>(a)) < std::make_pair(std::get<1>(b), std::get<2>(b));
  });
  std::vector<bool> object_taken(truth.objects.size()), detection_taken(detections.size());
  uint64_t ignored = 0;
  for (const auto& [v, o, d] : pairs) {
    if (object_taken[o] || detection_taken[d]) continue;
    object_taken[o] = detection_taken[d] = true;
    const ObjectTruth& t = truth.objects[o];
    if (t.pixels < min_visible) {
      ++ignored;
      continue;
    }
    ++tally.found;
    ++tally.correct;
    tally.matches[t.id].emplace_back(frame, detections[d].track);
  }
  for (const ObjectTruth& t : truth.objects)
    if (t.pixels >= min_visible) ++tally.visible;
  for (const auto& [a, b] : truth.contacts) {
    tally.contacts[a].push_back(frame);
    tally.contacts[b].push_back(frame);
  }
  tally.ignored += ignored;
  tally.reported += detections.size() - ignored;

  for (size_t i = 0; i < mask.pixels.size(); ++i) {
    const bool fg = mask.pixels[i] != 0, object = truth.owner[i] != 0;
    tally.tp += fg && object;
    tally.fp += fg && !object;
    tally.fn += !fg && object;
  }
}

std::vector<std::pair<int, uint64_t>> Tally::identity(int object) const {
  std::vector<std::pair<int, uint64_t>> out;
  const auto m = matches.find(object);
  if (m == matches.end()) return out;
  const auto c = contacts.find(object);
  for (const auto& [frame, track] : m->second) {
    const bool near = c != contacts.end() &&
        std::any_of(c->second.begin(), c->second.end(),
                    [frame = frame](int f) { return std::abs(f - frame) <= kContactMargin; });
    if (!near) out.emplace_back(frame, track);
  }
  return out;
}

int Tally::id_switches() const {
  int n = 0;
  for (const auto& entry : matches) {
    const auto seq = identity(entry.first);
    for (size_t i = 1; i < seq.size(); ++i) n += seq[i].second != seq[i - 1].second;
  }
  return n;
}

int Tally::crossing_switches() const {
  int n = 0;
  for (const auto& entry : matches) {
    const auto seq = identity(entry.first);
    const auto c = contacts.find(entry.first);
    if (c == contacts.end()) continue;
    for (size_t i = 1; i < seq.size(); ++i) {
      if (seq[i].second == seq[i - 1].second) continue;
      const int from = seq[i - 1].first, to = seq[i].first;
      n += std::any_of(c->second.begin(), c->second.end(), [&](int f) { return f > from && f < to; });
    }
  }
  return n;
}

int Tally::most_ids() const {
  size_t most = 0;
  for (const auto& entry : matches) {
    std::set<uint64_t> ids;
    for (const auto& m : identity(entry.first)) ids.insert(m.second);
    most = std::max(most, ids.size());
  }
  return int(most);
}

double Tally::majority_share() const {
  double lowest = 1;
  for (const auto& entry : matches) {
    const auto seq = identity(entry.first);
    if (seq.empty()) continue;
    std::map<uint64_t, size_t> count;
    size_t most = 0;
    for (const auto& m : seq) most = std::max(most, ++count[m.second]);
    lowest = std::min(lowest, double(most) / double(seq.size()));
  }
  return lowest;
}

std::string Tally::id_history(int object) const {
  std::string out;
  const auto seq = identity(object);
  for (size_t i = 0; i < seq.size(); ++i)
    if (i == 0 || seq[i].second != seq[i - 1].second)
      out += (out.empty() ? "" : " ") + std::to_string(seq[i].first) + ":" + std::to_string(seq[i].second);
  return out;
}

}  // namespace ccl::quality
