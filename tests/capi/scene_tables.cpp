// scene-tables OUT_DIR: the tracking scenes (tests/common/scenes.h) for the Python
// tests (tests/python/tracker_test.py): each scene's frames as raw Gray8
// (OUT_DIR/NAME.raw, frames * height * width bytes), and OUT_DIR/tables.txt with each
// frame's reference component table and the ids ccl::Tracker gives them:
//
//   scene NAME WIDTH HEIGHT FRAMES MAX_LOST
//   frame T COUNT
//   LABEL X Y W H AREA SUM_X SUM_Y SUM_XX SUM_XY SUM_YY ID PARENT AGE UNSEEN   (COUNT lines)
//
// Every scene is written once per max_lost setting (the tracker's default and a short one).
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "ccl/tracker.h"
#include "scenes.h"

namespace {

struct Named {
  const char* name;
  ccl::test::Scene scene;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: scene-tables OUT_DIR\n");
    return 2;
  }
  const std::string dir = argv[1];
  using namespace ccl::test;
  const std::vector<Named> scenes = {
      {"crossing", crossing_scene()},
      {"parallel", parallel_scene()},
      {"fast_disc", fast_disc_scene()},
      {"split", split_scene()},
      {"merge_resplit", merge_resplit_scene()},
      {"vanish", vanish_scene(5)},
      {"walkers", random_walkers_scene(160, 120, 14, 40, 11)},
  };
  std::ofstream tables(dir + "/tables.txt");
  if (!tables) {
    std::fprintf(stderr, "scene-tables: cannot write %s/tables.txt\n", dir.c_str());
    return 1;
  }
  for (const Named& n : scenes) {
    const Scene& s = n.scene;
    std::ofstream raw(dir + "/" + n.name + ".raw", std::ios::binary);
    for (size_t t = 0; t < s.frames.size(); ++t) {
      const GrayImage g = render(s, t);
      raw.write(reinterpret_cast<const char*>(g.pixels.data()), std::streamsize(g.pixels.size()));
    }
    const std::vector<LabeledFrame> frames = label_scene(s);
    for (int max_lost : {ccl::TrackerOptions{}.max_lost, 2}) {
      tables << "scene " << n.name << ' ' << s.width << ' ' << s.height << ' ' << frames.size()
             << ' ' << max_lost << '\n';
      ccl::TrackerOptions options;
      options.max_lost = max_lost;
      ccl::Tracker tracker(options);
      std::vector<ccl::TrackInfo> tracks;
      for (size_t t = 0; t < frames.size(); ++t) {
        const std::vector<ccl::Component>& cs = frames[t].components;
        tracker.update(s.width, s.height, cs, tracks);
        tables << "frame " << t << ' ' << cs.size() << '\n';
        for (size_t i = 0; i < cs.size(); ++i) {
          const ccl::Component& c = cs[i];
          tables << c.label << ' ' << c.x << ' ' << c.y << ' ' << c.width << ' ' << c.height
                 << ' ' << c.area << ' ' << c.sum_x << ' ' << c.sum_y << ' ' << c.sum_xx << ' '
                 << c.sum_xy << ' ' << c.sum_yy << ' ' << tracks[i].id << ' '
                 << tracks[i].parent_id << ' ' << tracks[i].age << ' ' << tracks[i].frames_unseen
                 << '\n';
        }
      }
    }
  }
  return tables.good() ? 0 : 1;
}
