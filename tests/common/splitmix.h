// splitmix64: one step from a 64-bit state, the tests' fast deterministic hash and
// random generator (fuzz cases, generated scenes, checksums). Its constants fix every
// value it gives, so a printed seed reproduces the same frames with every library.
#pragma once

#include <cstdint>

namespace ccl::test {

constexpr uint64_t kSplitMixIncrement = 0x9E3779B97F4A7C15ull;

/// The value splitmix64 gives from state x (it then moves on to x + kSplitMixIncrement).
inline uint64_t splitmix64(uint64_t x) {
  uint64_t z = x + kSplitMixIncrement;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace ccl::test
