// Blob analysis through the element: blob-properties and the blob filters
// (circularity, intensity, eccentricity), the meta's GstCclBlob entries against the
// engine's reference (ccl::reference_label and ccl/blob.h) in every format, and the
// blobs in the ROI metas' parameters and the bus messages.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "ccl/blob.h"
#include "element_util.h"

namespace ccl::element_test {
namespace {

using test::Frame;
using test::GrayImage;
using test::make_frame;

constexpr guint kAllGroups = kPropertyIntensity | kPropertyColor | kPropertyPerimeter |
                             kPropertyEuler;
const char* const kAllGroupsArg = "blob-properties=intensity+color+perimeter+euler";

constexpr int kW = 160, kH = 80;
constexpr int kThreshold = 100;

// Two discs of radius 9 and two bars of 40 x 4, one of each bright (luma 200..218)
// and one dim (120..138), textured so that the spread and extremes of the luma
// mean something; the bright disc has a 2 x 2 hole (Euler number 0). Labels, in
// raster order of first pixels: 1 the bright horizontal bar, 2 the bright disc, 3 the
// dim vertical bar, 4 the dim disc.
GrayImage discs_and_bars() {
  GrayImage g{"discs_and_bars", kW, kH, std::vector<uint8_t>(size_t(kW) * kH, 0)};
  auto paint = [&](int x, int y, int base) {
    g.pixels[size_t(y) * kW + x] = uint8_t(base + ((3 * x + 5 * y) % 7) * 3);
  };
  auto disc = [&](int cx, int cy, int base) {
    for (int y = cy - 9; y <= cy + 9; ++y)
      for (int x = cx - 9; x <= cx + 9; ++x)
        if ((x - cx) * (x - cx) + (y - cy) * (y - cy) <= 81) paint(x, y, base);
  };
  auto bar = [&](int x0, int y0, int w, int h, int base) {
    for (int y = y0; y < y0 + h; ++y)
      for (int x = x0; x < x0 + w; ++x) paint(x, y, base);
  };
  disc(20, 20, 200);
  for (int y = 20; y < 22; ++y)
    for (int x = 20; x < 22; ++x) g.pixels[size_t(y) * kW + x] = 0;
  disc(60, 50, 120);
  bar(90, 10, 40, 4, 200);
  bar(145, 30, 4, 40, 120);
  return g;
}

constexpr guint kBrightBar = 1, kBrightDisc = 2, kDimBar = 3, kDimDisc = 4;

std::vector<guint> labels_of(GstBuffer* out) {
  std::vector<guint> v;
  const GstCclMeta* meta = out ? gst_ccl_meta_get(out) : nullptr;
  if (!meta) return v;
  for (guint i = 0; i < meta->n_components; ++i) v.push_back(meta->components[i].label);
  return v;
}

// A harness around "cudaccl threshold=100 <props>" that labels frames like `frame`.
class BlobRun {
 public:
  BlobRun(const std::string& props, const Frame& frame)
      : h_("threshold=" + std::to_string(kThreshold) + " " + props) {
    h_.set_caps(frame.view.format, frame.view.width, frame.view.height);
  }
  GstBuffer* process(const Frame& frame) { return h_.process(buffer_from_frame(frame)); }
  Harness& harness() { return h_; }

 private:
  Harness h_;
};

// One frame through "cudaccl threshold=100 <props>".
GstBuffer* run(const std::string& props, const Frame& frame) {
  BlobRun r(props, frame);
  return r.process(frame);
}

Options blob_options() {
  Options o = reference_options(kThreshold);
  o.properties = kAllGroups;
  return o;
}

// gtest assertions: g is the blob of reference component c with sums b, the groups
// `properties` filled: every value as ccl/blob.h derives it, bit for bit.
void expect_blob(const GstCclBlob& g, const Component& c, const Blob& b, uint32_t properties) {
  SCOPED_TRACE("label " + std::to_string(c.label));
  EXPECT_EQ(guint(g.properties), properties);
  const Shape s = shape_of(c);
  EXPECT_EQ(g.orientation, s.orientation);
  EXPECT_EQ(g.axis_major_length, s.axis_major_length);
  EXPECT_EQ(g.axis_minor_length, s.axis_minor_length);
  EXPECT_EQ(g.eccentricity, s.eccentricity);
  const bool intensity = properties & kPropertyIntensity;
  EXPECT_EQ(g.intensity_mean, intensity ? intensity_mean(c, b) : 0.0);
  EXPECT_EQ(g.intensity_std, intensity ? intensity_std(c, b) : 0.0);
  EXPECT_EQ(g.intensity_min, intensity ? double(b.intensity_min) : 0.0);
  EXPECT_EQ(g.intensity_max, intensity ? double(b.intensity_max) : 0.0);
  for (int k = 0; k < 3; ++k)
    EXPECT_EQ(g.color_mean[k], properties & kPropertyColor ? channel_mean(c, b, k) : 0.0) << k;
  const bool perim = properties & kPropertyPerimeter;
  EXPECT_EQ(g.perimeter, perim ? perimeter(b) : 0.0);
  EXPECT_EQ(g.circularity, perim ? circularity(c, b) : 0.0);
  EXPECT_EQ(g.euler_number, properties & kPropertyEuler ? b.euler : 0);
}

// gtest assertions: the meta of `out` reports what the reference reports for `frame`
// with `options`, and each component's blob is the reference's.
void expect_blobs_match_reference(GstBuffer* out, const Frame& frame, const Options& options) {
  const Result ref = reference_of(frame, options);
  expect_meta_matches(out, ref, frame.view.width, frame.view.height, options, "components");
  ASSERT_NE(out, nullptr);
  const GstCclMeta* meta = gst_ccl_meta_get(out);
  ASSERT_NE(meta, nullptr);
  ASSERT_EQ(meta->n_components, ref.components.size());
  if (ref.components.empty()) return;
  ASSERT_NE(meta->blobs, nullptr);
  const uint32_t groups = needed_properties(options);
  ASSERT_EQ(ref.blobs.size(), groups ? ref.components.size() : 0u);
  const Blob none;
  for (guint i = 0; i < meta->n_components; ++i) {
    EXPECT_EQ(gst_ccl_meta_get_blob(meta, i), &meta->blobs[i]);
    expect_blob(meta->blobs[i], ref.components[i], groups ? ref.blobs[i] : none, groups);
  }
}

// The luma of a frame, as the filters see it: a sanity check that the scene is what
// the filter tests assume.
TEST(BlobScene, HoldsTheShapesTheFilterTestsAssume) {
  const Frame frame = make_frame(discs_and_bars(), PixelFormat::Gray8);
  const Result ref = reference_of(frame, blob_options());
  ASSERT_EQ(ref.components.size(), 4u);
  for (uint32_t l : {kBrightDisc, kDimDisc}) {
    const Component& c = ref.components[l - 1];
    EXPECT_GT(circularity(c, ref.blobs[l - 1]), 0.6) << l;
    EXPECT_LT(eccentricity(c), 0.5) << l;
  }
  for (uint32_t l : {kBrightBar, kDimBar}) {
    const Component& c = ref.components[l - 1];
    EXPECT_LT(circularity(c, ref.blobs[l - 1]), 0.5) << l;
    EXPECT_GT(eccentricity(c), 0.9) << l;
  }
  for (uint32_t l : {kBrightBar, kBrightDisc})
    EXPECT_GT(intensity_mean(ref.components[l - 1], ref.blobs[l - 1]), 170) << l;
  for (uint32_t l : {kDimBar, kDimDisc})
    EXPECT_LT(intensity_mean(ref.components[l - 1], ref.blobs[l - 1]), 170) << l;
  EXPECT_EQ(ref.blobs[kBrightDisc - 1].euler, 0) << "the hole";
  EXPECT_EQ(ref.blobs[kDimDisc - 1].euler, 1);
}

GParamSpec* pspec(GstElement* e, const char* name) {
  return g_object_class_find_property(G_OBJECT_GET_CLASS(e), name);
}

const char* const kFilters[] = {"min-circularity", "max-circularity", "min-intensity",
                                "max-intensity",   "min-eccentricity", "max-eccentricity"};

TEST(BlobProperties, DefaultsRangesNicksAndBlurbs) {
  GstElement* e = gst_element_factory_make("cudaccl", nullptr);
  ASSERT_NE(e, nullptr);
  GParamSpec* props = pspec(e, "blob-properties");
  ASSERT_NE(props, nullptr);
  EXPECT_EQ(G_PARAM_SPEC_VALUE_TYPE(props), GST_TYPE_CCL_BLOB_PROPERTIES);
  guint flags = 99;
  g_object_get(e, "blob-properties", &flags, nullptr);
  EXPECT_EQ(flags, 0u) << "none by default";
  // gst-launch syntax.
  gst_util_set_object_arg(G_OBJECT(e), "blob-properties", "intensity+perimeter");
  g_object_get(e, "blob-properties", &flags, nullptr);
  EXPECT_EQ(flags, guint(kPropertyIntensity | kPropertyPerimeter));
  gst_util_set_object_arg(G_OBJECT(e), "blob-properties", "color+euler");
  g_object_get(e, "blob-properties", &flags, nullptr);
  EXPECT_EQ(flags, guint(kPropertyColor | kPropertyEuler));

  const double tops[] = {1e6, 1e6, 65535, 65535, 1, 1};
  for (size_t i = 0; i < G_N_ELEMENTS(kFilters); ++i) {
    GParamSpec* p = pspec(e, kFilters[i]);
    ASSERT_NE(p, nullptr) << kFilters[i];
    auto* d = G_PARAM_SPEC_DOUBLE(p);
    EXPECT_EQ(d->minimum, 0.0) << kFilters[i];
    EXPECT_EQ(d->maximum, tops[i]) << kFilters[i];
    EXPECT_EQ(d->default_value, 0.0) << kFilters[i];
    gdouble v = -1;
    g_object_get(e, kFilters[i], &v, nullptr);
    EXPECT_EQ(v, 0.0) << kFilters[i];
    EXPECT_GT(strlen(g_param_spec_get_blurb(p)), 80u) << kFilters[i];
  }
  EXPECT_NE(std::string(g_param_spec_get_blurb(props)).find("scikit-image"), std::string::npos);
  // Why eccentricity and not OpenCV's inertia ratio, where users look for it.
  for (const char* name : {"min-eccentricity", "max-eccentricity"}) {
    const std::string blurb = g_param_spec_get_blurb(pspec(e, name));
    EXPECT_NE(blurb.find("inertia ratio"), std::string::npos) << name;
    EXPECT_NE(blurb.find("scikit-image's column name"), std::string::npos) << name;
  }
  gst_object_unref(e);
}

// Counts the GLib-GObject warnings that refused property values produce.
class WarningCounter {
 public:
  WarningCounter() {
    id_ = g_log_set_handler("GLib-GObject", GLogLevelFlags(G_LOG_LEVEL_WARNING | G_LOG_LEVEL_CRITICAL),
                            [](const gchar*, GLogLevelFlags, const gchar*, gpointer self) {
                              ++static_cast<WarningCounter*>(self)->count;
                            },
                            this);
  }
  ~WarningCounter() { g_log_remove_handler("GLib-GObject", id_); }
  int count = 0;

 private:
  guint id_;
};

TEST(BlobProperties, OutOfRangeValuesAreRefused) {
  GstElement* e = gst_element_factory_make("cudaccl", nullptr);
  ASSERT_NE(e, nullptr);
  g_object_set(e, "min-circularity", 0.5, "max-intensity", 200.0, "max-eccentricity", 0.75,
               nullptr);
  WarningCounter warnings;
  g_object_set(e, "min-circularity", -0.1, nullptr);
  g_object_set(e, "max-circularity", 1.5e6, nullptr);
  g_object_set(e, "min-intensity", -1.0, nullptr);
  g_object_set(e, "max-intensity", 65536.0, nullptr);
  g_object_set(e, "min-eccentricity", -0.01, nullptr);
  g_object_set(e, "max-eccentricity", 1.01, nullptr);
  g_object_set(e, "blob-properties", 0x10u, nullptr);
  EXPECT_EQ(warnings.count, 7);
  gdouble min_circ, max_circ, min_int, max_int, min_ecc, max_ecc;
  guint flags;
  g_object_get(e, "min-circularity", &min_circ, "max-circularity", &max_circ, "min-intensity",
               &min_int, "max-intensity", &max_int, "min-eccentricity", &min_ecc,
               "max-eccentricity", &max_ecc, "blob-properties", &flags, nullptr);
  EXPECT_EQ(min_circ, 0.5);
  EXPECT_EQ(max_circ, 0.0);
  EXPECT_EQ(min_int, 0.0);
  EXPECT_EQ(max_int, 200.0);
  EXPECT_EQ(min_ecc, 0.0);
  EXPECT_EQ(max_ecc, 0.75);
  EXPECT_EQ(flags, 0u);
  gst_object_unref(e);
}

TEST(BlobProperties, AMaxBelowItsMinIsASettingsErrorNamingTheFilter) {
  SKIP_UNLESS_BACKEND_RUNS();
  const Frame frame = make_frame(discs_and_bars(), PixelFormat::Gray8);
  for (const auto& [props, name] :
       {std::pair<const char*, const char*>{"min-circularity=0.9 max-circularity=0.5", "circularity"},
        {"min-intensity=150 max-intensity=149", "intensity"},
        {"min-eccentricity=0.5 max-eccentricity=0.25", "eccentricity"}}) {
    SCOPED_TRACE(props);
    BlobRun r(props, frame);
    EXPECT_EQ(r.process(frame), nullptr);
    const ErrorMessage err = pop_error(r.harness());
    ASSERT_TRUE(err.posted);
    EXPECT_EQ(err.domain, GST_LIBRARY_ERROR);
    EXPECT_EQ(err.code, GST_LIBRARY_ERROR_SETTINGS);
    EXPECT_NE(err.debug.find(std::string("the ") + name + " filter"), std::string::npos)
        << err.debug;
  }
}

TEST(BlobFilters, MinCircularityKeepsTheRoundOnes) {
  SKIP_UNLESS_BACKEND_RUNS();
  const Frame frame = make_frame(discs_and_bars(), PixelFormat::Gray8);
  GstBuffer* out = run("min-circularity=0.6", frame);
  EXPECT_EQ(labels_of(out), (std::vector<guint>{kBrightDisc, kDimDisc}));
  ASSERT_NE(out, nullptr);
  EXPECT_EQ(gst_ccl_meta_get(out)->total_count, 4u) << "left out, still counted";
  Options o = reference_options(kThreshold);
  o.min_circularity = 0.6;
  expect_blobs_match_reference(out, frame, o);
  // The filter computed the perimeter: the blobs hold it, though not asked for.
  EXPECT_EQ(guint(gst_ccl_meta_get(out)->blobs[0].properties), guint(kPropertyPerimeter));
  gst_buffer_unref(out);

  out = run("max-circularity=0.6", frame);
  EXPECT_EQ(labels_of(out), (std::vector<guint>{kBrightBar, kDimBar}));
  if (out) gst_buffer_unref(out);
}

TEST(BlobFilters, MaxEccentricityDropsTheBars) {
  SKIP_UNLESS_BACKEND_RUNS();
  const Frame frame = make_frame(discs_and_bars(), PixelFormat::Gray8);
  GstBuffer* out = run("max-eccentricity=0.5", frame);
  EXPECT_EQ(labels_of(out), (std::vector<guint>{kBrightDisc, kDimDisc}));
  Options o = reference_options(kThreshold);
  o.max_eccentricity = 0.5;
  expect_blobs_match_reference(out, frame, o);
  // A shape filter alone computes no group: the blobs hold the shape only.
  ASSERT_NE(out, nullptr);
  ASSERT_NE(gst_ccl_meta_get(out)->blobs, nullptr);
  EXPECT_EQ(guint(gst_ccl_meta_get(out)->blobs[1].properties), 0u);
  EXPECT_LT(gst_ccl_meta_get(out)->blobs[1].eccentricity, 0.5);
  gst_buffer_unref(out);

  out = run("min-eccentricity=0.9", frame);
  EXPECT_EQ(labels_of(out), (std::vector<guint>{kBrightBar, kDimBar}));
  if (out) gst_buffer_unref(out);
}

TEST(BlobFilters, MinAndMaxIntensitySelectByBrightness) {
  SKIP_UNLESS_BACKEND_RUNS();
  const Frame frame = make_frame(discs_and_bars(), PixelFormat::Gray8);
  struct Case {
    const char* props;
    std::vector<guint> want;
    double min, max;
  };
  for (const Case& c : {Case{"min-intensity=170", {kBrightBar, kBrightDisc}, 170, 0},
                        Case{"max-intensity=170", {kDimBar, kDimDisc}, 0, 170},
                        Case{"min-intensity=100 max-intensity=170", {kDimBar, kDimDisc}, 100, 170},
                        Case{"min-intensity=250", {}, 250, 0}}) {
    SCOPED_TRACE(c.props);
    GstBuffer* out = run(c.props, frame);
    EXPECT_EQ(labels_of(out), c.want);
    Options o = reference_options(kThreshold);
    o.min_intensity = c.min;
    o.max_intensity = c.max;
    expect_blobs_match_reference(out, frame, o);
    if (out) gst_buffer_unref(out);
  }
  // GRAY16_LE compares in its own range: luma x 257.
  const Frame wide = make_frame(discs_and_bars(), PixelFormat::Gray16LE);
  GstBuffer* out = run("min-intensity=43690", wide);  // 170 * 257
  EXPECT_EQ(labels_of(out), (std::vector<guint>{kBrightBar, kBrightDisc}));
  if (out) gst_buffer_unref(out);
}

TEST(BlobFilters, ComeBeforeMaxComponentsAndGroupsKeepTheirBlobs) {
  SKIP_UNLESS_BACKEND_RUNS();
  const Frame frame = make_frame(discs_and_bars(), PixelFormat::Gray8);
  struct Case {
    std::string props;
    Options options;
  };
  Options capped = blob_options();
  capped.max_components = 2;  // largest first: the blobs must follow the reordering
  Options filtered_cap = blob_options();
  filtered_cap.max_eccentricity = 0.5;
  filtered_cap.max_components = 1;
  Options grouped = blob_options();
  grouped.group_gap = 40;  // the bright bar and disc become one, the dim pair another
  for (const Case& c :
       {Case{std::string(kAllGroupsArg) + " max-components=2", capped},
        Case{std::string(kAllGroupsArg) + " max-eccentricity=0.5 max-components=1", filtered_cap},
        Case{std::string(kAllGroupsArg) + " group-gap=40", grouped}}) {
    SCOPED_TRACE(c.props);
    GstBuffer* out = run(c.props, frame);
    expect_blobs_match_reference(out, frame, c.options);
    if (out) gst_buffer_unref(out);
  }
}

class BlobFormats : public ::testing::TestWithParam<PixelFormat> {};

TEST_P(BlobFormats, EveryBlobEqualsTheReference) {
  SKIP_UNLESS_BACKEND_RUNS();
  // Padded rows (poisoned): a blob summed over padding shows.
  const Frame frame = make_frame(discs_and_bars(), GetParam(), 8);
  GstBuffer* out = run(kAllGroupsArg, frame);
  expect_blobs_match_reference(out, frame, blob_options());
  ASSERT_NE(out, nullptr);
  EXPECT_EQ(gst_ccl_meta_get(out)->n_components, 4u);
  gst_buffer_unref(out);
}

INSTANTIATE_TEST_SUITE_P(AllFormats, BlobFormats, ::testing::ValuesIn(test::all_formats()),
                         [](const ::testing::TestParamInfo<PixelFormat>& info) {
                           return std::string(to_string(info.param));
                         });

TEST(Blobs, ColorMeansAreEachChannels) {
  SKIP_UNLESS_BACKEND_RUNS();
  // One 6 x 4 block of (200, 60, 120) on black: R, G, B means exactly those.
  const Frame frame = channel_frame(PixelFormat::RGBA, 16, 8, [](int x, int y) {
    return x >= 4 && x < 10 && y >= 2 && y < 6 ? Channels{200, 60, 120} : Channels{};
  });
  GstBuffer* out = run("blob-properties=color", frame);
  ASSERT_NE(out, nullptr);
  const GstCclBlob* b = gst_ccl_meta_get_blob(gst_ccl_meta_get(out), 0);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(guint(b->properties), guint(kPropertyColor));
  EXPECT_EQ(b->color_mean[0], 200.0);
  EXPECT_EQ(b->color_mean[1], 60.0);
  EXPECT_EQ(b->color_mean[2], 120.0);
  EXPECT_EQ(b->intensity_mean, 0.0) << "not asked for";
  gst_buffer_unref(out);
}

TEST(Blobs, NoneWithoutPropertiesOrFilters) {
  SKIP_UNLESS_BACKEND_RUNS();
  const Frame frame = make_frame(discs_and_bars(), PixelFormat::Gray8);
  BlobRun r("post-messages=true", frame);
  GstBuffer* out = r.process(frame);
  ASSERT_NE(out, nullptr);
  const GstCclMeta* meta = gst_ccl_meta_get(out);
  ASSERT_EQ(meta->n_components, 4u);
  EXPECT_EQ(meta->blobs, nullptr);
  EXPECT_EQ(gst_ccl_meta_get_blob(meta, 0), nullptr);
  GstVideoRegionOfInterestMeta* roi = gst_buffer_get_video_region_of_interest_meta(out);
  ASSERT_NE(roi, nullptr);
  EXPECT_EQ(gst_video_region_of_interest_meta_get_param(roi, "cudaccl-blob"), nullptr);
  GstMessage* msg = r.harness().pop_message(GST_MESSAGE_ELEMENT);
  ASSERT_NE(msg, nullptr);
  const GstStructure* s = gst_message_get_structure(msg);
  for (const char* f : {"blob-properties", "orientation", "intensity-mean", "perimeter"})
    EXPECT_FALSE(gst_structure_has_field(s, f)) << f;
  gst_message_unref(msg);
  gst_buffer_unref(out);
}

// The double (or, for euler-number, int) a message list or ROI structure holds.
double number(const GValue* v) {
  return G_VALUE_HOLDS_INT(v) ? double(g_value_get_int(v)) : g_value_get_double(v);
}

struct BlobField {
  const char* name;
  uint32_t group;  // 0: the shape, always there
  double (*get)(const GstCclBlob&);
};

const BlobField kBlobFields[] = {
    {"intensity-mean", kPropertyIntensity, [](const GstCclBlob& b) { return b.intensity_mean; }},
    {"intensity-std", kPropertyIntensity, [](const GstCclBlob& b) { return b.intensity_std; }},
    {"intensity-min", kPropertyIntensity, [](const GstCclBlob& b) { return b.intensity_min; }},
    {"intensity-max", kPropertyIntensity, [](const GstCclBlob& b) { return b.intensity_max; }},
    {"color-mean-0", kPropertyColor, [](const GstCclBlob& b) { return b.color_mean[0]; }},
    {"color-mean-1", kPropertyColor, [](const GstCclBlob& b) { return b.color_mean[1]; }},
    {"color-mean-2", kPropertyColor, [](const GstCclBlob& b) { return b.color_mean[2]; }},
    {"perimeter", kPropertyPerimeter, [](const GstCclBlob& b) { return b.perimeter; }},
    {"circularity", kPropertyPerimeter, [](const GstCclBlob& b) { return b.circularity; }},
    {"euler-number", kPropertyEuler, [](const GstCclBlob& b) { return double(b.euler_number); }},
    {"orientation", 0, [](const GstCclBlob& b) { return b.orientation; }},
    {"axis-major-length", 0, [](const GstCclBlob& b) { return b.axis_major_length; }},
    {"axis-minor-length", 0, [](const GstCclBlob& b) { return b.axis_minor_length; }},
    {"eccentricity", 0, [](const GstCclBlob& b) { return b.eccentricity; }},
};

TEST(BlobMessages, CarryEachFieldOfTheGroupsAskedForAlignedWithLabels) {
  SKIP_UNLESS_BACKEND_RUNS();
  const Frame frame = make_frame(discs_and_bars(), PixelFormat::Gray8);
  for (const uint32_t groups : {kAllGroups, uint32_t(kPropertyPerimeter)}) {
    const std::string props = groups == kAllGroups ? kAllGroupsArg : "blob-properties=perimeter";
    SCOPED_TRACE(props);
    BlobRun r(props + " post-messages=true max-components=3", frame);
    GstBuffer* out = r.process(frame);
    ASSERT_NE(out, nullptr);
    const GstCclMeta* meta = gst_ccl_meta_get(out);
    ASSERT_EQ(meta->n_components, 3u);
    ASSERT_NE(meta->blobs, nullptr);
    GstMessage* msg = r.harness().pop_message(GST_MESSAGE_ELEMENT);
    ASSERT_NE(msg, nullptr);
    const GstStructure* s = gst_message_get_structure(msg);
    const GValue* flags = gst_structure_get_value(s, "blob-properties");
    ASSERT_NE(flags, nullptr);
    ASSERT_TRUE(G_VALUE_HOLDS(flags, GST_TYPE_CCL_BLOB_PROPERTIES));
    EXPECT_EQ(g_value_get_flags(flags), groups);
    for (const BlobField& f : kBlobFields) {
      const GValue* arr = gst_structure_get_value(s, f.name);
      if (f.group && !(groups & f.group)) {
        EXPECT_EQ(arr, nullptr) << f.name << ": a group not asked for";
        continue;
      }
      ASSERT_NE(arr, nullptr) << f.name;
      ASSERT_TRUE(GST_VALUE_HOLDS_ARRAY(arr)) << f.name;
      ASSERT_EQ(gst_value_array_get_size(arr), meta->n_components) << f.name;
      for (guint i = 0; i < meta->n_components; ++i)
        EXPECT_EQ(number(gst_value_array_get_value(arr, i)), f.get(meta->blobs[i]))
            << f.name << " " << i;
    }
    // The message reads back from its text (what gst-launch-1.0 -m prints).
    gchar* text = gst_structure_to_string(s);
    GstStructure* back = gst_structure_from_string(text, nullptr);
    EXPECT_NE(back, nullptr) << text;
    if (back) {
      EXPECT_TRUE(gst_structure_has_field(back, "eccentricity"));
      gst_structure_free(back);
    }
    g_free(text);
    gst_message_unref(msg);
    gst_buffer_unref(out);
  }
}

TEST(BlobRoi, EachRoiMetaHoldsItsComponentsBlob) {
  SKIP_UNLESS_BACKEND_RUNS();
  const Frame frame = make_frame(discs_and_bars(), PixelFormat::Gray8);
  // Two ROI metas: the largest two (the discs), in the reported order.
  GstBuffer* out = run(std::string(kAllGroupsArg) + " max-roi-metas=2", frame);
  ASSERT_NE(out, nullptr);
  const GstCclMeta* meta = gst_ccl_meta_get(out);
  ASSERT_NE(meta->blobs, nullptr);
  gpointer state = nullptr;
  GstMeta* m;
  guint seen = 0;
  while ((m = gst_buffer_iterate_meta_filtered(out, &state,
                                               GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
    auto* roi = reinterpret_cast<GstVideoRegionOfInterestMeta*>(m);
    guint label = 0;
    ASSERT_TRUE(gst_structure_get_uint(
        gst_video_region_of_interest_meta_get_param(roi, "ccl-component"), "label", &label));
    guint index = 0;
    while (index < meta->n_components && meta->components[index].label != label) ++index;
    ASSERT_LT(index, meta->n_components);
    SCOPED_TRACE("label " + std::to_string(label));
    const GstStructure* s = gst_video_region_of_interest_meta_get_param(roi, "cudaccl-blob");
    ASSERT_NE(s, nullptr);
    const GValue* flags = gst_structure_get_value(s, "properties");
    ASSERT_TRUE(flags && G_VALUE_HOLDS(flags, GST_TYPE_CCL_BLOB_PROPERTIES));
    EXPECT_EQ(g_value_get_flags(flags), kAllGroups);
    for (const BlobField& f : kBlobFields) {
      const GValue* v = gst_structure_get_value(s, f.name);
      ASSERT_NE(v, nullptr) << f.name;
      EXPECT_EQ(number(v), f.get(meta->blobs[index])) << f.name;
    }
    ++seen;
  }
  EXPECT_EQ(seen, 2u);
  gst_buffer_unref(out);
}

TEST(BlobMeta, BufferCopiesKeepTheElementsBlobs) {
  SKIP_UNLESS_BACKEND_RUNS();
  const Frame frame = make_frame(discs_and_bars(), PixelFormat::Gray8);
  GstBuffer* out = run(kAllGroupsArg, frame);
  ASSERT_NE(out, nullptr);
  GstBuffer* copy = gst_buffer_copy(out);
  const GstCclMeta *a = gst_ccl_meta_get(out), *b = gst_ccl_meta_get(copy);
  ASSERT_NE(b, nullptr);
  ASSERT_NE(b->blobs, nullptr);
  EXPECT_NE(b->blobs, a->blobs);
  for (guint i = 0; i < a->n_components; ++i) {
    EXPECT_EQ(b->blobs[i].perimeter, a->blobs[i].perimeter) << i;
    EXPECT_EQ(b->blobs[i].euler_number, a->blobs[i].euler_number) << i;
    EXPECT_EQ(b->blobs[i].intensity_std, a->blobs[i].intensity_std) << i;
  }
  gst_buffer_unref(copy);
  gst_buffer_unref(out);
}

}  // namespace
}  // namespace ccl::element_test
