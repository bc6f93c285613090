// The CPU reference labeler: sequential, obviously correct, the oracle of every test.
#pragma once

#include <cstdint>
#include <vector>

#include "ccl/types.h"

namespace ccl {

/// A binary image, one byte per pixel (0 or 1), row-major without padding.
struct BinaryImage {
  int width = 0;
  int height = 0;
  std::vector<uint8_t> pixels;
};

/// 256-bin histogram of luma8 over a host image (input of otsu_level).
std::vector<uint32_t> luma_histogram(const ImageView& image);

/// Thresholds a host image's luma as Options says. Returns the level used.
int threshold_image(const ImageView& image, const Options& options, BinaryImage& out);

/// Labels a binary image: 0 = background, 1..N in raster order of each component's
/// first pixel (docs/CONTRACT.md), with the full component table. Flood fill from each
/// unlabeled foreground pixel met in raster order.
void label_binary(const BinaryImage& binary, int connectivity, Result& out);

/// Feature table of an already labeled image (labels 1..n, 0 = background).
std::vector<Component> component_table(const uint32_t* labels, int width, int height,
                                       uint32_t n);

/// The report of a frame labeled on the CPU (out holds the whole table and the label
/// image): the blobs Options::properties and the filters need (measure_blobs over
/// `image`), then the label image dropped unless asked for, then select_reported.
void report_labeled(const ImageView& image, const Options& options, Result& out);

/// Threshold + label + features of a host image, as every backend must return it.
void reference_label(const ImageView& image, const Options& options, Result& out);

}  // namespace ccl
