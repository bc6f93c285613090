// Labels an 8-bit PGM image with the installed cudaccl engine: on the GPU when one
// can run the kernels, otherwise with the CPU reference, which returns the same
// components. Prints the count and the reported components, largest first.
//
//   c++ -std=c++17 label_image.cpp $(pkg-config --cflags --libs ccl) -o label_image
//   ./label_image image.pgm [threshold] [max-components]
#include <ccl/cuda_engine.h>
#include <ccl/reference.h>
#include <ccl/types.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

namespace {

/// A binary PGM (P5, maxval 255): width, height and the pixels, or false.
bool read_pgm(const std::string& path, int& width, int& height, std::vector<uint8_t>& pixels) {
  std::ifstream in(path, std::ios::binary);
  std::string magic;
  int maxval = 0;
  if (!(in >> magic >> width >> height >> maxval) || magic != "P5" || maxval != 255 ||
      width < 1 || height < 1)
    return false;
  in.get();  // the one whitespace byte before the pixels
  pixels.resize(size_t(width) * size_t(height));
  return bool(in.read(reinterpret_cast<char*>(pixels.data()), std::streamsize(pixels.size())));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: label_image image.pgm [threshold] [max-components]\n";
    return 2;
  }
  int width = 0, height = 0;
  std::vector<uint8_t> pixels;
  if (!read_pgm(argv[1], width, height, pixels)) {
    std::cerr << argv[1] << ": not an 8-bit binary PGM\n";
    return 1;
  }
  const ccl::ImageView image = ccl::ImageView::gray8(pixels.data(), width, height);

  ccl::Options options;  // foreground: luma above the threshold, 8-connected
  options.threshold = argc > 2 ? std::stoi(argv[2]) : 128;
  options.max_components = argc > 3 ? uint32_t(std::stoul(argv[3])) : 10;

  ccl::Result result;
  std::string where, why;
  try {
    if (ccl::cuda::device_usable(-1, &why)) {
      ccl::cuda::Engine engine;
      engine.label_host(image, options, result);
      where = "CUDA device " + std::to_string(engine.device_id());
    } else {
      ccl::reference_label(image, options, result);
      where = "the CPU reference (" + why + ")";
    }
  } catch (const ccl::Error& e) {
    std::cerr << "labeling failed: " << e.what() << "\n";
    return 1;
  }
  std::printf("%u components, %zu reported, on %s\n", result.num_components,
              result.components.size(), where.c_str());
  for (const ccl::Component& c : result.components)
    std::printf("label %u: box %d,%d %dx%d, area %llu, centroid %.2f,%.2f\n", c.label, c.x, c.y,
                c.width, c.height, static_cast<unsigned long long>(c.area), c.centroid_x(),
                c.centroid_y());
  return 0;
}
