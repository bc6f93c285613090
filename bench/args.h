// Command-line helpers the benchmarks share.
#pragma once

#include <sstream>
#include <string>
#include <vector>

namespace bench {

/// "a,b,,c" -> {"a", "b", "c"}: a comma-separated option value.
inline std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> parts;
  std::stringstream ss(s);
  for (std::string p; std::getline(ss, p, ',');)
    if (!p.empty()) parts.push_back(p);
  return parts;
}

}  // namespace bench
