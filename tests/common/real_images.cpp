// Real images from Debian packages, fetched once into a cache by fetch-testdata.sh.
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>

#include <opencv2/imgcodecs.hpp>

#include "test_images.h"

#ifndef CCL_DEFAULT_TESTDATA_DIR
#error "the build must define CCL_DEFAULT_TESTDATA_DIR"
#endif
#ifndef CCL_FETCH_SCRIPT
#error "the build must define CCL_FETCH_SCRIPT"
#endif

namespace fs = std::filesystem;

namespace ccl::test {

namespace {

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::string(v) : fallback;
}

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string last_line(const fs::path& file) {
  std::ifstream in(file);
  std::string line, last;
  while (std::getline(in, line))
    if (!line.empty()) last = line;
  return last;
}

// Runs the fetch script unless the cache already holds a manifest. Empty on success.
std::string ensure_fetched(const fs::path& dir) {
  if (fs::exists(dir / "images" / "MANIFEST")) return {};
  const std::string script = env_or("CCL_FETCH_SCRIPT", CCL_FETCH_SCRIPT);
  if (!fs::exists(script))
    return "no test images in " + dir.string() + " and no fetch script at " + script +
           " (set CCL_TESTDATA_DIR to a filled cache)";
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return "cannot create " + dir.string() + ": " + ec.message();
  const fs::path log = dir / "fetch.log";
  const std::string cmd = "bash " + shell_quote(script) + " " + shell_quote(dir.string()) +
                          " > " + shell_quote(log.string()) + " 2>&1";
  const int rc = std::system(cmd.c_str());
  if (rc != 0 || !fs::exists(dir / "images" / "MANIFEST"))
    return "could not fetch the real test images into " + dir.string() + " (exit " +
           std::to_string(WIFEXITED(rc) ? WEXITSTATUS(rc) : rc) + "): " + last_line(log);
  return {};
}

std::vector<GrayImage> load_manifest(const fs::path& images, std::string* why) {
  std::ifstream manifest(images / "MANIFEST");
  std::vector<GrayImage> out;
  std::string line;
  while (std::getline(manifest, line)) {
    std::istringstream fields(line);
    std::string name, file;
    int invert = 0;
    if (!(fields >> name >> file >> invert)) continue;
    cv::Mat m = cv::imread((images / file).string(), cv::IMREAD_GRAYSCALE);
    if (m.empty() || m.type() != CV_8UC1) {
      *why = "cannot read " + (images / file).string() + " as an 8-bit gray image";
      return {};
    }
    GrayImage g;
    g.name = name;
    g.width = m.cols;
    g.height = m.rows;
    g.pixels.resize(size_t(m.cols) * m.rows);
    for (int y = 0; y < m.rows; ++y) {
      const uint8_t* row = m.ptr<uint8_t>(y);
      for (int x = 0; x < m.cols; ++x)
        g.pixels[size_t(y) * m.cols + x] = invert ? uint8_t(255 - row[x]) : row[x];
    }
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
    if (reason.empty()) images = load_manifest(dir / "images", &reason);
    loaded = true;
  }
  if (why) *why = reason;
  return images;
}

}  // namespace ccl::test
