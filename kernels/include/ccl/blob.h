// cudaccl engine: blob analysis, the properties of a component beyond its box, area and
// moments (docs/BLOBS.md). A caller asks for them with Options::properties; every
// backend then returns, beside each reported Component, a Blob of exact integer sums
// (identical on the CPU and the GPU), from which the functions below derive the values
// scikit-image's regionprops gives, under its names and in its units.
#pragma once

#include <cstdint>
#include <vector>

#include "ccl/types.h"

namespace ccl {

/// A component's shape from its second central moments, as scikit-image defines it
/// (regionprops' orientation, axis_major_length, axis_minor_length, eccentricity).
struct Shape {
  double orientation = 0;  // radians, -pi/2..pi/2: the major axis against the rows' axis
  double axis_major_length = 0, axis_minor_length = 0;  // 4 sqrt(eigenvalue)
  double eccentricity = 0;  // sqrt(1 - minor eigenvalue / major eigenvalue)
  double inertia_ratio = 0;  // minor / major eigenvalue (OpenCV's blob detector), 1 - e^2
};

/// Shape of the component (all zeros for a single pixel).
Shape shape_of(const Component& c);
/// Eccentricity alone, bit for bit what the device's filters compare.
double eccentricity(const Component& c);

double intensity_mean(const Component& c, const Blob& b);
/// Population standard deviation (numpy's std), from exact integer sums.
double intensity_std(const Component& c, const Blob& b);
/// Mean of channel 0..2 (kPropertyColor).
double channel_mean(const Component& c, const Blob& b, int channel);
/// scikit-image's perimeter(region.image, 4).
double perimeter(const Blob& b);
/// 4 pi area / perimeter^2; 0 when the perimeter is 0 (one or two pixels, whose
/// boundary pixels have no boundary neighbours that count).
double circularity(const Component& c, const Blob& b);

/// The properties `options` needs computed: those asked for, plus what its filters read.
uint32_t needed_properties(const Options& options);

/// The CPU's blob analysis: one Blob per label 1..n of `labels` (width x height, row
/// major, no padding, 0 = background), over the frame `image` (host memory, the frame
/// the labels came from). `properties`: the Property bits to compute; `connectivity`:
/// the labeling's (the Euler number's). The oracle of the device's pass.
std::vector<Blob> measure_blobs(const uint32_t* labels, const ImageView& image, uint32_t n,
                                uint32_t properties, int connectivity);

}  // namespace ccl
