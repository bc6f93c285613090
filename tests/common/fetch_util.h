// The C++ side of the test-data fetch scripts (real_images.cpp, color_images.cpp,
// tests/quality/sequence.cpp): running one, quoted and logged, reading the MANIFEST it
// leaves and the binary PGM / PPM files it decoded.
#pragma once

#include <sys/wait.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace ccl::test {

/// `s` in single quotes for /bin/sh (a quote inside becomes '\'').
inline std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

/// The last non-empty line of a text file ("" when there is none or it cannot be read).
inline std::string last_line(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::string line, last;
  while (std::getline(in, line))
    if (!line.empty()) last = line;
  return last;
}

/// Runs `bash script args...` with stdout and stderr into `log`. Returns the exit
/// status, or std::system's raw result when the shell did not exit normally (a
/// signal, or -1 when no shell could be started): 0 only on success.
inline int run_bash_logged(const std::string& script, const std::vector<std::string>& args,
                           const std::filesystem::path& log) {
  std::string cmd = "bash " + shell_quote(script);
  for (const std::string& a : args) cmd += " " + shell_quote(a);
  cmd += " > " + shell_quote(log.string()) + " 2>&1";
  const int rc = std::system(cmd.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : rc;
}

/// One line of a MANIFEST: "<name> <file relative to the manifest's folder>".
struct ManifestEntry {
  std::string name, file;
};

/// The entries of `dir`/MANIFEST in order; lines without both fields are skipped, and
/// a missing manifest reads as empty.
inline std::vector<ManifestEntry> read_manifest(const std::filesystem::path& dir) {
  std::ifstream manifest(dir / "MANIFEST");
  std::vector<ManifestEntry> out;
  std::string line;
  while (std::getline(manifest, line)) {
    std::istringstream fields(line);
    ManifestEntry e;
    if (fields >> e.name >> e.file) out.push_back(std::move(e));
  }
  return out;
}

/// The environment variable `name`, or `fallback` when it is unset or empty.
inline std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::string(v) : fallback;
}

/// Runs `script DIR IMPORT_TOOL` (logged to DIR/log_name) unless DIR/subdir/MANIFEST is
/// there already. Empty on success, else why `what` could not be had.
inline std::string fetch_into(const std::filesystem::path& dir, const std::string& script,
                              const std::string& import_tool, const std::string& subdir,
                              const std::string& log_name, const std::string& what) {
  namespace fs = std::filesystem;
  if (fs::exists(dir / subdir / "MANIFEST")) return {};
  if (!fs::exists(script))
    return "no " + what + " in " + dir.string() + " and no fetch script at " + script +
           " (set CCL_TESTDATA_DIR to a filled cache)";
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return "cannot create " + dir.string() + ": " + ec.message();
  const fs::path log = dir / log_name;
  const int rc = run_bash_logged(script, {dir.string(), import_tool}, log);
  if (rc != 0 || !fs::exists(dir / subdir / "MANIFEST"))
    return "could not fetch the " + what + " into " + dir.string() + " (exit " +
           std::to_string(rc) + "): " + last_line(log);
  return {};
}

/// Reads an 8-bit binary PGM (`magic` "P5", 1 channel) or PPM ("P6", 3 channels), '#'
/// comments allowed in the header, into width, height and `bytes` (rows packed).
inline bool read_netpbm(const std::filesystem::path& file, const char* magic, size_t channels,
                        int& width, int& height, std::vector<uint8_t>& bytes, std::string* why) {
  std::ifstream in(file, std::ios::binary);
  std::string got;
  in >> got;
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
  if (!in || got != magic || w < 1 || h < 1 || maxval != 255) {
    *why = "cannot read " + file.string() + " as an 8-bit binary " +
           (channels == 3 ? "PPM" : "PGM");
    return false;
  }
  in.get();  // the single whitespace byte that ends the header
  width = int(w);
  height = int(h);
  bytes.resize(size_t(w) * size_t(h) * channels);
  in.read(reinterpret_cast<char*>(bytes.data()), std::streamsize(bytes.size()));
  if (in.gcount() != std::streamsize(bytes.size())) {
    *why = file.string() + " is truncated";
    return false;
  }
  return true;
}

}  // namespace ccl::test
