// splitmix64: one step from a 64-bit state, the tests' fast deterministic hash and
// random generator (fuzz cases, generated scenes, checksums). Its constants fix every
// value it gives, so a printed seed reproduces the same frames with every library.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <vector>

namespace ccl::test {

constexpr uint64_t kSplitMixIncrement = 0x9E3779B97F4A7C15ull;

/// The value splitmix64 gives from state x (it then moves on to x + kSplitMixIncrement).
inline uint64_t splitmix64(uint64_t x) {
  uint64_t z = x + kSplitMixIncrement;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// A random generator of splitmix64 steps and plain modulo (no standard distribution),
/// so that a seed gives the same values with every standard library. `salt` keeps the
/// streams of different generators apart for the same seed.
class SplitMixRng {
 public:
  explicit SplitMixRng(uint64_t seed, uint64_t salt = 0) : state_(seed ^ salt) {}
  uint64_t next() {
    const uint64_t z = splitmix64(state_);
    state_ += kSplitMixIncrement;
    return z;
  }
  /// lo..hi inclusive (lo when hi <= lo).
  int range(int lo, int hi) {
    if (hi <= lo) return lo;
    return lo + int(next() % uint64_t(int64_t(hi) - lo + 1));
  }
  bool chance(int percent) { return range(0, 99) < percent; }
  template <class T>
  const T& pick(const std::vector<T>& v) {
    return v[size_t(range(0, int(v.size()) - 1))];
  }
  template <class T>
  T pick(std::initializer_list<T> list) {
    return *(list.begin() + range(0, int(list.size()) - 1));
  }

 private:
  uint64_t state_;
};

}  // namespace ccl::test
