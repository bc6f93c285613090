// What the host CPU offers the CPU stage's vector loops. The loops are written once
// and built twice: for the baseline of the target (which GCC vectorizes for whatever
// SIMD it has: SSE2 on x86-64, NEON on the Jetsons' ARM cores) and, on x86 only, for
// AVX2, picked at run time. Elsewhere CCL_TARGET_AVX2 is empty and has_avx2() false, so
// the same source builds on every architecture and the AVX2 copies are never called.
#pragma once

#if defined(__x86_64__) || defined(__i386__)
#define CCL_TARGET_AVX2 __attribute__((target("avx2")))
#else
#define CCL_TARGET_AVX2
#endif

namespace ccl::cpu {

/// True when the AVX2 builds may run (asked once per process).
inline bool has_avx2() {
#if defined(__x86_64__) || defined(__i386__)
  static const bool yes = [] {
    __builtin_cpu_init();
    return bool(__builtin_cpu_supports("avx2"));
  }();
  return yes;
#else
  return false;
#endif
}

}  // namespace ccl::cpu
