#include "gpu_test_support.h"

#include <algorithm>
#include <future>
#include <sstream>
#include <thread>

namespace ccl::gpu_test {

namespace {

std::string component_text(const Component& c) {
  std::ostringstream s;
  s << "{label " << c.label << " box " << c.x << "," << c.y << " " << c.width << "x" << c.height
    << " area " << c.area << " sx " << c.sum_x << " sy " << c.sum_y << " sxx " << c.sum_xx
    << " sxy " << c.sum_xy << " syy " << c.sum_yy << "}";
  return s.str();
}

}  // namespace

cuda::Engine& engine() {
  static cuda::Engine* instance = [] {
    auto* e = new cuda::Engine(-1);
    e->set_poison_byte(0xAB);
    return e;
  }();
  return *instance;
}

std::string difference(const Result& got, const Result& want) {
  std::ostringstream s;
  if (got.width != want.width || got.height != want.height)
    s << "size " << got.width << "x" << got.height << " instead of " << want.width << "x"
      << want.height;
  else if (got.threshold_used != want.threshold_used)
    s << "threshold_used " << got.threshold_used << " instead of " << want.threshold_used;
  else if (got.num_components != want.num_components)
    s << got.num_components << " components instead of " << want.num_components;
  else if (got.components.size() != want.components.size())
    s << "table of " << got.components.size() << " entries instead of "
      << want.components.size();
  else if (got.labels.size() != want.labels.size())
    s << got.labels.size() << " labels instead of " << want.labels.size();
  if (!s.str().empty()) return s.str();
  for (size_t i = 0; i < want.components.size(); ++i)
    if (!(got.components[i] == want.components[i]))
      return "component " + std::to_string(i + 1) + " is " + component_text(got.components[i]) +
             " instead of " + component_text(want.components[i]);
  if (got.labels != want.labels) {
    const auto at = std::mismatch(got.labels.begin(), got.labels.end(), want.labels.begin());
    const size_t i = size_t(at.first - got.labels.begin());
    s << "label at (" << i % size_t(want.width) << ", " << i / size_t(want.width) << ") is "
      << *at.first << " instead of " << *at.second;
  }
  return s.str();
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
  s << (options.algorithm == Algorithm::HA ? "HA" : "KE") << options.connectivity << " "
    << to_string(options.mode);
  if (options.mode != ThresholdMode::Otsu) s << " " << options.threshold;
  if (!options.write_labels) s << " features only";
  return s.str();
}

}  // namespace ccl::gpu_test
