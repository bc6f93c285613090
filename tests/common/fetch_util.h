// The C++ side of the test-data fetch scripts (real_images.cpp, tests/quality/
// sequence.cpp): running one, quoted and logged, and reading the MANIFEST it leaves.
#pragma once

#include <sys/wait.h>

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

}  // namespace ccl::test
