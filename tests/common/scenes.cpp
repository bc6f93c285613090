// Synthetic tracking scenes (scenes.h). Positions are computed in closed form from the
// frame index where they can be, so a test that reads a scene can also reason about it.
#include "scenes.h"

#include <algorithm>
#include <random>
#include <stdexcept>

#include "ccl/reference.h"

namespace ccl::test {

bool Shape::contains(int px, int py) const {
  if (kind == Disc) {
    const int64_t dx = px - x, dy = py - y;
    return dx * dx + dy * dy <= int64_t(r) * r;
  }
  return px >= x && px < x + w && py >= y && py < y + h;
}

namespace {

struct Box {
  int x0, y0, x1, y1;  // half-open, clipped to the frame; empty when x0 >= x1 or y0 >= y1
};

Box clipped_box(const Shape& s, int width, int height) {
  Box b = s.kind == Shape::Disc ? Box{s.x - s.r, s.y - s.r, s.x + s.r + 1, s.y + s.r + 1}
                                : Box{s.x, s.y, s.x + s.w, s.y + s.h};
  b.x0 = std::max(b.x0, 0);
  b.y0 = std::max(b.y0, 0);
  b.x1 = std::min(b.x1, width);
  b.y1 = std::min(b.y1, height);
  return b;
}

const std::vector<Placement>& frame_of(const Scene& scene, size_t t) {
  if (t >= scene.frames.size()) throw std::out_of_range(scene.name + ": no frame " + std::to_string(t));
  return scene.frames[t];
}

Scene make_scene(const std::string& name, int width, int height, int objects, int frames) {
  Scene s;
  s.name = name;
  s.width = width;
  s.height = height;
  s.num_objects = objects;
  s.frames.resize(size_t(frames));
  return s;
}

struct Walker {
  int x, y, r, vx, vy;
};

// Discs whose centers are at least r1 + r2 + kWalkerGap apart have no two pixels closer
// than kWalkerGap, so they never touch under either connectivity.
constexpr int kWalkerGap = 3;
constexpr int kWalkerMaxSpeed = 3;

// Uniform grid over the walkers' centers; a cell is wider than any distance checked
// (4 + 4 + kWalkerGap), so a disc's conflicts lie in its own and the 8 adjacent cells.
class WalkerGrid {
 public:
  static constexpr int kCell = 16;
  WalkerGrid(int width, int height)
      : cols_(width / kCell + 1), rows_(height / kCell + 1), cells_(size_t(cols_) * rows_) {}

  void insert(int i, int x, int y) { cells_[cell(x, y)].push_back(i); }
  void erase(int i, int x, int y) {
    auto& c = cells_[cell(x, y)];
    c.erase(std::find(c.begin(), c.end(), i));
  }

  // Whether a disc of radius r at (x, y) keeps its distance from every walker but `self`.
  bool clear(const std::vector<Walker>& w, int self, int x, int y, int r) const {
    const int cx = x / kCell, cy = y / kCell;
    for (int gy = std::max(cy - 1, 0); gy <= std::min(cy + 1, rows_ - 1); ++gy)
      for (int gx = std::max(cx - 1, 0); gx <= std::min(cx + 1, cols_ - 1); ++gx)
        for (int j : cells_[size_t(gy) * cols_ + gx]) {
          if (j == self) continue;
          const int64_t dx = w[j].x - x, dy = w[j].y - y, min = r + w[j].r + kWalkerGap;
          if (dx * dx + dy * dy < min * min) return false;
        }
    return true;
  }

 private:
  size_t cell(int x, int y) const { return size_t(y / kCell) * cols_ + x / kCell; }
  int cols_, rows_;
  std::vector<std::vector<int>> cells_;
};

bool inside(int width, int height, int x, int y, int r) {
  // one background pixel to the frame's edge
  return x - r >= 1 && y - r >= 1 && x + r <= width - 2 && y + r <= height - 2;
}

}  // namespace

GrayImage render(const Scene& scene, size_t t) {
  GrayImage g;
  g.name = scene.name + " frame " + std::to_string(t);
  g.width = scene.width;
  g.height = scene.height;
  g.pixels.assign(size_t(scene.width) * scene.height, 0);
  for (const Placement& p : frame_of(scene, t)) {
    const Box b = clipped_box(p.shape, scene.width, scene.height);
    for (int y = b.y0; y < b.y1; ++y)
      for (int x = b.x0; x < b.x1; ++x)
        if (p.shape.contains(x, y)) g.pixels[size_t(y) * scene.width + x] = 255;
  }
  return g;
}

LabeledFrame label_frame(const Scene& scene, size_t t, int connectivity) {
  const GrayImage gray = render(scene, t);
  const ImageView view = ImageView::gray8(gray.pixels.data(), gray.width, gray.height);
  Options options;
  options.threshold = 128;
  options.mode = ThresholdMode::Above;
  options.connectivity = connectivity;
  Result result;
  reference_label(view, options, result);

  LabeledFrame f;
  f.component_of.assign(size_t(scene.num_objects), -1);
  f.objects_in.resize(result.components.size());
  for (const Placement& p : frame_of(scene, t)) {
    // A shape is connected, so any one of its drawn pixels names its component.
    const Box b = clipped_box(p.shape, scene.width, scene.height);
    int component = -1;
    for (int y = b.y0; y < b.y1 && component < 0; ++y)
      for (int x = b.x0; x < b.x1 && component < 0; ++x)
        if (p.shape.contains(x, y))
          component = int(result.labels[size_t(y) * scene.width + x]) - 1;
    if (p.object < 0 || p.object >= scene.num_objects)
      throw std::logic_error(scene.name + ": object out of range");
    f.component_of[size_t(p.object)] = component;
    if (component >= 0) f.objects_in[size_t(component)].push_back(p.object);
  }
  for (auto& objects : f.objects_in) std::sort(objects.begin(), objects.end());
  f.components = std::move(result.components);
  return f;
}

std::vector<LabeledFrame> label_scene(const Scene& scene, int connectivity) {
  std::vector<LabeledFrame> frames;
  frames.reserve(scene.frames.size());
  for (size_t t = 0; t < scene.frames.size(); ++t) frames.push_back(label_frame(scene, t, connectivity));
  return frames;
}

Scene crossing_scene() {
  Scene s = make_scene("crossing", 220, 160, 2, 30);
  for (int t = 0; t < 30; ++t) {
    s.frames[t].push_back({0, Shape::disc(20 + 6 * t, 20 + 4 * t, 8)});
    s.frames[t].push_back({1, Shape::disc(20 + 6 * t, 140 - 4 * t, 8)});
  }
  return s;
}

Scene parallel_scene() {
  // Rows 52..68 and 75..91: six background rows between the discs at every x.
  Scene s = make_scene("parallel", 220, 120, 2, 36);
  for (int t = 0; t < 36; ++t) {
    s.frames[t].push_back({0, Shape::disc(20 + 5 * t, 60, 8)});
    s.frames[t].push_back({1, Shape::disc(200 - 5 * t, 83, 8)});
  }
  return s;
}

Scene fast_disc_scene() {
  Scene s = make_scene("fast disc", 512, 64, 1, 20);
  for (int t = 0; t < 20; ++t) s.frames[t].push_back({0, Shape::disc(10 + kFastDiscSpeed * t, 32, 6)});
  return s;
}

Scene split_scene() {
  // Together (centers 10 apart, moving 2 px per frame) up to frame 4; then the large
  // disc moves 1 px and the small one 6 px per frame: touching at frame 6 (centers 20
  // apart), apart from frame 7 on.
  Scene s = make_scene("split", 240, 80, 2, 25);
  for (int t = 0; t < 25; ++t) {
    const int large = t <= 4 ? 60 + 2 * t : 68 + (t - 4);
    const int small = t <= 4 ? 70 + 2 * t : 78 + 6 * (t - 4);
    s.frames[t].push_back({0, Shape::disc(large, 40, 12)});
    s.frames[t].push_back({1, Shape::disc(small, 42, 7)});
  }
  return s;
}

Scene merge_resplit_scene() {
  // Horizontal center distance |140 - 8t|: one component in frames 16..19.
  Scene s = make_scene("merge and re-split", 220, 80, 2, 36);
  for (int t = 0; t < 36; ++t) {
    s.frames[t].push_back({0, Shape::disc(30 + 4 * t, 40, 12)});
    s.frames[t].push_back({1, Shape::disc(170 - 4 * t, 43, 6)});
  }
  return s;
}

Scene vanish_scene(int hidden_frames) {
  if (hidden_frames < 0 || kVanishFrame + hidden_frames >= 30)
    throw std::invalid_argument("vanish_scene: hidden_frames outside [0, 21]");
  Scene s = make_scene("vanish " + std::to_string(hidden_frames), 200, 80, 1, 30);
  for (int t = 0; t < 30; ++t)
    if (t < kVanishFrame || t >= kVanishFrame + hidden_frames)
      s.frames[t].push_back({0, Shape::disc(20 + 5 * t, 20 + t, 8)});
  return s;
}

Scene random_walkers_scene(int width, int height, int count, int frames, uint32_t seed) {
  if (count < 0 || frames < 1) throw std::invalid_argument("random_walkers_scene: bad count or frames");
  Scene s = make_scene("random walkers " + std::to_string(count), width, height, count, frames);
  std::mt19937 gen(seed);
  auto uniform = [&gen](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(gen); };

  std::vector<Walker> w;
  w.reserve(size_t(count));
  WalkerGrid grid(width, height);
  for (int i = 0; i < count; ++i) {
    const int r = uniform(2, 4);
    if (width < 2 * r + 3 || height < 2 * r + 3)
      throw std::invalid_argument("random_walkers_scene: frame too small");
    bool placed = false;
    for (int attempt = 0; attempt < 10000 && !placed; ++attempt) {
      const int x = uniform(r + 1, width - r - 2), y = uniform(r + 1, height - r - 2);
      if (!grid.clear(w, i, x, y, r)) continue;
      w.push_back({x, y, r, uniform(-kWalkerMaxSpeed, kWalkerMaxSpeed),
                   uniform(-kWalkerMaxSpeed, kWalkerMaxSpeed)});
      grid.insert(i, x, y);
      placed = true;
    }
    if (!placed) throw std::runtime_error("random_walkers_scene: cannot place walker " + std::to_string(i));
  }

  for (int t = 0; t < frames; ++t) {
    if (t > 0) {
      for (int i = 0; i < count; ++i) {
        Walker& a = w[size_t(i)];
        a.vx = std::clamp(a.vx + uniform(-1, 1), -kWalkerMaxSpeed, kWalkerMaxSpeed);
        a.vy = std::clamp(a.vy + uniform(-1, 1), -kWalkerMaxSpeed, kWalkerMaxSpeed);
        const int x = a.x + a.vx, y = a.y + a.vy;
        // Checked against the others where they are now (moved or not yet), so every
        // pair keeps its distance in the frame being built.
        if (inside(width, height, x, y, a.r) && grid.clear(w, i, x, y, a.r)) {
          grid.erase(i, a.x, a.y);
          a.x = x;
          a.y = y;
          grid.insert(i, x, y);
        } else {
          a.vx = a.vy = 0;
        }
      }
    }
    auto& placements = s.frames[size_t(t)];
    placements.reserve(size_t(count));
    for (int i = 0; i < count; ++i) placements.push_back({i, Shape::disc(w[i].x, w[i].y, w[i].r)});
  }
  return s;
}

Scene many_components_scene(int width, int height, int count, int frames, uint32_t seed) {
  if (count < 1 || frames < 1) throw std::invalid_argument("many_components_scene: bad count or frames");
  // Walkers need room to move; 400 px per disc leaves plenty.
  if (int64_t(count) * 400 <= int64_t(width) * height)
    return random_walkers_scene(width, height, count, frames, seed);

  // The largest cell size that still gives every component a cell of its own.
  int cell = 2;
  while (int64_t(width / (cell + 1)) * (height / (cell + 1)) >= count) ++cell;
  const int64_t cols = width / cell, cells = cols * (height / cell);
  if (cells < count) throw std::invalid_argument("many_components_scene: too many components");
  // A square of side `side` at offset <= cell - side - 1 leaves a background column
  // (and row) before the next cell.
  const int side = std::max(1, cell / 2);
  const int jitter = std::min(2, cell - side - 1);

  Scene s = make_scene("grid " + std::to_string(count), width, height, count, frames);
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> offset(0, jitter);
  for (int t = 0; t < frames; ++t) {
    auto& placements = s.frames[size_t(t)];
    placements.reserve(size_t(count));
    for (int i = 0; i < count; ++i) {
      const int64_t c = int64_t(i) * cells / count;  // spread over the whole frame
      const int x = int(c % cols) * cell + offset(gen), y = int(c / cols) * cell + offset(gen);
      placements.push_back({i, Shape::rect(x, y, side, side)});
    }
  }
  return s;
}

}  // namespace ccl::test
