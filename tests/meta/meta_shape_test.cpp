// Derived quantities of a component (centroid, central moments, orientation, axis
// lengths) against values worked out by hand, and against the continuous shapes
// the pixels approximate.
#include <gst/ccl/gstcclmeta.h>
#include <gtest/gtest.h>

#include <cmath>

#include "shapes.h"

namespace {

using meta_test::component_of;
using meta_test::ellipse;
using meta_test::Pixels;
using meta_test::rectangle;

constexpr double kPi = 3.14159265358979323846;

struct Shape {
  double cx, cy, mu20, mu11, mu02, orientation, major, minor;
};

Shape shape_of(const GstCclComponent& c) {
  Shape s{};
  gst_ccl_component_get_centroid(&c, &s.cx, &s.cy);
  gst_ccl_component_get_central_moments(&c, &s.mu20, &s.mu11, &s.mu02);
  s.orientation = gst_ccl_component_get_orientation(&c);
  gst_ccl_component_get_axis_lengths(&c, &s.major, &s.minor);
  return s;
}

TEST(MetaShape, LShapeByHand) {
  // (0,0) (0,1) (0,2) (1,2) (2,2): an L of five pixels.
  // Means 3/5 and 7/5; E[x^2] = 5/5, E[y^2] = 13/5, E[xy] = 6/5, so
  // mu20 = 1 - 0.36 = 0.64, mu02 = 2.6 - 1.96 = 0.64, mu11 = 1.2 - 0.84 = 0.36.
  // Equal variances: the major axis is the diagonal, eigenvalues 0.64 +- 0.36.
  const GstCclComponent c = component_of(1, {{0, 0}, {0, 1}, {0, 2}, {1, 2}, {2, 2}});
  const Shape s = shape_of(c);
  EXPECT_DOUBLE_EQ(s.cx, 0.6);
  EXPECT_DOUBLE_EQ(s.cy, 1.4);
  EXPECT_NEAR(s.mu20, 0.64, 1e-12);
  EXPECT_NEAR(s.mu02, 0.64, 1e-12);
  EXPECT_NEAR(s.mu11, 0.36, 1e-12);
  EXPECT_NEAR(s.orientation, kPi / 4, 1e-12);
  EXPECT_NEAR(s.major, 4.0, 1e-12);                   // 4 * sqrt(1.0)
  EXPECT_NEAR(s.minor, 4.0 * std::sqrt(0.28), 1e-12);  // 4 * sqrt(0.28)
}

TEST(MetaShape, RectangleByHand) {
  // A 6 x 2 block: the variance of n consecutive integers is (n^2 - 1) / 12.
  const GstCclComponent c = component_of(1, rectangle(10, 20, 6, 2));
  const Shape s = shape_of(c);
  EXPECT_DOUBLE_EQ(s.cx, 12.5);
  EXPECT_DOUBLE_EQ(s.cy, 20.5);
  EXPECT_NEAR(s.mu20, 35.0 / 12.0, 1e-12);
  EXPECT_NEAR(s.mu02, 0.25, 1e-12);
  EXPECT_NEAR(s.mu11, 0.0, 1e-12);
  EXPECT_NEAR(s.orientation, 0.0, 1e-12);
  EXPECT_NEAR(s.major, 4.0 * std::sqrt(35.0 / 12.0), 1e-12);
  EXPECT_NEAR(s.minor, 2.0, 1e-12);
}

TEST(MetaShape, OrientationSignFollowsRowsDownwards) {
  Pixels down, up, vertical;
  for (int i = 0; i < 9; ++i) {
    down.emplace_back(i, i);    // towards +y: clockwise on screen
    up.emplace_back(i, 8 - i);  // towards -y
    vertical.emplace_back(3, i);
  }
  const GstCclComponent d = component_of(1, down), u = component_of(2, up),
                        v = component_of(3, vertical);
  EXPECT_NEAR(gst_ccl_component_get_orientation(&d), kPi / 4, 1e-12);
  EXPECT_NEAR(gst_ccl_component_get_orientation(&u), -kPi / 4, 1e-12);
  EXPECT_NEAR(gst_ccl_component_get_orientation(&v), kPi / 2, 1e-12);
  double major, minor;
  gst_ccl_component_get_axis_lengths(&u, &major, &minor);
  EXPECT_NEAR(major, 4.0 * std::sqrt(2 * 60.0 / 9.0), 1e-9);  // 2 * var(0..8) = 2 * 60/9
  EXPECT_NEAR(minor, 0.0, 1e-6);
}

TEST(MetaShape, SinglePixelAndEmptyComponentAreDegenerate) {
  const GstCclComponent one = component_of(1, {{7, 3}});
  Shape s = shape_of(one);
  EXPECT_EQ(s.cx, 7.0);
  EXPECT_EQ(s.cy, 3.0);
  EXPECT_EQ(s.mu20, 0.0);
  EXPECT_EQ(s.mu11, 0.0);
  EXPECT_EQ(s.mu02, 0.0);
  EXPECT_EQ(s.orientation, 0.0);
  EXPECT_EQ(s.major, 0.0);
  EXPECT_EQ(s.minor, 0.0);

  const GstCclComponent none{};  // area 0: no division by zero
  s = shape_of(none);
  EXPECT_EQ(s.cx, 0.0);
  EXPECT_EQ(s.mu20, 0.0);
  EXPECT_EQ(s.orientation, 0.0);
  EXPECT_EQ(s.major, 0.0);
}

TEST(MetaShape, OutParametersAreOptional) {
  const GstCclComponent c = component_of(1, rectangle(0, 0, 3, 3));
  double only;
  gst_ccl_component_get_centroid(&c, nullptr, &only);
  EXPECT_DOUBLE_EQ(only, 1.0);
  gst_ccl_component_get_central_moments(&c, nullptr, nullptr, &only);
  EXPECT_NEAR(only, 8.0 / 12.0, 1e-12);
  gst_ccl_component_get_axis_lengths(&c, nullptr, &only);
  EXPECT_NEAR(only, 4.0 * std::sqrt(8.0 / 12.0), 1e-12);
  gst_ccl_component_get_centroid(&c, nullptr, nullptr);
}

// A rasterized ellipse has, up to the pixel grid, the covariance of the continuous
// one: a^2/4 and b^2/4 along its axes, so the full axis lengths are 2a and 2b.
TEST(MetaShape, RotatedEllipseRecoversItsAxesAndAngle) {
  for (double degrees : {-60.0, -15.0, 0.0, 30.0, 75.0}) {
    const double angle = degrees * kPi / 180.0;
    const GstCclComponent c = component_of(1, ellipse(100.3, 80.6, 40.0, 12.0, angle));
    const Shape s = shape_of(c);
    EXPECT_NEAR(s.cx, 100.3, 0.25) << degrees;
    EXPECT_NEAR(s.cy, 80.6, 0.25) << degrees;
    EXPECT_NEAR(s.orientation, angle, 0.005) << degrees;
    EXPECT_NEAR(s.major, 80.0, 0.5) << degrees;
    EXPECT_NEAR(s.minor, 24.0, 0.5) << degrees;
    EXPECT_NEAR(double(c.area), kPi * 40.0 * 12.0, 0.01 * kPi * 40.0 * 12.0) << degrees;
  }
}

TEST(MetaShape, DiscHasEqualAxes) {
  const GstCclComponent c = component_of(1, ellipse(50, 50, 20, 20, 0.0));
  const Shape s = shape_of(c);
  EXPECT_NEAR(s.major, 40.0, 0.4);
  EXPECT_NEAR(s.minor, 40.0, 0.4);
  EXPECT_NEAR(s.major, s.minor, 0.05);
}

TEST(MetaShape, CentralMomentsStayExactForHugeSums) {
  // Two pixels at x = 2^30 - 1 and 2^30 + 1: the raw sums are near 2^61 and a
  // double-precision difference would lose the variance of 1 entirely.
  GstCclComponent c{};
  c.area = 2;
  c.sum_x = guint64(1) << 31;
  c.sum_xx = (guint64(1) << 61) + 2;
  c.sum_y = 2 * 5;
  c.sum_yy = 2 * 25;
  c.sum_xy = 5 * c.sum_x;
  double mu20, mu11, mu02;
  gst_ccl_component_get_central_moments(&c, &mu20, &mu11, &mu02);
  EXPECT_EQ(mu20, 1.0);
  EXPECT_EQ(mu11, 0.0);
  EXPECT_EQ(mu02, 0.0);
}

}  // namespace
