// Whole pipelines around the cudaccl element for the tests that need more than a
// GstHarness (concurrency, injected faults): deterministic frames, an
// appsrc ! [cudaupload !] cudaccl ! [cudadownload !] appsink pipeline whose bus errors
// are collected, each frame's metadata as comparable text, and the process's memory.
#pragma once

#include <gst/gst.h>

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "element_util.h"
#include "meta_checks.h"
#include "process_memory.h"
#include "splitmix.h"

namespace ccl::element_test {

/// Frame `i` of a stream: 4x4 blocks of a fixed random field (35% foreground) sliding
/// two pixels right per frame, so components persist and tracks live across frames;
/// foreground and background luma vary along ramps, so the threshold, its mode and
/// Otsu's level all change what is found.
test::GrayImage scene(int width, int height, int i, uint32_t seed);

struct Stream {
  PixelFormat format = PixelFormat::Gray8;
  int width = 320, height = 240;
  int frames = 8;
  uint32_t seed = 1;
  size_t extra_stride = 0;
  std::string properties;         // of cudaccl, gst-launch syntax
  std::string memory = "system";  // or "cuda": cudaupload before, cudadownload after
};

std::vector<test::Frame> frames_of(const Stream& s);

/// A buffer's metadata as text: every field (doubles exactly, as hex floats) but
/// gpu_time, which is a measurement. Two frames' metadata are equal when their texts are.
std::string describe(GstBuffer* buf);

/// Empty when the buffer carries exactly one plausible GstCclMeta of a width x height
/// frame (whatever the settings were), else what is wrong.
std::string invalid_meta(GstBuffer* buf, int width, int height);

/// gtest: two runs' per-frame metadata are equal; reports the first difference.
void expect_same(const std::vector<std::string>& want, const std::vector<std::string>& got,
                 const std::string& what);

/// Checksum of a buffer's bytes.
uint64_t checksum(GstBuffer* buf);

/// An error message from a pipeline's bus.
struct BusError {
  std::string source;  // the element's name
  GQuark domain = 0;
  int code = 0;
  std::string message, debug;
  std::string text() const { return source + ": " + message + " (" + debug + ")"; }
};

/// appsrc ! cudaccl ! appsink, or with `branches` == 2 appsrc ! tee and two branches
/// queue ! cudaccl ! appsink, every cudaccl with the stream's properties and backend
/// (backend_under_test() unless given); with the stream's memory "cuda", each cudaccl
/// sits between cudaupload and cudadownload. Bus errors are collected as they come.
class Pipeline {
 public:
  explicit Pipeline(const Stream& s, int branches = 1, const std::string& backend = "");
  ~Pipeline();
  Pipeline(const Pipeline&) = delete;
  Pipeline& operator=(const Pipeline&) = delete;

  bool ok() const { return pipeline_ != nullptr; }
  GstElement* ccl(int b = 0) const { return ccls_[size_t(b)]; }

  bool play();
  bool stop();

  /// Gives the pipeline's elements a context before they start (a GstCudaContext to
  /// share, as an application would).
  void set_context(GstContext* context);
  /// New caps for the buffers pushed from now on (a frame-size change mid-stream).
  void set_caps(const std::string& caps);

  /// Pushes a copy of the frame, timestamped as frame `index` at 30 fps.
  bool push(const test::Frame& f, long index);
  /// A serialized event, queued in order with the buffers.
  bool send(GstEvent* e);
  void eos();

  /// Next output buffer of branch b (to unref); nullptr at EOS, once an error has been
  /// posted and nothing is left to pull, or after `timeout`.
  GstBuffer* pull(int b = 0, GstClockTime timeout = 30 * GST_SECOND);
  bool at_eos(int b = 0);

  std::vector<std::string> errors();
  std::vector<BusError> error_details();
  void clear_errors();

 private:
  struct BusLog {
    std::mutex mutex;
    std::vector<BusError> errors;
  };
  static GstBusSyncReply on_bus(GstBus*, GstMessage* msg, gpointer data);

  GstElement* pipeline_ = nullptr;
  GstElement* src_ = nullptr;
  std::vector<GstElement*> sinks_, ccls_;
  BusLog log_;
};

using test::heap_in_use;
using test::rss_bytes;
using test::splitmix64;

}  // namespace ccl::element_test
