// This process's memory, for the tests that look for leaks over many frames or runs.
#pragma once

#include <malloc.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>

namespace ccl::test {

/// Resident set size in bytes (0 where /proc cannot tell).
inline uint64_t rss_bytes() {
  FILE* f = std::fopen("/proc/self/statm", "r");
  if (!f) return 0;
  unsigned long size = 0, resident = 0;
  const int n = std::fscanf(f, "%lu %lu", &size, &resident);
  std::fclose(f);
  return n == 2 ? uint64_t(resident) * uint64_t(sysconf(_SC_PAGESIZE)) : 0;
}

/// Bytes malloc has handed out and not had back (every arena, mmapped blocks too): a
/// leak shows here even where the allocator's caching hides it from RSS, and
/// fragmentation does not. 0 where glibc cannot tell (before 2.33).
inline uint64_t heap_in_use() {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 33)
  const struct mallinfo2 m = mallinfo2();
  return uint64_t(m.uordblks) + uint64_t(m.hblkhd);
#else
  return 0;
#endif
}

}  // namespace ccl::test
