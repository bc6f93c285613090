// The color images of the cache, as real_images.cpp does the gray ones: fetch-rgb.sh
// (beside the gray fetch script) fills testdata_dir()/rgb once, with PPM files that
// ccl-import-image decoded.
#include "color_images.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>

#include "fetch_util.h"
#include "test_images.h"

#ifndef CCL_FETCH_SCRIPT
#error "the build must define CCL_FETCH_SCRIPT"
#endif
#ifndef CCL_IMPORT_IMAGE
#error "the build must define CCL_IMPORT_IMAGE"
#endif

namespace fs = std::filesystem;

namespace ccl::test {

namespace {

// Runs fetch-rgb.sh (beside the gray fetch script) unless the cache holds its manifest.
std::string ensure_fetched(const fs::path& dir) {
  const fs::path script =
      fs::path(env_or("CCL_FETCH_SCRIPT", CCL_FETCH_SCRIPT)).parent_path() / "fetch-rgb.sh";
  return fetch_into(dir, script.string(), env_or("CCL_IMPORT_IMAGE", CCL_IMPORT_IMAGE), "rgb",
                    "fetch-rgb.log", "color test images");
}

bool read_ppm(const fs::path& file, RgbImage& img, std::string* why) {
  return read_netpbm(file, "P6", 3, img.width, img.height, img.rgb, why);
}

}  // namespace

std::vector<RgbImage> real_color_images(std::string* why) {
  // Tests of one binary share one read of the cache.
  static std::mutex mutex;
  static bool loaded = false;
  static std::vector<RgbImage> images;
  static std::string reason;
  std::lock_guard<std::mutex> lock(mutex);
  if (!loaded) {
    const fs::path dir = testdata_dir();
    reason = ensure_fetched(dir);
    if (reason.empty()) {
      for (const ManifestEntry& e : read_manifest(dir / "rgb")) {
        RgbImage img;
        img.name = e.name;
        if (!read_ppm(dir / "rgb" / e.file, img, &reason)) {
          images.clear();
          break;
        }
        images.push_back(std::move(img));
      }
      if (images.empty() && reason.empty())
        reason = "the manifest in " + (dir / "rgb").string() + " lists no image";
    }
    loaded = true;
  }
  if (why) *why = reason;
  return images;
}

}  // namespace ccl::test
