#include "gpu_test_support.h"

#include <algorithm>
#include <future>
#include <cctype>
#include <sstream>
#include <thread>

namespace ccl::gpu_test {

cuda::Engine& engine() {
  static cuda::Engine* instance = [] {
    auto* e = new cuda::Engine(-1);
    cuda::testing::set_poison_byte(*e, 0xAB);
    return e;
  }();
  return *instance;
}

bool expect_matches(const ImageView& view, const Options& options, const Result& want,
                    const std::string& what) {
  for (int run = 1; run <= 2; ++run) {
    Result got;
    try {
      engine().label_host(view, options, got);
    } catch (const Error& e) {
      ADD_FAILURE() << what << " (" << describe(options) << ", run " << run << "): " << e.what();
      return false;
    }
    const std::string diff = difference(got, want);
    if (!diff.empty()) {
      ADD_FAILURE() << what << " (" << describe(options) << ", " << to_string(view.format)
                    << ", stride " << view.strides[0] << ", run " << run << "): " << diff;
      return false;
    }
  }
  return true;
}

std::vector<Result> in_parallel(const std::vector<std::function<Result()>>& tasks) {
  std::vector<Result> results(tasks.size());
  const size_t workers = std::max(1u, std::thread::hardware_concurrency());
  for (size_t first = 0; first < tasks.size(); first += workers) {
    std::vector<std::future<Result>> batch;
    const size_t last = std::min(tasks.size(), first + workers);
    for (size_t i = first; i < last; ++i) batch.push_back(std::async(std::launch::async, tasks[i]));
    for (size_t i = first; i < last; ++i) results[i] = batch[i - first].get();
  }
  return results;
}

Result reference(const ImageView& view, const Options& options) {
  Result r;
  reference_label(view, options, r);
  return r;
}

Options make_options(Algorithm algorithm, int connectivity, ThresholdMode mode, int threshold) {
  Options o;
  o.algorithm = algorithm;
  o.connectivity = connectivity;
  o.mode = mode;
  o.threshold = threshold;
  return o;
}

std::string describe(const Options& options) {
  std::ostringstream s;
  s << to_string(options.algorithm) << " " << options.connectivity << "-way "
    << to_string(options.mode);
  if (options.mode != ThresholdMode::Otsu) s << " " << options.threshold;
  if (!options.write_labels) s << " features only";
  if (options.min_area > 1) s << " min-area " << options.min_area;
  if (options.max_components != UINT32_MAX) s << " max-components " << options.max_components;
  return s.str();
}

std::vector<Algorithm> all_algorithms() {
  std::vector<Algorithm> list;
  for (const AlgorithmInfo& a : algorithms()) list.push_back(a.id);
  return list;
}

std::string test_name(Algorithm a) {
  std::string name;
  for (const char* c = to_string(a); *c; ++c)
    if (std::isalnum(static_cast<unsigned char>(*c))) name += *c;
  return name;
}

}  // namespace ccl::gpu_test
