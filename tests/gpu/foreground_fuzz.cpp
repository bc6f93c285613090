#include "foreground_fuzz.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "fuzz_frames.h"
#include "splitmix.h"

namespace ccl::test {

namespace {

// The fuzz generator's stream, salted apart from the others (splitmix.h).
struct Rng : SplitMixRng {
  explicit Rng(uint64_t seed) : SplitMixRng(seed, 0xF0E1D2C3B4A59687ull) {}
};

int radius(Rng& rng) {
  const int r = rng.range(0, 99);
  return r < 50 ? 0 : r < 85 ? rng.range(1, 3) : rng.range(4, kMaxCleanupRadius);
}

const char* model_name(ForegroundModel m) { return to_string(m); }

}  // namespace

ForegroundFuzzCase random_foreground_case(uint64_t seed, int max_side) {
  Rng rng(seed);
  ForegroundFuzzCase c;
  c.seed = seed;
  max_side = std::max(1, max_side);
  const int medium = std::min(max_side, 640);
  switch (rng.range(0, 19)) {
    case 0:
    case 1:
      c.width = rng.range(1, 9), c.height = rng.range(1, 9);
      break;
    case 2:
      c.width = rng.range(1, medium), c.height = 1;
      break;
    case 3:
      c.width = 1, c.height = rng.range(1, medium);
      break;
    case 4:
    case 5:  // next to multiples of the labelers' strips and tiles
      c.width = std::max(1, 64 * rng.range(1, 12) + rng.range(-1, 1));
      c.height = std::max(1, 4 * rng.range(1, 100) + rng.range(-1, 1));
      break;
    case 6:  // large
      c.width = rng.range(std::min(max_side, 900), std::min(max_side, 1280));
      c.height = rng.range(std::min(max_side, 500), std::min(max_side, 720));
      break;
    default:
      c.width = rng.range(2, medium) | 1;  // odd sides
      c.height = rng.range(2, std::min(max_side, 480)) | 1;
  }
  c.width = std::clamp(c.width, 1, max_side);
  c.height = std::clamp(c.height, 1, max_side);
  const std::vector<PixelFormat>& formats = all_formats();
  c.format = formats[size_t(rng.range(0, int(formats.size()) - 1))];
  const int bpp = luma_bytes_per_pixel(c.format), pad = rng.range(0, 9);
  c.padding = pad < 4 ? 0 : pad < 8 ? bpp * rng.range(1, 40) : rng.range(1, 257);
  c.algorithm = algorithms()[size_t(rng.range(0, int(algorithms().size()) - 1))].id;
  c.connectivity = rng.chance(50) ? 4 : 8;
  c.frames = rng.range(2, 20);
  c.write_labels = rng.chance(85);
  if (rng.chance(15)) {
    c.model = ForegroundModel::Threshold;
    const int m = rng.range(0, 2);
    c.mode = m == 0 ? ThresholdMode::Above : m == 1 ? ThresholdMode::Below : ThresholdMode::Otsu;
    c.level = rng.range(0, 255);
  } else if (rng.chance(20)) {
    c.model = ForegroundModel::Local;
    c.mode = rng.chance(50) ? ThresholdMode::Above : ThresholdMode::Below;
    c.block_size = 2 * (rng.chance(70) ? rng.range(1, 32) : rng.range(1, 127)) + 1;
    c.offset_tenths = rng.chance(60) ? rng.range(-300, 300) : 10 * rng.range(-255, 255);
  }
  if (c.model == ForegroundModel::Background && rng.chance(15)) {
    // The color range (issue 28): a color format, a hue band that may wrap around red.
    c.model = ForegroundModel::Color;
    if (c.format == PixelFormat::Gray8 || c.format == PixelFormat::Gray16LE)
      c.format = rng.pick({PixelFormat::NV12, PixelFormat::I420, PixelFormat::RGBA, PixelFormat::BGRx});
    c.color.low[0] = rng.range(0, 179);
    c.color.high[0] = rng.chance(30) ? rng.range(0, 179) : std::min(179, c.color.low[0] + rng.range(10, 90));
    for (int k = 1; k < 3; ++k) {
      c.color.low[k] = rng.chance(30) ? 0 : rng.range(0, 160);
      c.color.high[k] = rng.chance(50) ? 255 : rng.range(c.color.low[k], 255);
    }
  }
  c.history = rng.chance(60) ? rng.pick({1, 2, 3, 5, 8, 20, 100, 500}) : rng.range(1, 2000);
  const int rate = rng.range(0, 9);
  c.rate_ppm = rate < 6 ? -1 : rate == 6 ? 0
             : rate == 7 ? rng.pick({1, 100, 1000, 10000, 50000, 250000, 1000000})
                         : rng.range(1, 1000000);
  c.variance_threshold =
      rng.chance(60) ? rng.pick({1, 2, 4, 9, 16, 25, 64, 128, 255}) : rng.range(1, 255);
  // With short histories the shadow test hides new objects (a rate of 0.1 or more:
  // foreground_test.cpp, model_options), so they mostly run without it.
  c.shadows = rng.chance(c.history < 20 && c.rate_ppm < 0 ? 25 : 70);
  c.open_radius = radius(rng);
  c.close_radius = radius(rng);
  if (c.model == ForegroundModel::Threshold && rng.chance(60) && !c.open_radius && !c.close_radius)
    c.close_radius = rng.range(1, 3);
  if (rng.chance(25)) {
    c.region = rng.next() | 1;
    if (rng.chance(30)) c.region_clear = rng.range(1, c.frames - 1);
  }
  if (rng.chance(15)) c.reset = rng.range(1, c.frames - 1);
  if (rng.chance(35)) {
    c.min_area = uint64_t(rng.pick({0, 1, 2, 5, 20, 100}));
    if (rng.chance(50)) c.max_area = uint64_t(rng.pick({1, 3, 10, 50, 200, 1000, 100000}));
    if (rng.chance(40)) c.max_components = uint32_t(rng.pick({0, 1, 3, 10, 100}));
  }
  c.compensate = rng.chance(80);
  if (rng.chance(25)) c.group_gap = rng.pick({0, 1, 3, 8, 20, 100});
  if (rng.chance(20)) {
    c.step_at = rng.range(1, c.frames - 1);
    c.step = rng.pick({-90, -60, -20, -4, 4, 20, 60, 90});
  }
  c.objects = rng.chance(10) ? 0 : rng.range(1, 12);
  c.noise = rng.chance(70) ? rng.range(0, 4) : rng.range(5, 12);
  c.drift = rng.chance(15) ? rng.range(-3, 3) : 0;
  c.scene_shadows = rng.chance(80);
  return c;
}

std::string to_line(const ForegroundFuzzCase& c) {
  std::ostringstream s;
  s << "foreground seed=" << c.seed << " size=" << c.width << "x" << c.height
    << " format=" << to_string(c.format) << " pad=" << c.padding
    << " algo=" << to_string(c.algorithm) << " conn=" << c.connectivity << " frames=" << c.frames
    << " labels=" << (c.write_labels ? 1 : 0) << " model=" << model_name(c.model)
    << " mode=" << to_string(c.mode) << " level=" << c.level << " block=" << c.block_size
    << " offset_tenths=" << c.offset_tenths << " history=" << c.history
    << " rate_ppm=" << c.rate_ppm << " var=" << c.variance_threshold
    << " shadows=" << (c.shadows ? 1 : 0) << " light=" << (c.compensate ? 1 : 0) << " hsv_low=" << c.color.low[0] << ","
    << c.color.low[1] << "," << c.color.low[2] << " hsv_high=" << c.color.high[0] << ","
    << c.color.high[1] << "," << c.color.high[2] << " open=" << c.open_radius
    << " close=" << c.close_radius << " region=" << c.region
    << " region_clear=" << c.region_clear << " reset=" << c.reset << " min_area=" << c.min_area
    << " max_area=" << c.max_area << " max_comp=" << c.max_components
    << " group=" << c.group_gap
    << " objects=" << c.objects << " noise=" << c.noise << " drift=" << c.drift
    << " scene_shadows=" << (c.scene_shadows ? 1 : 0) << " step_at=" << c.step_at
    << " step=" << c.step;
  return s.str();
}

bool is_foreground_line(const std::string& line) {
  std::istringstream words(line);
  std::string first;
  return words >> first && first == "foreground";
}

bool parse_foreground_case(const std::string& line, ForegroundFuzzCase* out, std::string* why) {
  auto fail = [&](const std::string& text) {
    if (why) *why = text;
    return false;
  };
  if (!is_foreground_line(line)) return fail("not a foreground case (no leading 'foreground')");
  ForegroundFuzzCase c;
  std::istringstream words(line);
  std::string first;
  words >> first;  // "foreground"
  const bool read = read_key_values(words, [&](const std::string& key, const std::string& v) {
    bool ok = true;
    if (key == "seed") c.seed = std::stoull(v);
    else if (key == "size") ok = parse_int_pair(v, 'x', &c.width, &c.height);
    else if (key == "format") ok = parse_format(v, &c.format);
    else if (key == "pad") c.padding = std::stoi(v);
    else if (key == "algo") ok = parse(v, &c.algorithm);
    else if (key == "conn") c.connectivity = std::stoi(v);
    else if (key == "frames") c.frames = std::stoi(v);
    else if (key == "labels") c.write_labels = std::stoi(v) != 0;
    else if (key == "model") ok = parse(v, &c.model);
    else if (key == "mode") ok = parse(v, &c.mode);
    else if (key == "level") c.level = std::stoi(v);
    else if (key == "block") c.block_size = std::stoi(v);
    else if (key == "offset_tenths") c.offset_tenths = std::stoi(v);
    else if (key == "history") c.history = std::stoi(v);
    else if (key == "rate_ppm") c.rate_ppm = std::stoi(v);
    else if (key == "var") c.variance_threshold = std::stoi(v);
    else if (key == "shadows") c.shadows = std::stoi(v) != 0;
    else if (key == "light") c.compensate = std::stoi(v) != 0;
    else if (key == "group") c.group_gap = std::stoi(v);
    else if (key == "step_at") c.step_at = std::stoi(v);
    else if (key == "step") c.step = std::stoi(v);
    else if (key == "hsv_low" || key == "hsv_high") {
      int* t = key == "hsv_low" ? c.color.low : c.color.high;
      char tail = 0;
      ok = std::sscanf(v.c_str(), "%d,%d,%d%c", &t[0], &t[1], &t[2], &tail) == 3;
    }
    else if (key == "open") c.open_radius = std::stoi(v);
    else if (key == "close") c.close_radius = std::stoi(v);
    else if (key == "region") c.region = std::stoull(v);
    else if (key == "region_clear") c.region_clear = std::stoi(v);
    else if (key == "reset") c.reset = std::stoi(v);
    else if (key == "min_area") c.min_area = std::stoull(v);
    else if (key == "max_area") c.max_area = std::stoull(v);
    else if (key == "max_comp") c.max_components = uint32_t(std::stoul(v));
    else if (key == "objects") c.objects = std::stoi(v);
    else if (key == "noise") c.noise = std::stoi(v);
    else if (key == "drift") c.drift = std::stoi(v);
    else if (key == "scene_shadows") c.scene_shadows = std::stoi(v) != 0;
    else return FieldRead::UnknownKey;
    return ok ? FieldRead::Ok : FieldRead::BadValue;
  }, why);
  if (!read) return false;
  if (c.width < 1 || c.height < 1) return fail("empty size");
  if (c.padding < 0 || c.frames < 1) return fail("negative padding or no frames");
  *out = c;
  return true;
}

Options foreground_options(const ForegroundFuzzCase& c) {
  Options o;
  o.algorithm = c.algorithm;
  o.connectivity = c.connectivity;
  o.write_labels = c.write_labels;
  o.foreground = c.model;
  o.mode = c.mode;
  o.threshold = c.level;
  o.local.block_size = c.block_size;
  o.local.offset = c.offset_tenths / 10.0;
  o.background.history = c.history;
  o.background.learning_rate = c.rate_ppm < 0 ? -1.0 : c.rate_ppm / 1e6;
  o.background.variance_threshold = c.variance_threshold;
  o.background.detect_shadows = c.shadows;
  o.background.compensate_light = c.compensate;
  o.color = c.color;
  o.open_radius = c.open_radius;
  o.close_radius = c.close_radius;
  o.min_area = c.min_area;
  o.max_area = c.max_area;
  o.max_components = c.max_components;
  o.group_gap = c.group_gap;
  return o;
}

SceneSpec foreground_scene(const ForegroundFuzzCase& c) {
  SceneSpec s;
  s.width = c.width;
  s.height = c.height;
  s.seed = c.seed;
  s.objects = c.objects;
  s.noise = c.noise;
  s.drift = c.drift;
  s.shadows = c.scene_shadows;
  s.step_at = c.step_at;
  s.step = c.step;
  return s;
}

Frame foreground_frame(const Scene& scene, const ForegroundFuzzCase& c, int t) {
  return to_frame(scene.frame(t), c.format, size_t(std::max(0, c.padding)));
}

std::vector<uint8_t> foreground_region(const ForegroundFuzzCase& c, size_t* stride) {
  *stride = size_t(c.width) + size_t(c.region % 7);
  if (!c.region) return {};
  return blob_region(c.width, c.height, c.region, *stride);
}

std::string mask_difference(const std::vector<uint8_t>& gpu, const BinaryImage& cpu) {
  if (gpu.size() != cpu.pixels.size())
    return "mask of " + std::to_string(gpu.size()) + " bytes instead of " +
           std::to_string(cpu.pixels.size());
  size_t first = gpu.size(), count = 0, gpu_on = 0, cpu_on = 0;
  for (size_t i = 0; i < gpu.size(); ++i) {
    gpu_on += gpu[i] != 0;
    cpu_on += cpu.pixels[i] != 0;
    if (gpu[i] != cpu.pixels[i]) {
      if (first == gpu.size()) first = i;
      ++count;
    }
  }
  if (!count) return "";
  const size_t w = size_t(std::max(1, cpu.width));
  std::ostringstream s;
  s << "mask differs at " << count << " pixels, first (" << first % w << ", " << first / w
    << "): " << int(gpu[first]) << " instead of " << int(cpu.pixels[first]) << " (foreground "
    << gpu_on << " pixels on the GPU, " << cpu_on << " on the CPU)";
  return s.str();
}

}  // namespace ccl::test
