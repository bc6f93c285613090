// Small RAII wrappers over the CUDA runtime for the benchmark: every call checked and
// surfaced as ccl::Error with the CUDA error's name and text.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string>

#include "ccl/types.h"

namespace bench {

inline void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess)
    throw ccl::Error(std::string(what) + ": " + cudaGetErrorName(err) + " (" +
                     cudaGetErrorString(err) + ")");
}

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t bytes) : bytes_(bytes) {
    check(cudaMalloc(&ptr_, bytes), "cudaMalloc");
  }
  ~DeviceBuffer() { cudaFree(ptr_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  void* get() const { return ptr_; }
  size_t bytes() const { return bytes_; }

 private:
  void* ptr_ = nullptr;
  size_t bytes_ = 0;
};

class Stream {
 public:
  Stream() { check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate"); }
  ~Stream() { cudaStreamDestroy(stream_); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  cudaStream_t get() const { return stream_; }
  void sync() const { check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize"); }

 private:
  cudaStream_t stream_ = nullptr;
};

class Event {
 public:
  Event() { check(cudaEventCreate(&event_), "cudaEventCreate"); }
  ~Event() { cudaEventDestroy(event_); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;

  void record(cudaStream_t stream) { check(cudaEventRecord(event_, stream), "cudaEventRecord"); }
  void sync() const { check(cudaEventSynchronize(event_), "cudaEventSynchronize"); }
  cudaEvent_t get() const { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

/// Microseconds between two recorded events (the later one already reached).
inline double elapsed_us(const Event& from, const Event& to) {
  float ms = 0;
  check(cudaEventElapsedTime(&ms, from.get(), to.get()), "cudaEventElapsedTime");
  return double(ms) * 1000.0;
}

}  // namespace bench
