// Synthetic scenes for the tracker: sequences of Gray8 frames in which discs and
// rectangles move, every shape carrying the identity of the object it draws, so that a
// test knows which component is which object in every frame.
//
// Geometry is integer so that a scene renders to the same bytes everywhere: a disc is
// every pixel whose squared distance to its center is at most r * r, a rectangle every
// pixel of [x, x + w) x [y, y + h); both are clipped to the frame.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "ccl/types.h"
#include "test_images.h"

namespace ccl::test {

struct Shape {
  enum Kind { Disc, Rect };
  Kind kind = Disc;
  int x = 0, y = 0;  ///< disc: center; rectangle: top-left corner
  int r = 0;         ///< disc radius
  int w = 0, h = 0;  ///< rectangle size

  static Shape disc(int cx, int cy, int radius) { return {Disc, cx, cy, radius, 0, 0}; }
  static Shape rect(int x0, int y0, int width, int height) {
    return {Rect, x0, y0, 0, width, height};
  }
  bool contains(int px, int py) const;
};

/// One object drawn in one frame.
struct Placement {
  int object = 0;  ///< ground-truth identity, 0 .. Scene::num_objects - 1
  Shape shape;
};

struct Scene {
  std::string name;
  int width = 0;
  int height = 0;
  int num_objects = 0;
  /// frames[t]: the objects drawn in frame t; an object absent from it is hidden.
  std::vector<std::vector<Placement>> frames;
};

/// Frame t of a scene: foreground 255 on background 0.
GrayImage render(const Scene& scene, size_t t);

/// Frame t labeled by the reference labeler (threshold 128, above), with each
/// component mapped to the objects whose pixels it holds.
struct LabeledFrame {
  std::vector<Component> components;  ///< components[i].label == i + 1
  /// Per object: index into components of the component holding it, -1 when it is not
  /// drawn (hidden or entirely outside the frame).
  std::vector<int> component_of;
  /// Per component: the objects it holds, ascending (several when objects touch).
  std::vector<std::vector<int>> objects_in;

  bool visible(int object) const { return component_of[size_t(object)] >= 0; }
  /// Drawn, and its component holds no other object.
  bool alone(int object) const {
    const int c = component_of[size_t(object)];
    return c >= 0 && objects_in[size_t(c)].size() == 1;
  }
};
LabeledFrame label_frame(const Scene& scene, size_t t, int connectivity = 8);
std::vector<LabeledFrame> label_scene(const Scene& scene, int connectivity = 8);

// ---- The scenes. Unless said otherwise, objects are numbered in the order listed.

/// Two discs (r 8) on an X: one from the upper left going down-right, the other from
/// the lower left going up-right; they form one component for a few middle frames.
Scene crossing_scene();

/// Two discs (r 8) passing each other in opposite directions on horizontal lines whose
/// pixels stay 6 rows apart: close, never touching.
Scene parallel_scene();

/// One disc of radius 6 moving 25 px per frame to the right, 20 frames: far more than
/// its own size, so it never overlaps its previous position.
constexpr int kFastDiscSpeed = 25;
Scene fast_disc_scene();

/// Object 0 (disc r 12) and object 1 (disc r 7) overlap as one blob for the first
/// frames, then part: 0 drifts left, 1 moves right faster, and they separate.
Scene split_scene();

/// Object 0 (disc r 12) moves right, object 1 (disc r 6) left on nearly the same line:
/// they meet, form one component for a few frames (the small one wholly inside the large
/// one for some) and separate again on their paths.
Scene merge_resplit_scene();

/// One disc (r 8) at constant velocity (5, 1) px per frame over 30 frames, not drawn in
/// frames [kVanishFrame, kVanishFrame + hidden_frames); it reappears on its path.
constexpr int kVanishFrame = 8;
Scene vanish_scene(int hidden_frames);

/// `count` discs of radius 2..4 walking at random (std::mt19937(seed)): each keeps a
/// velocity of at most 3 px per axis that changes by at most 1 per axis and frame. A
/// move that would bring a disc within 3 px of another (center distance below
/// r1 + r2 + 3) or out of the frame is refused and the disc stops, so no two discs ever
/// touch and the ground truth is exact. Throws when they cannot be placed.
Scene random_walkers_scene(int width, int height, int count, int frames, uint32_t seed);

/// `count` moving components for the benchmark: random walkers (as above) while they
/// fit loosely, otherwise squares spread over a grid of cells, each jittered within its
/// cell every frame (at most 2 px from the cell's origin) with at least 1 px of
/// background to its neighbors. Throws when `count` squares of at least 1 px with such
/// gaps do not fit.
Scene many_components_scene(int width, int height, int count, int frames, uint32_t seed);

}  // namespace ccl::test
