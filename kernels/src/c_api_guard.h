// What the files of the C interface (ccl/ccl.h) share: this thread's last failure,
// the exceptions that name a status, and how sized structs are read and written. One
// copy of the failure for every file, so ccl_last_error() reports whichever failed.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>

#include "ccl/ccl.h"
#include "ccl/types.h"

namespace ccl::capi {

/// This thread's last failure, as ccl_last_error() and ccl_last_cuda_error() give it
/// (defined in c_api.cpp).
std::string& last_error();
int& last_cuda_error();

/// Thrown for bad arguments found by the interface (the engine throws ccl::Error for
/// its own).
struct Invalid : std::runtime_error {
  using std::runtime_error::runtime_error;
};
struct Unsupported : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Runs `fn`, mapping what it throws onto a status and this thread's message: no C++
/// exception crosses the interface.
template <class F>
ccl_status guarded(F&& fn) {
  try {
    fn();
    last_error().clear();
    last_cuda_error() = 0;
    return CCL_OK;
  } catch (const ccl::CudaError& e) {
    last_error() = e.what();
    last_cuda_error() = e.code();
    return e.out_of_memory() ? CCL_ERROR_OUT_OF_MEMORY : CCL_ERROR_CUDA;
  } catch (const Unsupported& e) {
    last_error() = e.what();
    return CCL_ERROR_UNSUPPORTED;
  } catch (const Invalid& e) {
    last_error() = e.what();
    return CCL_ERROR_INVALID_ARGUMENT;
  } catch (const ccl::Error& e) {
    last_error() = e.what();
    return CCL_ERROR_INVALID_ARGUMENT;
  } catch (const std::bad_alloc&) {
    last_error() = "out of host memory";
    return CCL_ERROR_OUT_OF_MEMORY;
  } catch (const std::exception& e) {
    last_error() = e.what();
    return CCL_ERROR_INTERNAL;
  } catch (...) {
    last_error() = "unknown exception";
    return CCL_ERROR_INTERNAL;
  }
}

/// A caller's struct of `size` bytes read over our defaults: an older, shorter struct
/// leaves the newer members at their defaults.
template <class T>
T read_sized(const T* in, T defaults, const char* what) {
  if (!in) throw Invalid(std::string(what) + " is NULL");
  if (in->size < sizeof(uint32_t) * 2)
    throw Invalid(std::string(what) + ".size is " + std::to_string(in->size) +
                  ": set it to sizeof the struct");
  std::memcpy(&defaults, in, std::min<size_t>(in->size, sizeof(T)));
  return defaults;
}

/// `value` written into a caller's struct up to the size the caller gave it.
template <class T>
void write_sized(T* out, const T& value) {
  const uint32_t size = out->size;
  std::memcpy(out, &value, std::min<size_t>(size, sizeof(T)));
  out->size = size;
}

}  // namespace ccl::capi
