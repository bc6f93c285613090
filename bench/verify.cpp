#include "verify.h"

#include <cstdint>

namespace bench {

namespace {

std::string describe_mismatch(const ccl::Result& got, const ccl::Result& want, bool labels) {
  if (got.num_components != want.num_components)
    return "count " + std::to_string(got.num_components) + " != reference " +
           std::to_string(want.num_components);
  if (got.components.size() != want.components.size())
    return "table has " + std::to_string(got.components.size()) + " rows, reference " +
           std::to_string(want.components.size());
  for (size_t i = 0; i < want.components.size(); ++i)
    if (!(got.components[i] == want.components[i]))
      return "component " + std::to_string(i + 1) + " differs from the reference";
  if (labels) {
    if (got.labels.size() != want.labels.size()) return "label image size differs";
    for (size_t i = 0; i < want.labels.size(); ++i)
      if (got.labels[i] != want.labels[i])
        return "label at pixel " + std::to_string(i) + " is " + std::to_string(got.labels[i]) +
               ", reference " + std::to_string(want.labels[i]);
  }
  return "";
}

}  // namespace

std::string verify(ccl::cuda::Engine& engine, const ccl::ImageView& device_image,
                   const ccl::Options& options, cudaStream_t stream,
                   const ccl::Result& expected) {
  ccl::Result got;
  // Every scratch and output buffer poisoned first, so stale values cannot pass.
  engine.set_poison_byte(0xA5);
  try {
    engine.enqueue(device_image, options, stream);
    engine.finish(got, options.write_labels);
  } catch (...) {
    engine.set_poison_byte(-1);
    throw;
  }
  engine.set_poison_byte(-1);
  return describe_mismatch(got, expected, options.write_labels);
}

}  // namespace bench
