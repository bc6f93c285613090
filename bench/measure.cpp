#include "measure.h"

#include <chrono>
#include <vector>

#include "cuda_util.h"

namespace bench {

namespace {

struct StageSamples {
  std::vector<double> labeling, threshold, local, merge, analysis, copy, total;

  void add(const ccl::cuda::StageTimes& t) {
    labeling.push_back(1000.0 * t.labeling);
    threshold.push_back(1000.0 * t.threshold);
    local.push_back(1000.0 * t.local);
    merge.push_back(1000.0 * t.merge);
    analysis.push_back(1000.0 * t.analysis);
    copy.push_back(1000.0 * t.copy);
    total.push_back(1000.0 * t.total);
  }
};

/// `runs` frames at profiling `level`, the engine's times of each.
StageSamples profile(ccl::cuda::Engine& engine, const ccl::ImageView& image,
                     const ccl::Options& options, cudaStream_t stream, int runs,
                     ccl::cuda::Profiling level) {
  engine.set_profiling(level);
  StageSamples samples;
  ccl::Result out;
  for (int i = 0; i < runs; ++i) {
    engine.enqueue(image, options, stream);
    engine.finish(out, false);  // reads the events
    samples.add(engine.stage_times());
  }
  engine.set_profiling(ccl::cuda::Profiling::Off);
  return samples;
}

}  // namespace

Measurement measure(ccl::cuda::Engine& engine, const ccl::ImageView& image,
                    const ccl::Options& options, cudaStream_t stream, const RunPlan& plan) {
  Measurement m;
  ccl::Result out;

  engine.set_profiling(ccl::cuda::Profiling::Off);
  for (int i = 0; i < plan.warmup; ++i) {
    engine.enqueue(image, options, stream);
    engine.finish(out, false);
  }
  m.components = out.num_components;
  m.reported = uint32_t(out.components.size());

  // finish() (the engine's contract before the next enqueue) comes after the stop
  // event: its host copy of the table is not GPU work.
  Event start(true), stop(true);
  std::vector<double> total;
  for (int i = 0; i < plan.runs; ++i) {
    start.record(stream);
    engine.enqueue(image, options, stream);
    stop.record(stream);
    stop.synchronize();
    total.push_back(elapsed_us(start, stop));
    engine.finish(out, false);
  }
  m.total = spread(total);

  const StageSamples whole =
      profile(engine, image, options, stream, plan.runs, ccl::cuda::Profiling::Labeling);
  m.labeling = spread(whole.labeling);
  m.copy = spread(whole.copy);
  // A frame reporting its largest components sorts them in finish(), after the events
  // around enqueue(): its total is the engine's, from the start to the sort's end.
  if (engine.last_report_sorted()) m.total = spread(whole.total);
  const StageSamples stages =
      profile(engine, image, options, stream, plan.runs, ccl::cuda::Profiling::Stages);
  m.threshold = spread(stages.threshold);
  m.local = spread(stages.local);
  m.merge = spread(stages.merge);
  m.analysis = spread(stages.analysis);
  m.staged = spread(stages.labeling);

  std::vector<double> host;
  for (int i = 0; i < plan.host_runs; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    engine.enqueue(image, options, stream);
    engine.finish(out, false);
    const auto t1 = std::chrono::steady_clock::now();
    host.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
  }
  m.host = spread(host);
  return m;
}

double copy_bandwidth_gbs(size_t bytes, int runs) {
  DeviceBuffer<uint8_t> a, b;
  a.reserve(bytes);
  b.reserve(bytes);
  CCL_CUDA_CHECK(cudaMemset(a.get(), 1, bytes));
  Stream stream(cudaStreamNonBlocking);
  Event start(true), stop(true);
  std::vector<double> us;
  for (int i = 0; i < runs + 2; ++i) {
    start.record(stream.get());
    CCL_CUDA_CHECK(
        cudaMemcpyAsync(b.get(), a.get(), bytes, cudaMemcpyDeviceToDevice, stream.get()));
    stop.record(stream.get());
    stop.synchronize();
    if (i >= 2) us.push_back(elapsed_us(start, stop));
  }
  return 2.0 * double(bytes) / spread(us).median / 1e3;
}

}  // namespace bench
