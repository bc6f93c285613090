// Tracking fed by the CUDA engine: for every synthetic scene, algorithm and
// connectivity, each frame's table from the GPU equals the reference's, and the
// tracker gives the same ids, parents, ages and velocities as when it is fed the
// reference's tables. (The tracker is host code; what this guards is that nothing the
// GPU returns, order included, can make the ids differ between backends.)
#include <functional>

#include "gpu_test_support.h"
#include "ccl/tracker.h"
#include "scenes.h"

namespace ccl::gpu_test {
namespace {

struct NamedScene {
  const char* name;
  std::function<test::Scene()> make;
};

const std::vector<NamedScene>& scenes() {
  static const std::vector<NamedScene> all = {
      {"crossing", test::crossing_scene},
      {"parallel", test::parallel_scene},
      {"fast", test::fast_disc_scene},
      {"split", test::split_scene},
      {"merge_resplit", test::merge_resplit_scene},
      {"vanish_5", [] { return test::vanish_scene(5); }},
      {"walkers_300", [] { return test::random_walkers_scene(640, 480, 300, 20, 7); }},
  };
  return all;
}

void expect_same_tracks(const std::vector<TrackInfo>& gpu, const std::vector<TrackInfo>& ref,
                        const std::string& where) {
  ASSERT_EQ(gpu.size(), ref.size()) << where;
  for (size_t i = 0; i < gpu.size(); ++i) {
    EXPECT_EQ(gpu[i].id, ref[i].id) << where << " component " << i;
    EXPECT_EQ(gpu[i].parent_id, ref[i].parent_id) << where << " component " << i;
    EXPECT_EQ(gpu[i].age, ref[i].age) << where << " component " << i;
    EXPECT_EQ(gpu[i].frames_unseen, ref[i].frames_unseen) << where << " component " << i;
    EXPECT_EQ(gpu[i].velocity_x, ref[i].velocity_x) << where << " component " << i;
    EXPECT_EQ(gpu[i].velocity_y, ref[i].velocity_y) << where << " component " << i;
    EXPECT_EQ(gpu[i].predicted_x, ref[i].predicted_x) << where << " component " << i;
    EXPECT_EQ(gpu[i].predicted_y, ref[i].predicted_y) << where << " component " << i;
  }
}

TEST(GpuTracking, EngineTablesGiveTheReferenceTracks) {
  CCL_REQUIRE_DEVICE();
  for (const NamedScene& named : scenes()) {
    const test::Scene scene = named.make();
    for (Algorithm algorithm : all_algorithms())
      for (int connectivity : {4, 8}) {
        const Options options =
            make_options(algorithm, connectivity, ThresholdMode::Above);
        Tracker on_gpu, on_reference;
        std::vector<TrackInfo> gpu_tracks, ref_tracks;
        for (size_t t = 0; t < scene.frames.size(); ++t) {
          const test::Frame frame =
              test::make_frame(test::render(scene, t), PixelFormat::Gray8);
          const std::string where = std::string(named.name) + " " + describe(options) +
                                    " frame " + std::to_string(t);
          const Result want = reference(frame.view, options);
          Result got;
          engine().label_host(frame.view, options, got);
          ASSERT_EQ(difference(got, want), "") << where;
          on_gpu.update(scene.width, scene.height, got.components, gpu_tracks);
          on_reference.update(scene.width, scene.height, want.components, ref_tracks);
          expect_same_tracks(gpu_tracks, ref_tracks, where);
          if (HasFailure()) return;
        }
      }
  }
}

}  // namespace
}  // namespace ccl::gpu_test
