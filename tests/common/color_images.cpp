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

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::string(v) : fallback;
}

// Runs fetch-rgb.sh unless the cache already holds the manifest. Empty on success.
std::string ensure_fetched(const fs::path& dir) {
  if (fs::exists(dir / "rgb" / "MANIFEST")) return {};
  const fs::path script =
      fs::path(env_or("CCL_FETCH_SCRIPT", CCL_FETCH_SCRIPT)).parent_path() / "fetch-rgb.sh";
  if (!fs::exists(script))
    return "no color test images in " + dir.string() + " and no fetch script at " +
           script.string() + " (set CCL_TESTDATA_DIR to a filled cache)";
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return "cannot create " + dir.string() + ": " + ec.message();
  const fs::path log = dir / "fetch-rgb.log";
  const int rc = run_bash_logged(script.string(),
                                 {dir.string(), env_or("CCL_IMPORT_IMAGE", CCL_IMPORT_IMAGE)}, log);
  if (rc != 0 || !fs::exists(dir / "rgb" / "MANIFEST"))
    return "could not fetch the color test images into " + dir.string() + " (exit " +
           std::to_string(rc) + "): " + last_line(log);
  return {};
}

// Reads an 8-bit binary PPM (P6, maxval 255, '#' comments allowed in the header).
bool read_ppm(const fs::path& file, RgbImage& img, std::string* why) {
  std::ifstream in(file, std::ios::binary);
  std::string magic;
  in >> magic;
  auto header_int = [&in]() {
    in >> std::ws;
    while (in.peek() == '#') {
      std::string comment;
      std::getline(in, comment);
      in >> std::ws;
    }
    long v = -1;
    in >> v;
    return v;
  };
  const long w = header_int(), h = header_int(), maxval = header_int();
  if (!in || magic != "P6" || w < 1 || h < 1 || maxval != 255) {
    *why = "cannot read " + file.string() + " as an 8-bit binary PPM";
    return false;
  }
  in.get();  // the single whitespace byte that ends the header
  img.width = int(w);
  img.height = int(h);
  img.rgb.resize(size_t(w) * size_t(h) * 3);
  in.read(reinterpret_cast<char*>(img.rgb.data()), std::streamsize(img.rgb.size()));
  if (in.gcount() != std::streamsize(img.rgb.size())) {
    *why = file.string() + " is truncated";
    return false;
  }
  return true;
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
