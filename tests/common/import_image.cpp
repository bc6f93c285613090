// ccl-import-image: decodes one downloaded test image (PNG, JPEG, PBM...) into the
// 8-bit binary PGM that the test-image library reads. Decoding happens once, when the
// cache is filled, so the library and every binary linking it (GPU tests, bench/) need
// no image codecs and run on machines that only have the CUDA driver.
//
//   ccl-import-image IN OUT.pgm [--invert]
//   ccl-import-image IN OUT.ppm --rgb
//
// --invert makes dark ink the bright (foreground under "above") side. --rgb keeps the
// colors (an 8-bit binary PPM, alpha dropped) for the color-range tests (fetch-rgb.sh).
#include <cstdio>
#include <cstring>

#include <opencv2/imgcodecs.hpp>

int main(int argc, char** argv) {
  const bool rgb = argc == 4 && std::strcmp(argv[3], "--rgb") == 0;
  if (argc < 3 || argc > 4 || (argc == 4 && !rgb && std::strcmp(argv[3], "--invert") != 0)) {
    std::fprintf(stderr, "usage: %s IN OUT.pgm [--invert] | %s IN OUT.ppm --rgb\n", argv[0], argv[0]);
    return 2;
  }
  if (rgb) {
    // OpenCV holds it as BGR; its PPM writer stores R, G, B as the format wants.
    const cv::Mat color = cv::imread(argv[1], cv::IMREAD_COLOR);
    if (color.empty() || color.type() != CV_8UC3) {
      std::fprintf(stderr, "%s: cannot read %s as an 8-bit color image\n", argv[0], argv[1]);
      return 1;
    }
    if (!cv::imwrite(argv[2], color, {cv::IMWRITE_PXM_BINARY, 1})) {
      std::fprintf(stderr, "%s: cannot write %s\n", argv[0], argv[2]);
      return 1;
    }
    return 0;
  }
  cv::Mat gray = cv::imread(argv[1], cv::IMREAD_GRAYSCALE);
  if (gray.empty() || gray.type() != CV_8UC1) {
    std::fprintf(stderr, "%s: cannot read %s as an 8-bit gray image\n", argv[0], argv[1]);
    return 1;
  }
  if (argc == 4) gray = 255 - gray;
  if (!cv::imwrite(argv[2], gray, {cv::IMWRITE_PXM_BINARY, 1})) {
    std::fprintf(stderr, "%s: cannot write %s\n", argv[0], argv[2]);
    return 1;
  }
  return 0;
}
