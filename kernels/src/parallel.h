// The engine's CPU threads: how many to use by default, and a small pool that runs n
// tasks at once, the calling thread taking task 0. The fast labeler and the foreground
// stage split their rows into stripes over it.
//
// Every task of a run is on its own thread at the same time, so tasks may wait for
// each other at a barrier (the labeler does). Each calling thread owns its pool
// (local_pool), so that streams labeled from different threads never queue behind each
// other and a pool needs no lock between callers. Workers are started when a run first
// needs them and kept until their caller's thread ends: a frame costs a wake-up, never
// a thread creation.
#pragma once

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <thread>
#include <type_traits>
#include <vector>

#if defined(__SSE2__) || defined(_M_X64)
#include <emmintrin.h>
#endif

namespace ccl::par {

/// Upper bound of any thread count the engine picks or is given.
constexpr int kMaxThreads = 256;

/// CCL_CPU_THREADS when it holds a positive number; otherwise the CPUs this process may
/// run on (its affinity mask, which containers and taskset narrow), not the machine's.
inline int default_threads() {
  if (const char* env = std::getenv("CCL_CPU_THREADS")) {
    const long n = std::strtol(env, nullptr, 10);
    if (n > 0) return int(std::min<long>(n, kMaxThreads));
  }
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
    return std::min(CPU_COUNT(&set), kMaxThreads);
  const unsigned hw = std::thread::hardware_concurrency();
  return hw ? int(std::min<unsigned>(hw, kMaxThreads)) : 1;
}

inline void cpu_relax() {
#if defined(__SSE2__) || defined(_M_X64)
  _mm_pause();
#endif
}

class Pool {
 public:
  Pool() = default;
  Pool(const Pool&) = delete;
  Pool& operator=(const Pool&) = delete;
  ~Pool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
      generation_.fetch_add(1, std::memory_order_release);
    }
    start_.notify_all();
    for (std::thread& t : workers_) t.join();
  }

  /// Tasks a run can have at once, up to n: 1 + the workers that could be started
  /// (fewer than n - 1 only when the system refuses threads).
  int reserve(int n) {
    n = std::clamp(n, 1, kMaxThreads);
    while (int(workers_.size()) < n - 1) {
      const int index = int(workers_.size()) + 1;
      try {
        workers_.emplace_back([this, index] { serve(index); });
      } catch (...) {
        break;
      }
    }
    return std::min(n, int(workers_.size()) + 1);
  }

  /// Runs task(i) for every i in [0, n) at the same time, task 0 on the calling thread,
  /// and returns when all have; n is first cut to what reserve(n) gives. The first
  /// exception a task throws is thrown here once every task has ended.
  template <class F>
  void run(int n, F&& task) {
    n = reserve(n);
    if (n <= 1) {
      task(0);
      return;
    }
    using Task = std::remove_reference_t<F>;
    Task* t = &task;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      call_ = [](void* ctx, int i) { (*static_cast<Task*>(ctx))(i); };
      ctx_ = t;
      tasks_ = n;
      error_ = nullptr;
      shared_ = false;
      pending_.store(n - 1, std::memory_order_relaxed);
      generation_.fetch_add(1, std::memory_order_release);
    }
    start_.notify_all();
    invoke(0);
    // The workers' tasks take about as long as ours: a short spin usually sees them end
    // without a sleep and a wake-up.
    for (int spin = 0; spin < kSpins && pending_.load(std::memory_order_acquire); ++spin)
      cpu_relax();
    if (pending_.load(std::memory_order_acquire)) {
      std::unique_lock<std::mutex> lock(mutex_);
      done_.wait(lock, [&] { return pending_.load(std::memory_order_acquire) == 0; });
    }
    if (error_) std::rethrow_exception(error_);
  }

  /// Runs body(i) on the calling thread (i = 0) and on each of up to n - 1 workers that
  /// wakes while the caller's body is still running (i: the worker's own index, < n);
  /// returns once the caller's body has returned and every worker that joined has left.
  /// The bodies share their work among themselves (an atomic counter of items), so a
  /// worker that the system runs late, or not at all (a busy machine), costs the frame
  /// no wait: the caller takes what nobody took. Unlike run(), the bodies must never
  /// wait for each other. The first exception a body throws is thrown here.
  template <class F>
  void share(int n, F&& body) {
    n = reserve(n);
    if (n <= 1) {
      body(0);
      return;
    }
    using Body = std::remove_reference_t<F>;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      call_ = [](void* ctx, int i) { (*static_cast<Body*>(ctx))(i); };
      ctx_ = &body;
      tasks_ = n;
      error_ = nullptr;
      shared_ = true;
      open_ = true;
      active_.store(0, std::memory_order_relaxed);
      generation_.fetch_add(1, std::memory_order_release);
    }
    start_.notify_all();
    invoke(0);
    {
      // From here on no worker joins: the ones counted in active_ are all there are.
      std::lock_guard<std::mutex> lock(mutex_);
      open_ = false;
    }
    for (int spin = 0; spin < kSpins && active_.load(std::memory_order_acquire); ++spin)
      cpu_relax();
    if (active_.load(std::memory_order_acquire)) {
      std::unique_lock<std::mutex> lock(mutex_);
      done_.wait(lock, [&] { return active_.load(std::memory_order_acquire) == 0; });
    }
    if (error_) std::rethrow_exception(error_);
  }

 private:
  // About 10-50 microseconds of pause instructions, then the thread sleeps: enough to
  // catch the next phase of a frame, little enough not to starve other processes.
  static constexpr int kSpins = 2000;

  void invoke(int i) {
    try {
      call_(ctx_, i);
    } catch (...) {
      std::lock_guard<std::mutex> lock(error_mutex_);
      if (!error_) error_ = std::current_exception();
    }
  }

  void serve(int index) {
    uint64_t seen = 0;
    for (;;) {
      // Wait for the next run: spin a little (phases of a frame follow each other
      // within microseconds), then sleep.
      for (int spin = 0;
           spin < kSpins && generation_.load(std::memory_order_acquire) == seen; ++spin)
        cpu_relax();
      int tasks;
      bool shared;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        start_.wait(lock, [&] { return generation_.load(std::memory_order_acquire) != seen; });
        seen = generation_.load(std::memory_order_acquire);
        if (stop_) return;
        tasks = tasks_;
        shared = shared_;
        // A shared run takes helpers only while its caller works; joining is counted
        // under the lock, where the caller closes it.
        if (shared && (!open_ || index >= tasks)) continue;
        if (shared) active_.fetch_add(1, std::memory_order_relaxed);
      }
      if (index >= tasks) continue;
      invoke(index);
      if (shared) {
        if (active_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
          std::lock_guard<std::mutex> lock(mutex_);
          done_.notify_one();
        }
        continue;
      }
      if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        std::lock_guard<std::mutex> lock(mutex_);
        done_.notify_one();
      }
    }
  }

  std::vector<std::thread> workers_;
  std::mutex mutex_, error_mutex_;
  std::condition_variable start_, done_;
  std::atomic<uint64_t> generation_{0};
  std::atomic<int> pending_{0};
  std::atomic<int> active_{0};         // share(): workers inside the body
  int tasks_ = 0;                      // guarded by mutex_
  bool shared_ = false, open_ = false;  // guarded by mutex_: a share() run, still taking helpers
  void (*call_)(void*, int) = nullptr;  // guarded by mutex_ (published with generation_)
  void* ctx_ = nullptr;
  bool stop_ = false;
  std::exception_ptr error_;
};

/// The calling thread's pool.
inline Pool& local_pool() {
  static thread_local Pool pool;
  return pool;
}

/// Rows [begin, end) of stripe s of n over h rows (as even as integers allow).
inline int stripe_begin(int s, int n, int h) { return int(int64_t(s) * h / n); }

}  // namespace ccl::par
