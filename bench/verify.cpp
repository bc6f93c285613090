#include "verify.h"

#include "ccl/cuda_engine_testing.h"
#include "compare.h"

namespace bench {

std::string verify(ccl::cuda::Engine& engine, const ccl::ImageView& device_image,
                   const ccl::Options& options, cudaStream_t stream,
                   const ccl::Result& expected) {
  ccl::Result got;
  // Every scratch and output buffer poisoned first, so stale values cannot pass.
  ccl::cuda::testing::set_poison_byte(engine, 0xA5);
  try {
    engine.enqueue(device_image, options, stream);
    engine.finish(got, options.write_labels);
  } catch (...) {
    ccl::cuda::testing::set_poison_byte(engine, -1);
    throw;
  }
  ccl::cuda::testing::set_poison_byte(engine, -1);
  return ccl::test::difference(got, expected, options.write_labels);
}

}  // namespace bench
