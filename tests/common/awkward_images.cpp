// Small images that break labelers in known ways: sizes at and around warp/block
// boundaries, degenerate sizes, and shapes whose parts meet late in raster order or
// only diagonally (the cases where a wrong union-find or a missed 8-neighbour shows).
#include <cmath>
#include <cstdlib>

#include "test_images.h"

namespace ccl::test {

namespace {

// A gray canvas with foreground 255 on background 0.
class Canvas {
 public:
  Canvas(std::string name, int w, int h) {
    img_.name = std::move(name);
    img_.width = w;
    img_.height = h;
    img_.pixels.assign(size_t(w) * h, 0);
  }
  void set(int x, int y, bool on = true) {
    if (x >= 0 && y >= 0 && x < img_.width && y < img_.height)
      img_.pixels[size_t(y) * img_.width + x] = on ? 255 : 0;
  }
  void hline(int x0, int x1, int y) {
    for (int x = x0; x <= x1; ++x) set(x, y);
  }
  void vline(int x, int y0, int y1) {
    for (int y = y0; y <= y1; ++y) set(x, y);
  }
  void rect_outline(int x0, int y0, int x1, int y1) {
    hline(x0, x1, y0);
    hline(x0, x1, y1);
    vline(x0, y0, y1);
    vline(x1, y0, y1);
  }
  int w() const { return img_.width; }
  int h() const { return img_.height; }
  GrayImage take() { return std::move(img_); }

 private:
  GrayImage img_;
};

GrayImage random_gray(const std::string& name, int w, int h, double density, int g,
                      uint32_t seed) {
  return to_gray(yacclab_random(w, h, density, g, seed), name);
}

GrayImage filled(const std::string& name, int w, int h, bool on) {
  Canvas c(name, w, h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) c.set(x, y, on);
  return c.take();
}

// Runs of growing length separated by single gaps, along a row or a column.
GrayImage runs(const std::string& name, int length, bool horizontal) {
  Canvas c(name, horizontal ? length : 1, horizontal ? 1 : length);
  int pos = 0;
  for (int run = 1; pos < length; ++run) {
    for (int i = 0; i < run && pos < length; ++i, ++pos)
      horizontal ? c.set(pos, 0) : c.set(0, pos);
    ++pos;  // gap
  }
  return c.take();
}

GrayImage checkerboard(const std::string& name, int w, int h, int cell) {
  Canvas c(name, w, h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) c.set(x, y, ((x / cell) + (y / cell)) % 2 == 0);
  return c.take();
}

// A square spiral of 1-px arms and 1-px gaps walking inwards: one long component whose
// pixels are far apart in raster order.
GrayImage spiral(const std::string& name, int w, int h) {
  Canvas c(name, w, h);
  int x0 = 0, y0 = 0, x1 = w - 1, y1 = h - 1;
  while (x0 <= x1 && y0 <= y1) {
    c.hline(x0, x1, y0);                       // top, left to right
    if (y0 + 2 > y1) break;
    c.vline(x1, y0, y1);                       // right, down
    if (x1 - 2 < x0) break;
    c.hline(x0, x1, y1);                       // bottom, right to left
    if (y1 - 2 < y0 + 2) break;
    c.vline(x0, y0 + 2, y1);                   // left, up to below the next turn
    c.set(x0 + 1, y0 + 2);                     // step in to the next ring
    x0 += 2;
    y0 += 2;
    x1 -= 2;
    y1 -= 2;
  }
  return c.take();
}

// Concentric rectangle outlines, 1 px thick, 1 px apart: each ring its own component.
GrayImage square_rings(const std::string& name, int w, int h) {
  Canvas c(name, w, h);
  for (int k = 0; 2 * k < w && 2 * k < h; k += 2) c.rect_outline(k, k, w - 1 - k, h - 1 - k);
  return c.take();
}

// Circular rings: their edges touch only diagonally in places, so 4- and 8-connectivity
// give different counts.
GrayImage circle_rings(const std::string& name, int size) {
  Canvas c(name, size, size);
  const double cx = (size - 1) / 2.0, cy = (size - 1) / 2.0;
  for (int y = 0; y < size; ++y) {
    for (int x = 0; x < size; ++x) {
      const double r = std::hypot(x - cx, y - cy);
      c.set(x, y, std::fmod(r, 4.0) < 1.2);
    }
  }
  return c.take();
}

// x == y (down_right) or x == h - 1 - y (down_left): 8-connected only.
GrayImage diagonal(const std::string& name, int w, int h, bool down_right) {
  Canvas c(name, w, h);
  for (int y = 0; y < h; ++y) c.set(down_right ? y : h - 1 - y, y);
  return c.take();
}

// Two crossing diagonals; with an even size they cross between pixels.
GrayImage cross(const std::string& name, int size) {
  Canvas c(name, size, size);
  for (int i = 0; i < size; ++i) {
    c.set(i, i);
    c.set(size - 1 - i, i);
  }
  return c.take();
}

// Steps `step` px wide, one row each, moving right (or left) by `step` per row: steps
// touch only diagonally; with overlap 1 they share an edge.
GrayImage staircase(const std::string& name, int w, int h, int step, bool rightwards,
                    int overlap) {
  Canvas c(name, w, h);
  for (int y = 0; y < h; ++y) {
    const int start = y * (step - overlap);
    const int x0 = rightwards ? start : w - start - step;
    c.hline(x0, x0 + step - 1, y);
  }
  return c.take();
}

// Teeth on every other column joined by a bar at the bottom: every tooth starts as a
// component of its own in raster order and they all merge on the last row.
GrayImage comb(const std::string& name, int w, int h, bool diagonal_joins) {
  Canvas c(name, w, h);
  for (int x = 0; x < w; x += 2) c.vline(x, 0, h - 2);
  if (diagonal_joins) {
    for (int x = 1; x < w; x += 2) c.set(x, h - 1);  // touches teeth only at corners
  } else {
    c.hline(0, w - 1, h - 1);
  }
  return c.take();
}

// Two interlocking combs, one hanging from the top bar, one standing on the bottom bar.
GrayImage interlocking_combs(const std::string& name, int w, int h) {
  Canvas c(name, w, h);
  c.hline(0, w - 1, 0);
  c.hline(0, w - 1, h - 1);
  for (int x = 1; x < w; x += 4) c.vline(x, 0, h - 3);
  for (int x = 3; x < w; x += 4) c.vline(x, 2, h - 1);
  return c.take();
}

// U: two arms that meet only on the last row.
GrayImage u_shape(const std::string& name, int w, int h) {
  Canvas c(name, w, h);
  c.vline(1, 1, h - 2);
  c.vline(w - 2, 1, h - 2);
  c.hline(1, w - 2, h - 2);
  return c.take();
}

// W: V-shaped diagonal strokes; the arms of each V meet at the bottom, neighbouring Vs
// at the top, all through diagonal steps.
GrayImage w_shape(const std::string& name, int w, int h) {
  Canvas c(name, w, h);
  const int depth = h - 1;
  for (int x = 0; x < w; ++x) {
    const int phase = x % (2 * depth);
    c.set(x, phase <= depth ? phase : 2 * depth - phase);
  }
  return c.take();
}

// A serpentine: full rows joined alternately at the right and the left end.
GrayImage serpentine(const std::string& name, int w, int h) {
  Canvas c(name, w, h);
  for (int y = 0; y < h; y += 2) c.hline(0, w - 1, y);
  for (int y = 1; y < h; y += 2) c.set((y / 2) % 2 == 0 ? w - 1 : 0, y);
  return c.take();
}

// Isolated pixels on every other row and column.
GrayImage dots(const std::string& name, int w, int h) {
  Canvas c(name, w, h);
  for (int y = 0; y < h; y += 2)
    for (int x = 0; x < w; x += 2) c.set(x, y);
  return c.take();
}

GrayImage corners(const std::string& name, int w, int h) {
  Canvas c(name, w, h);
  c.set(0, 0);
  c.set(w - 1, 0);
  c.set(0, h - 1);
  c.set(w - 1, h - 1);
  return c.take();
}

GrayImage border_with_dot(const std::string& name, int w, int h) {
  Canvas c(name, w, h);
  c.rect_outline(0, 0, w - 1, h - 1);
  c.set(w / 2, h / 2);
  return c.take();
}

GrayImage from_rows(const std::string& name, const std::vector<std::string>& rows) {
  Canvas c(name, int(rows[0].size()), int(rows.size()));
  for (int y = 0; y < c.h(); ++y)
    for (int x = 0; x < c.w(); ++x) c.set(x, y, rows[y][x] == '#');
  return c.take();
}

}  // namespace

std::vector<GrayImage> awkward_images() {
  std::vector<GrayImage> v;
  v.push_back(filled("single_fg_1x1", 1, 1, true));
  v.push_back(filled("single_bg_1x1", 1, 1, false));
  v.push_back(from_rows("diag_2x2", {"#.", ".#"}));
  v.push_back(from_rows("antidiag_2x2", {".#", "#."}));
  v.push_back(random_gray("row_1000x1_d50", 1000, 1, 0.5, 1, 11));
  v.push_back(runs("row_1000x1_runs", 1000, true));
  v.push_back(random_gray("col_1x1000_d50", 1, 1000, 0.5, 1, 12));
  v.push_back(runs("col_1x777_runs", 777, false));
  v.push_back(filled("row_33x1_fg", 33, 1, true));
  v.push_back(random_gray("two_rows_65x2_d50", 65, 2, 0.5, 1, 13));
  for (int w : {31, 32, 33, 63, 64, 65, 1001}) {
    for (int d : {30, 50, 70})
      v.push_back(random_gray("w" + std::to_string(w) + "_d" + std::to_string(d), w, 29,
                              d / 100.0, 1, uint32_t(w * 100 + d)));
    v.push_back(random_gray("w" + std::to_string(w) + "_d50_g3", w, 37, 0.5, 3, uint32_t(w)));
  }
  v.push_back(random_gray("random_257x131_d45", 257, 131, 0.45, 1, 7));
  v.push_back(filled("all_fg_67x45", 67, 45, true));
  v.push_back(filled("all_bg_67x45", 67, 45, false));
  v.push_back(checkerboard("checker1_65x33", 65, 33, 1));
  v.push_back(checkerboard("checker2_66x34", 66, 34, 2));
  v.push_back(spiral("spiral_63x63", 63, 63));
  v.push_back(spiral("spiral_97x40", 97, 40));
  v.push_back(square_rings("square_rings_61x45", 61, 45));
  v.push_back(circle_rings("circle_rings_101", 101));
  v.push_back(diagonal("diag_down_right_50x40", 50, 40, true));
  v.push_back(diagonal("diag_down_left_50x40", 50, 40, false));
  v.push_back(cross("cross_41", 41));
  v.push_back(cross("cross_40", 40));
  v.push_back(staircase("stairs_right_70x33", 70, 33, 2, true, 0));
  v.push_back(staircase("stairs_left_70x33", 70, 33, 2, false, 0));
  v.push_back(staircase("stairs_left_overlap_70x33", 70, 33, 3, false, 1));
  v.push_back(comb("comb_65x20", 65, 20, false));
  v.push_back(comb("comb_diag_joins_65x20", 65, 20, true));
  v.push_back(interlocking_combs("interlocking_combs_66x21", 66, 21));
  v.push_back(u_shape("u_40x30", 40, 30));
  v.push_back(w_shape("w_100x12", 100, 12));
  v.push_back(serpentine("serpentine_65x31", 65, 31));
  v.push_back(dots("dots_33x33", 33, 33));
  v.push_back(corners("corners_37x23", 37, 23));
  v.push_back(border_with_dot("border_65x33", 65, 33));
  return v;
}

}  // namespace ccl::test
