// Injected and real CUDA failures in a playing cudaccl pipeline (backend=cuda, on a
// device; skips without one).
//
// Injected: CCL_FAULT_INJECT="kind:k" (ccl/faults.h) makes the k-th device
// allocation, pinned host allocation, kernel launch or copy of the element's engine
// fail. For every kind and k = 1, 2, ... (until several runs in a row no longer reach
// a k-th operation), a run of frames with a size change half-way must either complete
// exactly like a clean run or end with:
//  - one GST_ELEMENT_ERROR from cudaccl, of the class the failure calls for
//    (RESOURCE/NO_SPACE_LEFT for allocations, RESOURCE/FAILED otherwise), whose text
//    names the CUDA error;
//  - only whole frames pushed before it: each output frame's metadata and pixels (the
//    overlay is drawn) equal the clean run's frame of the same index;
//  - and, after NULL -> PLAYING with nothing armed, a run equal to the clean one.
// Over all the runs neither host nor device memory may grow beyond a bound.
//
// Real: nearly all device memory is taken by this process, then an 8192x8192 pipeline
// starts; it must fail with RESOURCE/NO_SPACE_LEFT naming cudaErrorMemoryAllocation,
// and label correctly once the memory is given back and it is restarted.
//
// Every pipeline gets the same GstCudaContext, as an application sharing one context
// would give it, so that runs do not pay for a CUDA context each.
#include <cuda_runtime_api.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudautils.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "app_pipeline.h"
#include "element_util.h"

namespace ccl::element_test {
namespace {

constexpr uint64_t kMiB = 1024 * 1024;

struct Kind {
  const char* name;       // as CCL_FAULT_INJECT spells it
  const char* cuda_name;  // the CUDA error the injected failure reports
  int code;               // GST_RESOURCE_ERROR_*
  int max_k;              // a bound on the operations of one run, to end a broken loop
};

const Kind kKinds[] = {
    {"device-alloc", "cudaErrorMemoryAllocation", GST_RESOURCE_ERROR_NO_SPACE_LEFT, 200},
    {"pinned-alloc", "cudaErrorMemoryAllocation", GST_RESOURCE_ERROR_NO_SPACE_LEFT, 200},
    {"launch", "cudaErrorLaunchFailure", GST_RESOURCE_ERROR_FAILED, 600},
    {"copy", "cudaErrorUnknown", GST_RESOURCE_ERROR_FAILED, 400},
};

// Runs in a row that complete cleanly before k is deemed past the run's operations
// (a failure absorbed on purpose, such as a graph falling back, can pass one k).
constexpr int kCleanRunsToStop = 4;

void inject(const std::string& text) { g_setenv("CCL_FAULT_INJECT", text.c_str(), TRUE); }

// What one run through a pipeline gave.
struct Outcome {
  bool started = false;
  std::vector<BusError> errors;
  std::vector<std::string> metas;
  std::vector<uint64_t> pixels;
};

// Frames of two sizes, the second larger (so the engine reallocates mid-stream).
struct Clip {
  PixelFormat format = PixelFormat::NV12;
  std::vector<test::Frame> frames;
  std::vector<std::string> caps;  // of each frame
};

Clip make_clip(PixelFormat format) {
  Clip c;
  c.format = format;
  for (int i = 0; i < 4; ++i) {
    const int w = i < 2 ? 320 : 480, h = i < 2 ? 240 : 272;
    c.frames.push_back(test::make_frame(scene(w, h, i, 7), format, i < 2 ? 0 : 64));
    c.caps.push_back(caps_string(format, w, h));
  }
  return c;
}

// Checksum of the frame's pixels, row padding left out: what a downstream element
// allocates (cudadownload's buffers) may leave padding unwritten.
uint64_t visible_checksum(GstBuffer* buf, const Clip& clip, size_t i) {
  if (i >= clip.frames.size()) return 0;
  const ImageView& v = clip.frames[i].view;
  uint64_t h = 0;
  for (const auto& plane : read_planes(buf, clip.format, v.width, v.height))
    for (uint8_t b : plane) h = splitmix64(h ^ b);
  return h;
}

Outcome play(Pipeline& p, const Clip& clip) {
  Outcome r;
  p.clear_errors();
  p.set_caps(clip.caps[0]);
  r.started = p.play();
  if (r.started) {
    for (size_t i = 0; i < clip.frames.size(); ++i) {
      if (i > 0 && clip.caps[i] != clip.caps[i - 1]) p.set_caps(clip.caps[i]);
      if (!p.push(clip.frames[i], long(i))) break;
    }
    p.eos();
    while (GstBuffer* buf = p.pull(0, 20 * GST_SECOND)) {
      const size_t i = r.metas.size();
      r.metas.push_back(describe(buf));
      r.pixels.push_back(visible_checksum(buf, clip, i));
      gst_buffer_unref(buf);
    }
  }
  r.errors = p.error_details();
  p.stop();
  return r;
}

class Faults : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!cuda_usable(&why)) GTEST_SKIP() << "needs a CUDA device: " << why;
    if (!gst_cuda_load_library()) GTEST_SKIP() << "GStreamer's CUDA library cannot load libcuda";
    context_ = gst_cuda_context_new(0);
    ASSERT_NE(context_, nullptr);
    inject("");
  }
  void TearDown() override {
    inject("");
    gst_clear_object(&context_);
  }

  std::unique_ptr<Pipeline> pipeline(const std::string& properties, const std::string& memory,
                                     PixelFormat format, int width, int height) {
    Stream s;
    s.format = format;
    s.width = width;
    s.height = height;
    s.properties = properties;
    s.memory = memory;
    auto p = std::make_unique<Pipeline>(s, 1, "cuda");
    if (p->ok()) {
      GstContext* c = gst_context_new_cuda_context(context_);
      p->set_context(c);
      gst_context_unref(c);
    }
    return p;
  }

  // Every kind and k for one configuration (the checks are in the file's header).
  void every_fault(const std::string& properties, const std::string& memory) {
    if (memory == "cuda" && !(have_factory("cudaupload") && have_factory("cudadownload")))
      GTEST_SKIP() << "cudaupload/cudadownload are not available";
    const Clip clip = make_clip(PixelFormat::NV12);
    auto p = pipeline(properties, memory, clip.format, 320, 240);
    ASSERT_TRUE(p->ok());
    const std::string where = "[" + properties + ", " + memory + " memory]";
    const Outcome clean = play(*p, clip);
    ASSERT_TRUE(clean.started && clean.errors.empty()) << where << " clean run failed to run";
    ASSERT_EQ(clean.metas.size(), clip.frames.size()) << where;
    // Warm: a second clean run equals the first (the comparison below relies on it).
    const Outcome again = play(*p, clip);
    ASSERT_EQ(again.metas, clean.metas) << where << " two clean runs differ";
    ASSERT_EQ(again.pixels, clean.pixels) << where;

    size_t device_free0 = 0, device_total = 0;
    ASSERT_EQ(cudaMemGetInfo(&device_free0, &device_total), cudaSuccess);
    const uint64_t rss0 = rss_bytes(), heap0 = heap_in_use();

    for (const Kind& kind : kKinds) {
      int fired = 0, clean_in_a_row = 0, k = 1;
      for (; k <= kind.max_k && clean_in_a_row < kCleanRunsToStop; ++k) {
        const std::string armed = std::string(kind.name) + ":" + std::to_string(k);
        const std::string ctx = where + " " + armed;
        inject(armed);
        const Outcome r = play(*p, clip);
        inject("");
        // Whatever happened, only whole frames equal to the clean run's came out.
        ASSERT_LE(r.metas.size(), clean.metas.size()) << ctx;
        for (size_t i = 0; i < r.metas.size(); ++i) {
          ASSERT_EQ(r.metas[i], clean.metas[i]) << ctx << ": frame " << i << "'s metadata";
          ASSERT_EQ(r.pixels[i], clean.pixels[i]) << ctx << ": frame " << i << "'s pixels";
        }
        if (r.errors.empty()) {
          ASSERT_TRUE(r.started) << ctx << ": did not start and posted no error";
          ASSERT_EQ(r.metas.size(), clean.metas.size()) << ctx << ": frames lost silently";
          ++clean_in_a_row;
          continue;
        }
        clean_in_a_row = 0;
        ++fired;
        ASSERT_LT(r.metas.size(), clean.metas.size()) << ctx << ": an error and every frame";
        const BusError& e = r.errors.front();
        EXPECT_EQ(e.source, "ccl0") << ctx << ": " << e.text();
        EXPECT_EQ(e.domain, GST_RESOURCE_ERROR) << ctx << ": " << e.text();
        EXPECT_EQ(e.code, kind.code) << ctx << ": " << e.text();
        EXPECT_NE(e.text().find(kind.cuda_name), std::string::npos)
            << ctx << ": the error does not name " << kind.cuda_name << ": " << e.text();
        // Restarted with nothing armed, the same element labels as before.
        const Outcome after = play(*p, clip);
        ASSERT_TRUE(after.started && after.errors.empty())
            << ctx << ": restart failed: "
            << (after.errors.empty() ? "no start" : after.errors.front().text());
        ASSERT_EQ(after.metas, clean.metas) << ctx << ": restart differs from a clean run";
        ASSERT_EQ(after.pixels, clean.pixels) << ctx << ": restart's pixels differ";
      }
      std::printf("%s %s: k = 1..%d, %d runs failed as injected, then %d clean runs in a row\n",
                  where.c_str(), kind.name, k - 1, fired, clean_in_a_row);
      EXPECT_GT(fired, 0) << where << " " << kind.name << ": no injected fault ever fired";
      EXPECT_LT(k - 1, kind.max_k) << where << " " << kind.name << ": still failing at k "
                                   << kind.max_k;
    }

    // Nothing leaked: device memory and the host's back within bounds of where they
    // were after the clean runs.
    size_t device_free1 = 0;
    ASSERT_EQ(cudaMemGetInfo(&device_free1, &device_total), cudaSuccess);
    const int64_t device_growth = int64_t(device_free0) - int64_t(device_free1);
    const uint64_t rss1 = rss_bytes(), heap1 = heap_in_use();
    std::printf("%s memory over the fault runs: device %+.1f MiB, RSS %.1f -> %.1f MiB, heap "
                "%.1f -> %.1f MiB\n",
                where.c_str(), double(device_growth) / kMiB, double(rss0) / kMiB,
                double(rss1) / kMiB, double(heap0) / kMiB, double(heap1) / kMiB);
    EXPECT_LE(device_growth, int64_t(16 * kMiB)) << where << ": device memory grew";
    EXPECT_LE(heap1, heap0 + 8 * kMiB) << where << ": heap grew";
    EXPECT_LE(rss1, rss0 + std::max<uint64_t>(16 * kMiB, rss0 / 10)) << where << ": RSS grew";
  }

  GstCudaContext* context_ = nullptr;
};

// Overlay drawn, so a half-written frame would show in the pixels; tracking on (the
// default). The default algorithm replays CUDA graphs from the second frame of a size on.
constexpr const char* kDrawn = "overlay=fill+boxes+centroids min-area=2";

TEST_F(Faults, SystemMemoryGraphReplays) { every_fault(kDrawn, "system"); }

TEST_F(Faults, CudaMemoryGraphReplays) { every_fault(kDrawn, "cuda"); }

// An algorithm that waits on the host between rounds (pinned flag, extra copies).
TEST_F(Faults, SystemMemoryHostRounds) {
  every_fault(std::string(kDrawn) + " algorithm=label-equivalence", "system");
}

// The background model: its state is one more device allocation (and its kernels more
// launches) per size; a failure there must end the same way, and the restarted element
// must relearn from its first frame exactly as the clean run did. A fixed rate and no
// shadow test make the clip's moving discs foreground from its second frame on (at the
// default rate's first frames a new mode counts as background), so that something is
// reported and drawn and every kind of operation is reached.
TEST_F(Faults, CudaMemoryBackgroundModel) {
  every_fault(std::string(kDrawn) +
                  " foreground=background learning-rate=0.02 detect-shadows=false close-radius=1",
              "cuda");
}

// Real exhaustion: this process holds all but a little device memory while an
// 8192x8192 pipeline starts.
TEST_F(Faults, DeviceMemoryExhaustedAt8192Squared) {
  constexpr int kSide = 8192;
  const test::Frame frame = test::make_frame(scene(kSide, kSide, 0, 3), PixelFormat::Gray8);
  auto p = pipeline("", "system", PixelFormat::Gray8, kSide, kSide);
  ASSERT_TRUE(p->ok());
  Clip clip;
  clip.format = PixelFormat::Gray8;
  clip.frames.push_back(frame);
  clip.caps.push_back(caps_string(PixelFormat::Gray8, kSide, kSide));

  // Take memory in falling chunk sizes until less than 48 MiB is free: an 8192x8192
  // frame needs over 256 MiB of label image alone.
  std::vector<void*> held;
  size_t free_b = 0, total_b = 0;
  ASSERT_EQ(cudaMemGetInfo(&free_b, &total_b), cudaSuccess);
  for (size_t chunk = 1024 * kMiB; chunk >= 2 * kMiB;) {
    cudaMemGetInfo(&free_b, &total_b);
    if (free_b < 48 * kMiB) break;
    void* d = nullptr;
    if (chunk < free_b && cudaMalloc(&d, chunk) == cudaSuccess) {
      held.push_back(d);
    } else {
      cudaGetLastError();
      chunk /= 2;
    }
  }
  cudaMemGetInfo(&free_b, &total_b);
  std::printf("holding %.0f MiB of %.0f MiB; %.1f MiB free\n",
              double(total_b - free_b) / kMiB, double(total_b) / kMiB, double(free_b) / kMiB);

  const Outcome starved = play(*p, clip);
  for (void* d : held) cudaFree(d);
  ASSERT_FALSE(starved.errors.empty()) << "labeled 8192x8192 with "
                                       << double(free_b) / kMiB << " MiB free";
  EXPECT_TRUE(starved.metas.empty()) << "a frame came out";
  const BusError& e = starved.errors.front();
  std::printf("error: %s\n", e.text().c_str());
  EXPECT_EQ(e.source, "ccl0") << e.text();
  EXPECT_EQ(e.domain, GST_RESOURCE_ERROR) << e.text();
  EXPECT_EQ(e.code, GST_RESOURCE_ERROR_NO_SPACE_LEFT) << e.text();
  EXPECT_NE(e.text().find("cudaErrorMemoryAllocation"), std::string::npos) << e.text();

  // With the memory back, the same pipeline restarts and labels the frame right.
  p->clear_errors();
  p->set_caps(clip.caps[0]);
  ASSERT_TRUE(p->play());
  ASSERT_TRUE(p->push(frame, 0));
  p->eos();
  GstBuffer* out = p->pull(0, 60 * GST_SECOND);
  ASSERT_NE(out, nullptr) << "no frame after the restart: "
                          << (p->errors().empty() ? "no error" : p->errors().front());
  expect_meta_matches_reference(out, frame, reference_options(), "8192x8192 after restart");
  gst_buffer_unref(out);
  p->stop();
}

}  // namespace
}  // namespace ccl::element_test
