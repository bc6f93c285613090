#include "compare.h"

#include <algorithm>
#include <sstream>

namespace ccl::test {

namespace {

std::string component_text(const Component& c) {
  std::ostringstream s;
  s << "{label " << c.label << " box " << c.x << "," << c.y << " " << c.width << "x" << c.height
    << " area " << c.area << " sx " << c.sum_x << " sy " << c.sum_y << " sxx " << c.sum_xx
    << " sxy " << c.sum_xy << " syy " << c.sum_yy << "}";
  return s.str();
}

}  // namespace

std::string blob_text(const Blob& b) {
  std::ostringstream s;
  s << "{intensity " << b.intensity_sum << "/" << b.intensity_sum_sq << " " << b.intensity_min
    << ".." << b.intensity_max << ", channels " << b.channel_sum[0] << "/" << b.channel_sum[1]
    << "/" << b.channel_sum[2] << ", perimeter " << b.perimeter_counts[0] << "/"
    << b.perimeter_counts[1] << "/" << b.perimeter_counts[2] << ", euler " << b.euler << "}";
  return s.str();
}

std::string difference(const Result& got, const Result& want, bool compare_labels) {
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
  else if (compare_labels && got.labels.size() != want.labels.size())
    s << got.labels.size() << " labels instead of " << want.labels.size();
  if (!s.str().empty()) return s.str();
  for (size_t i = 0; i < want.components.size(); ++i)
    if (!(got.components[i] == want.components[i]))
      return "component " + std::to_string(i + 1) + " is " + component_text(got.components[i]) +
             " instead of " + component_text(want.components[i]);
  if (got.blobs.size() != want.blobs.size())
    return std::to_string(got.blobs.size()) + " blobs instead of " +
           std::to_string(want.blobs.size());
  for (size_t i = 0; i < want.blobs.size(); ++i)
    if (got.blobs[i] != want.blobs[i])
      return "blob " + std::to_string(i + 1) + " (label " +
             std::to_string(want.components[i].label) + ") is " + blob_text(got.blobs[i]) +
             " instead of " + blob_text(want.blobs[i]);
  if (compare_labels && got.labels != want.labels) {
    const auto at = std::mismatch(got.labels.begin(), got.labels.end(), want.labels.begin());
    const size_t i = size_t(at.first - got.labels.begin());
    s << "label at (" << i % size_t(want.width) << ", " << i / size_t(want.width) << ") is "
      << *at.first << " instead of " << *at.second;
  }
  return s.str();
}

std::string track_difference(const TrackInfo& a, const TrackInfo& b) {
  if (a.id != b.id) return "id " + std::to_string(a.id) + " vs " + std::to_string(b.id);
  if (a.parent_id != b.parent_id) return "parent_id";
  if (a.age != b.age) return "age";
  if (a.frames_unseen != b.frames_unseen) return "frames_unseen";
  if (a.velocity_x != b.velocity_x || a.velocity_y != b.velocity_y) return "velocity";
  if (a.predicted_x != b.predicted_x || a.predicted_y != b.predicted_y ||
      a.predicted_width != b.predicted_width || a.predicted_height != b.predicted_height)
    return "predicted box";
  return "";
}

}  // namespace ccl::test
