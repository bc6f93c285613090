// Real images from Debian packages, fetched once into a cache by fetch-testdata.sh,
// which leaves them as 8-bit binary PGM: reading them needs no image codecs.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>

#include "fetch_util.h"
#include "test_images.h"

#ifndef CCL_DEFAULT_TESTDATA_DIR
#error "the build must define CCL_DEFAULT_TESTDATA_DIR"
#endif
#ifndef CCL_FETCH_SCRIPT
#error "the build must define CCL_FETCH_SCRIPT"
#endif
#ifndef CCL_IMPORT_IMAGE
#error "the build must define CCL_IMPORT_IMAGE"
#endif

namespace fs = std::filesystem;

namespace ccl::test {

namespace {

// Runs the fetch script unless the cache already holds a manifest. Empty on success.
std::string ensure_fetched(const fs::path& dir) {
  return fetch_into(dir, env_or("CCL_FETCH_SCRIPT", CCL_FETCH_SCRIPT),
                    env_or("CCL_IMPORT_IMAGE", CCL_IMPORT_IMAGE), "gray", "fetch.log",
                    "real test images");
}

bool read_pgm(const fs::path& file, GrayImage& g, std::string* why) {
  return read_netpbm(file, "P5", 1, g.width, g.height, g.pixels, why);
}

std::vector<GrayImage> load_manifest(const fs::path& images, std::string* why) {
  std::vector<GrayImage> out;
  for (const ManifestEntry& e : read_manifest(images)) {
    GrayImage g;
    g.name = e.name;
    if (!read_pgm(images / e.file, g, why)) return {};
    out.push_back(std::move(g));
  }
  if (out.empty()) *why = "the manifest in " + images.string() + " lists no image";
  return out;
}

}  // namespace

std::string testdata_dir() {
  if (const char* v = std::getenv("CCL_TESTDATA_DIR"); v && *v) return v;
  const fs::path configured = CCL_DEFAULT_TESTDATA_DIR;
  if (fs::exists(configured)) return configured.string();
  // A build folder copied elsewhere (to a GPU machine): its testdata is beside
  // meson-private/ in the nearest build root above this executable.
  std::error_code ec;
  fs::path dir = fs::read_symlink("/proc/self/exe", ec).parent_path();
  for (int up = 0; !ec && up < 6 && !dir.empty(); ++up, dir = dir.parent_path()) {
    if (fs::exists(dir / "meson-private")) return (dir / "testdata").string();
    if (dir == dir.root_path()) break;
  }
  return configured.string();
}

std::vector<GrayImage> real_images(std::string* why) {
  // Decoding takes a while; tests of one binary share the result.
  static std::mutex mutex;
  static bool loaded = false;
  static std::vector<GrayImage> images;
  static std::string reason;
  std::lock_guard<std::mutex> lock(mutex);
  if (!loaded) {
    const fs::path dir = testdata_dir();
    reason = ensure_fetched(dir);
    if (reason.empty()) images = load_manifest(dir / "gray", &reason);
    loaded = true;
  }
  if (why) *why = reason;
  return images;
}

}  // namespace ccl::test
