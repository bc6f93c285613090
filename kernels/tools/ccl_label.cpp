// ccl-label: labels the connected components of an image file with the CPU labeler (ccl/cpu_labeler.h)
// or the CUDA engine and writes a colored label image (PNG) and the component table
// (CSV), with the blob properties asked for (--properties) and the blob filters. The
// quickest way to see what the engine does to an image.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "ccl/blob.h"
#include "ccl/cpu_labeler.h"
#include "ccl/cuda_engine.h"
#include "ccl/reference.h"
#include "ccl/types.h"

namespace {

// The blob columns --properties adds to the CSV, named as scikit-image's regionprops
// names them, and the property each needs (0: from the moments).
struct BlobColumn {
  const char* name;
  uint32_t property;
};
const BlobColumn kBlobColumns[] = {
    {"intensity_mean", ccl::kPropertyIntensity}, {"intensity_std", ccl::kPropertyIntensity},
    {"intensity_min", ccl::kPropertyIntensity},  {"intensity_max", ccl::kPropertyIntensity},
    {"color_mean-0", ccl::kPropertyColor},       {"color_mean-1", ccl::kPropertyColor},
    {"color_mean-2", ccl::kPropertyColor},       {"perimeter", ccl::kPropertyPerimeter},
    {"circularity", ccl::kPropertyPerimeter},    {"euler_number", ccl::kPropertyEuler},
    {"orientation", 0},                          {"axis_major_length", 0},
    {"axis_minor_length", 0},                    {"eccentricity", 0},
    {"inertia_ratio", 0},
};
constexpr size_t kBlobColumnCount = sizeof(kBlobColumns) / sizeof(kBlobColumns[0]);

// The algorithms are listed from the engine's registry (ccl/algorithms.def).
std::string usage() {
  std::string text =
      "usage: ccl-label [options] IMAGE\n"
      "Labels the connected components of IMAGE (any format OpenCV reads, used as gray\n"
      "unless a color_mean property is asked for) and writes PREFIX-labels.png (one\n"
      "color per component on black) and PREFIX-components.csv (one row per component).\n"
      "\n"
      "  --backend auto|cpu|cuda   engine (default auto: cuda when a device is usable)\n"
      "  --device N                CUDA device (default -1: the current one)\n"
      "  --algorithm NAME          CUDA labeling algorithm (default " +
      std::string(ccl::to_string(ccl::Options{}.algorithm)) + "), one of:\n";
  for (const ccl::AlgorithmInfo& a : ccl::algorithms()) {
    std::string name = a.nick;
    name.resize(std::max<size_t>(name.size(), 18), ' ');
    text += "      " + name + " " + a.title + "\n";
  }
  return text +
      "  --connectivity 4|8        (default 8)\n"
      "  --threshold 0-255         level (default 128)\n"
      "  --mode above|below|otsu   foreground is value > level, value <= level, or above\n"
      "                            Otsu's level (default above)\n"
      "  --properties LIST         blob columns added to the CSV: 'all' or a comma-separated\n"
      "                            list of intensity_mean, intensity_std, intensity_min,\n"
      "                            intensity_max (of the gray values), color_mean-0/1/2 (R, G,\n"
      "                            B means; color_mean for the three: the image is then read\n"
      "                            in color, and its gray values are the BT.601 luma of its\n"
      "                            colors, which the threshold then compares), perimeter,\n"
      "                            circularity, euler_number, orientation, axis_major_length,\n"
      "                            axis_minor_length, eccentricity, inertia_ratio\n"
      "                            (scikit-image's regionprops definitions and units)\n"
      "  --min-circularity X, --max-circularity X, --min-intensity X, --max-intensity X,\n"
      "  --min-eccentricity X, --max-eccentricity X\n"
      "                            report only the components within these inclusive\n"
      "                            bounds (circularity 4 pi area / perimeter^2, mean\n"
      "                            intensity, eccentricity; a max of 0: no limit)\n"
      "  --output PREFIX           output path prefix (default: IMAGE's name without its\n"
      "                            extension, in the current directory)\n"
      "  --repeat N                label N times and report the fastest (default 1)\n"
      "  --help\n";
}

// "a, b or c": the registry's nicks, for error messages.
std::string algorithm_names() {
  const auto& list = ccl::algorithms();
  std::string names;
  for (size_t i = 0; i < list.size(); ++i)
    names += std::string(i == 0 ? "" : i + 1 == list.size() ? " or " : ", ") + list[i].nick;
  return names;
}

enum class Backend { Auto, Cpu, Cuda };

struct Args {
  std::string input;
  std::string prefix;
  Backend backend = Backend::Auto;
  int device = -1;
  int repeat = 1;
  ccl::Options options;
  std::vector<size_t> blob_columns;  // indices into kBlobColumns, in the order asked
};

[[noreturn]] void die(const std::string& message, int code = 1) {
  std::fprintf(stderr, "ccl-label: %s\n", message.c_str());
  std::exit(code);
}

int parse_int(const std::string& flag, const std::string& value, int lo, int hi) {
  char* end = nullptr;
  const long v = std::strtol(value.c_str(), &end, 10);
  if (value.empty() || *end != '\0' || v < lo || v > hi)
    die(flag + " takes an integer in " + std::to_string(lo) + ".." + std::to_string(hi) +
            ", not '" + value + "'",
        2);
  return int(v);
}

double parse_double(const std::string& flag, const std::string& value) {
  char* end = nullptr;
  const double v = std::strtod(value.c_str(), &end);
  if (value.empty() || *end != '\0' || !(v >= 0) || !std::isfinite(v))
    die(flag + " takes a number >= 0, not '" + value + "'", 2);
  return v;
}

// --properties: "all" or names separated by commas, into columns and Property bits.
void parse_properties(const std::string& list, Args& a) {
  size_t start = 0;
  while (start <= list.size()) {
    const size_t comma = std::min(list.find(',', start), list.size());
    const std::string name = list.substr(start, comma - start);
    start = comma + 1;
    std::vector<size_t> picked;
    for (size_t i = 0; i < kBlobColumnCount; ++i)
      if (name == "all" || name == kBlobColumns[i].name ||
          (name == "color_mean" && kBlobColumns[i].property == ccl::kPropertyColor))
        picked.push_back(i);
    if (picked.empty()) {
      std::string names;
      for (const BlobColumn& c : kBlobColumns) names += std::string(" ") + c.name;
      die("--properties: unknown property '" + name + "' (all, color_mean or any of:" + names +
              ")",
          2);
    }
    for (size_t i : picked) {
      if (std::find(a.blob_columns.begin(), a.blob_columns.end(), i) == a.blob_columns.end())
        a.blob_columns.push_back(i);
      a.options.properties |= kBlobColumns[i].property;
    }
  }
}

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::fputs(usage().c_str(), stdout);
      std::exit(0);
    }
    if (arg.rfind("--", 0) != 0) {
      if (!a.input.empty()) die("more than one input image given", 2);
      a.input = arg;
      continue;
    }
    if (i + 1 >= argc) die(arg + " needs a value", 2);
    const std::string v = argv[++i];
    if (arg == "--backend") {
      if (v == "auto") a.backend = Backend::Auto;
      else if (v == "cpu") a.backend = Backend::Cpu;
      else if (v == "cuda") a.backend = Backend::Cuda;
      else die("--backend is auto, cpu or cuda, not '" + v + "'", 2);
    } else if (arg == "--device") {
      a.device = parse_int(arg, v, -1, 1024);
    } else if (arg == "--algorithm") {
      if (!ccl::parse(v, &a.options.algorithm))
        die("--algorithm is " + algorithm_names() + ", not '" + v + "'", 2);
    } else if (arg == "--connectivity") {
      a.options.connectivity = parse_int(arg, v, 4, 8);
      if (a.options.connectivity != 4 && a.options.connectivity != 8)
        die("--connectivity is 4 or 8", 2);
    } else if (arg == "--threshold") {
      a.options.threshold = parse_int(arg, v, 0, 255);
    } else if (arg == "--mode") {
      if (!ccl::parse(v, &a.options.mode))
        die("--mode is above, below or otsu, not '" + v + "'", 2);
    } else if (arg == "--properties") {
      parse_properties(v, a);
    } else if (arg == "--min-circularity") {
      a.options.min_circularity = parse_double(arg, v);
    } else if (arg == "--max-circularity") {
      a.options.max_circularity = parse_double(arg, v);
    } else if (arg == "--min-intensity") {
      a.options.min_intensity = parse_double(arg, v);
    } else if (arg == "--max-intensity") {
      a.options.max_intensity = parse_double(arg, v);
    } else if (arg == "--min-eccentricity") {
      a.options.min_eccentricity = parse_double(arg, v);
    } else if (arg == "--max-eccentricity") {
      a.options.max_eccentricity = parse_double(arg, v);
    } else if (arg == "--output") {
      a.prefix = v;
    } else if (arg == "--repeat") {
      a.repeat = parse_int(arg, v, 1, 100000);
    } else {
      die("unknown option " + arg + " (see --help)", 2);
    }
  }
  if (a.input.empty()) {
    std::fputs(usage().c_str(), stderr);
    std::exit(2);
  }
  if (a.prefix.empty()) a.prefix = std::filesystem::path(a.input).stem().string();
  return a;
}

// A stable, well spread color per label (a 32-bit integer hash), never too dark to see.
cv::Vec3b label_color(uint32_t label) {
  uint32_t h = label * 0x9E3779B9u;
  h ^= h >> 16;
  h *= 0x85EBCA6Bu;
  h ^= h >> 13;
  h *= 0xC2B2AE35u;
  h ^= h >> 16;
  auto channel = [](uint32_t byte) { return uint8_t(60 + byte * 195 / 255); };
  return {channel(h & 0xFF), channel((h >> 8) & 0xFF), channel((h >> 16) & 0xFF)};
}

void write_png(const std::string& path, const ccl::Result& r) {
  cv::Mat out(r.height, r.width, CV_8UC3, cv::Scalar(0, 0, 0));
  for (int y = 0; y < r.height; ++y) {
    cv::Vec3b* row = out.ptr<cv::Vec3b>(y);
    for (int x = 0; x < r.width; ++x) {
      const uint32_t l = r.labels[size_t(y) * r.width + x];
      if (l) row[x] = label_color(l);
    }
  }
  if (!cv::imwrite(path, out)) die("cannot write " + path);
}

// Column `column` of kBlobColumns for component c and its blob b, as CSV text.
std::string blob_value(size_t column, const ccl::Component& c, const ccl::Blob& b) {
  const std::string name = kBlobColumns[column].name;
  char text[64];
  auto number = [&](double v) {
    std::snprintf(text, sizeof text, "%.17g", v);
    return std::string(text);
  };
  if (name == "intensity_mean") return number(ccl::intensity_mean(c, b));
  if (name == "intensity_std") return number(ccl::intensity_std(c, b));
  if (name == "intensity_min") return std::to_string(b.intensity_min);
  if (name == "intensity_max") return std::to_string(b.intensity_max);
  if (name.rfind("color_mean-", 0) == 0) return number(ccl::channel_mean(c, b, name.back() - '0'));
  if (name == "perimeter") return number(ccl::perimeter(b));
  if (name == "circularity") return number(ccl::circularity(c, b));
  if (name == "euler_number") return std::to_string(b.euler);
  const ccl::Shape s = ccl::shape_of(c);
  if (name == "orientation") return number(s.orientation);
  if (name == "axis_major_length") return number(s.axis_major_length);
  if (name == "axis_minor_length") return number(s.axis_minor_length);
  if (name == "eccentricity") return number(s.eccentricity);
  return number(s.inertia_ratio);
}

void write_csv(const std::string& path, const ccl::Result& r, const std::vector<size_t>& blob_columns) {
  std::ofstream csv(path);
  if (!csv) die("cannot write " + path);
  csv << "label,x,y,width,height,area,sum_x,sum_y,sum_xx,sum_xy,sum_yy,centroid_x,centroid_y";
  for (size_t i : blob_columns) csv << ',' << kBlobColumns[i].name;
  csv << '\n';
  if (!r.blobs.empty() && r.blobs.size() != r.components.size())
    die("the backend returned " + std::to_string(r.blobs.size()) + " blobs for " +
        std::to_string(r.components.size()) + " components");
  if (r.blobs.empty() && !r.components.empty() &&
      std::any_of(blob_columns.begin(), blob_columns.end(),
                  [](size_t i) { return kBlobColumns[i].property != 0; }))
    die("the backend returned no blob properties");
  char centroid[64];
  const ccl::Blob none;
  for (size_t k = 0; k < r.components.size(); ++k) {
    const ccl::Component& c = r.components[k];
    std::snprintf(centroid, sizeof centroid, "%.6f,%.6f", c.centroid_x(), c.centroid_y());
    csv << c.label << ',' << c.x << ',' << c.y << ',' << c.width << ',' << c.height << ','
        << c.area << ',' << c.sum_x << ',' << c.sum_y << ',' << c.sum_xx << ',' << c.sum_xy
        << ',' << c.sum_yy << ',' << centroid;
    const ccl::Blob& b = r.blobs.empty() ? none : r.blobs[k];
    for (size_t i : blob_columns) csv << ',' << blob_value(i, c, b);
    csv << '\n';
  }
  if (!csv) die("cannot write " + path);
}

}  // namespace

int main(int argc, char** argv) {
  const Args args = parse(argc, argv);

  // The color property reads the image's colors: it is then labeled as BGRx, on the
  // engine's BT.601 luma of them; otherwise as OpenCV's gray conversion of it.
  const bool color = args.options.properties & ccl::kPropertyColor;
  cv::Mat pixels = cv::imread(args.input, color ? cv::IMREAD_COLOR : cv::IMREAD_GRAYSCALE);
  if (pixels.empty()) die("cannot read " + args.input + " as an image");
  ccl::ImageView view = ccl::ImageView::gray8(pixels.data, pixels.cols, pixels.rows, pixels.step[0]);
  if (color) {
    cv::Mat bgrx;
    cv::cvtColor(pixels, bgrx, cv::COLOR_BGR2BGRA);
    pixels = bgrx;
    view.format = ccl::PixelFormat::BGRx;
    view.planes[0] = pixels.data;
    view.strides[0] = pixels.step[0];
  }

  bool use_cuda = args.backend == Backend::Cuda;
  if (args.backend != Backend::Cpu) {
    std::string why;
    const bool usable = ccl::cuda::device_usable(args.device, &why);
    if (args.backend == Backend::Cuda && !usable)
      die("--backend cuda: no usable CUDA device: " + why);
    if (args.backend == Backend::Auto) {
      use_cuda = usable;
      if (!usable) std::printf("no usable CUDA device (%s): using the CPU backend\n", why.c_str());
    }
  }

  ccl::Result result;
  double best_ms = 0;
  try {
    std::unique_ptr<ccl::cuda::Engine> engine;
    if (use_cuda) {
      engine = std::make_unique<ccl::cuda::Engine>(args.device);
      engine->label_host(view, args.options, result);  // warm-up: allocation, module load
    }
    for (int i = 0; i < args.repeat; ++i) {
      const auto start = std::chrono::steady_clock::now();
      if (engine) engine->label_host(view, args.options, result);
      else ccl::label_frame_cpu(view, args.options, result);
      const double ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
      best_ms = i == 0 ? ms : std::min(best_ms, ms);
    }
  } catch (const ccl::Error& e) {
    die(std::string(use_cuda ? "CUDA backend: " : "CPU backend: ") + e.what());
  }
  if (result.labels.size() != size_t(view.width) * view.height)
    die("the backend returned no label image");

  const std::string png = args.prefix + "-labels.png";
  const std::string csv = args.prefix + "-components.csv";
  write_png(png, result);
  write_csv(csv, result, args.blob_columns);

  std::printf("%s: %dx%d, %s backend%s, %d-connectivity\n", args.input.c_str(), view.width,
              view.height, use_cuda ? "cuda" : "cpu",
              use_cuda ? (std::string(" (") + ccl::to_string(args.options.algorithm) + ")").c_str()
                       : "",
              args.options.connectivity);
  std::printf("%u components, threshold %d (%s), %.3f ms%s\n", result.num_components,
              result.threshold_used, ccl::to_string(args.options.mode), best_ms,
              args.repeat > 1 ? " (fastest of the repeats, host to host)" : " (host to host)");
  if (!args.options.reports_all())
    std::printf("%zu reported (blob filters)\n", result.components.size());
  std::printf("labels: %s\ntable:  %s\n", png.c_str(), csv.c_str());
  return 0;
}
