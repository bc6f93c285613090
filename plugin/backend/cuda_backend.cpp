// The CUDA backend: the engine on the element's own stream, in the CUDA context that
// is current on the calling thread (the element pushes its GstCudaContext around
// every call, so scratch, stream and events all live in that context).
//
// Frames in device memory (GstCudaMemory mapped with GST_MAP_CUDA) are labeled and
// drawn where they are: no copy of the image. Host frames stage the luma plane
// through pinned memory, every plane when an overlay will be drawn or when the
// foreground or the blob analysis reads color (the background model, the color range,
// the color property), and when the overlay changes pixels the planes come back the
// same way. Only the reported components return to the host either way, selected on
// the device, with their blobs when blob properties or filters are set (the engine's
// TableView::blobs, parallel to the components, passed on as they are).
#include <cuda_runtime.h>

#include <cstring>
#include <memory>
#include <string>

#include "backend/backend.h"
#include "backend/mask_cuda.h"
#include "ccl/cuda_memory.h"
#include "ccl/cuda_engine.h"
#include "overlay/overlay_cuda.h"

namespace ccl::plugin {

namespace {

using cuda::DeviceBuffer;
using cuda::Event;
using cuda::PinnedBuffer;
// A blocking stream (the default flags): its work waits for the legacy default stream
// of the context, where GStreamer 1.22's CUDA memory does its own uploads (a
// host-written GstCudaMemory is copied to the device when mapped with GST_MAP_CUDA).
using cuda::Stream;

// Host frame rows <-> packed staging rows.
void pack_rows(uint8_t* dst, const uint8_t* src, size_t stride, PlaneSize s) {
  if (stride == s.row_bytes) {
    std::memcpy(dst, src, s.bytes());
    return;
  }
  for (size_t y = 0; y < s.rows; ++y) std::memcpy(dst + y * s.row_bytes, src + y * stride, s.row_bytes);
}

void unpack_rows(uint8_t* dst, size_t stride, const uint8_t* src, PlaneSize s) {
  if (stride == s.row_bytes) {
    std::memcpy(dst, src, s.bytes());
    return;
  }
  for (size_t y = 0; y < s.rows; ++y) std::memcpy(dst + y * stride, src + y * s.row_bytes, s.row_bytes);
}

class CudaBackend final : public Backend {
 public:
  // No cudaSetDevice anywhere: it would make the device's primary context current
  // in place of the element's GstCudaContext.
  explicit CudaBackend(int device_id) {
    // Throws, naming why, when the device is not usable.
    engine_ = std::make_unique<cuda::Engine>(device_id);
    stream_ = std::make_unique<Stream>();
    start_ = std::make_unique<Event>(true);
    labeled_ = std::make_unique<Event>(true);
    draw_start_ = std::make_unique<Event>(true);
    drawn_ = std::make_unique<Event>(true);
  }

  const char* name() const override { return "cuda"; }

  // The staging of host frames; frames in device memory never use it.
  void configure(PixelFormat format, int width, int height) override {
    for (int p = 0; p < plane_count(format); ++p) {
      const size_t bytes = plane_size(format, width, height, p).bytes();
      staging_[p].reserve(bytes, "cudaHostAlloc (staging plane)");
      planes_[p].reserve(bytes, "cudaMalloc (frame plane)");
    }
  }

  TableView label(const ImageView& frame, const Options& options, bool keep_labels,
                  bool with_planes, Result& out) override {
    cudaStream_t s = stream_->get();
    start_->record(s);
    // The background model, the color range and the color property read a color
    // frame's chroma (or all three colors).
    const bool model_planes = options.reads_all_planes();
    const ImageView device = frame.space == MemorySpace::Device
                                 ? frame
                                 : stage(frame, with_planes || model_planes);
    Options o = options;
    o.write_labels = keep_labels;
    engine_->enqueue(device, o, s);
    labeled_->record(s);
    // The reported components stay where the device wrote them: the element reads
    // them there once, into its metadata. So do their blobs (reported.blobs, non-null
    // whenever needed_properties(options) is not 0: the engine's contract).
    const TableView reported = engine_->finish_in_place(out, false);
    // A frame that sorted waited again: its GPU time runs to the end of the sort.
    if (engine_->last_report_sorted()) labeled_->record(s);
    labeled_->synchronize();
    label_ms_ = cuda::elapsed_ms(*start_, *labeled_);
    draw_ms_ = 0;
    has_labels_ = keep_labels;
    has_planes_ = with_planes;
    return reported;
  }

  void reset_foreground() override { engine_->reset_foreground(); }

  void set_region(const uint8_t* region, int width, int height) override {
    engine_->set_region(region, width, height);
  }

  void draw(const ImageView& frame, const Selection& selection, uint32_t flags,
            uint32_t alpha256) override {
    const uint32_t tints = flags & (overlay::kFill | overlay::kForeground);
    if (!has_planes_ || (tints && !has_labels_))
      throw Error("cuda backend: overlay requested without labels and planes on the device");
    const bool in_place = frame.space == MemorySpace::Device;
    cudaStream_t s = stream_->get();
    const int w = frame.width, h = frame.height;
    draw_start_->record(s);
    const bool marks = flags & overlay::kSolidFlags;

    // The selection's tables (color keys, marks, trail segments, each 4-byte aligned):
    // through pinned memory so that the copy stays asynchronous.
    static_assert(alignof(overlay::Mark) == 4 && alignof(overlay::Segment) == 4,
                  "the overlay tables are packed back to back at 4-byte alignment");
    const size_t key_bytes = selection.color_key.size() * sizeof(uint32_t);
    const size_t mark_bytes = selection.marks.size() * sizeof(overlay::Mark);
    const size_t segment_bytes = selection.trails.size() * sizeof(overlay::Segment);
    const size_t table_bytes = key_bytes + mark_bytes + segment_bytes;
    table_staging_.reserve(table_bytes, "cudaHostAlloc (overlay tables)");
    table_device_.reserve(table_bytes, "cudaMalloc (overlay tables)");
    std::memcpy(table_staging_.get(), selection.color_key.data(), key_bytes);
    std::memcpy(table_staging_.get() + key_bytes, selection.marks.data(), mark_bytes);
    std::memcpy(table_staging_.get() + key_bytes + mark_bytes, selection.trails.data(),
                segment_bytes);
    cuda::check_copy(cudaMemcpyAsync(table_device_.get(), table_staging_.get(), table_bytes,
                                     cudaMemcpyHostToDevice, s),
                     "cudaMemcpyAsync (overlay tables)");
    const auto* d_keys = reinterpret_cast<const uint32_t*>(table_device_.get());
    const auto* d_marks = reinterpret_cast<const overlay::Mark*>(table_device_.get() + key_bytes);
    const auto* d_segments = reinterpret_cast<const overlay::Segment*>(
        table_device_.get() + key_bytes + mark_bytes);

    if (marks) {
      owner_.reserve(size_t(w) * size_t(h), "cudaMalloc (mark buffer)");
      overlay::cuda::rasterize_marks(d_marks, uint32_t(selection.marks.size()), d_segments,
                                     uint32_t(selection.trails.size()), flags, w, h,
                                     owner_.get(), s);
    }
    const overlay::Scene scene{tints ? engine_->device_labels() : nullptr, d_keys,
                               uint32_t(selection.color_key.size() - 1),
                               marks ? owner_.get() : nullptr, alpha256, tints};
    if (tints && !scene.labels)
      throw Error("cuda backend: the engine kept no label image for the fill overlay");
    overlay::Target target{frame.format, w, h, {}, {}};
    for (int p = 0; p < plane_count(frame.format); ++p) {
      target.planes[p] = in_place ? static_cast<uint8_t*>(frame.planes[p]) : planes_[p].get();
      target.strides[p] = in_place ? frame.strides[p] : plane_size(frame.format, w, h, p).row_bytes;
    }
    overlay::cuda::draw(target, scene, s);

    // A host frame: every plane was drawn into (luma and chroma), bring them back.
    if (!in_place)
      for (int p = 0; p < plane_count(frame.format); ++p) {
        const PlaneSize size = plane_size(frame.format, w, h, p);
        cuda::check_copy(cudaMemcpyAsync(staging_[p].get(), planes_[p].get(), size.bytes(),
                                         cudaMemcpyDeviceToHost, s),
                         "cudaMemcpyAsync (download plane)");
      }
    drawn_->record(s);
    // The buffer leaves the element when this returns: its device memory must be
    // written by then (GStreamer 1.22's CUDA memory carries no stream to wait on).
    stream_->synchronize();
    draw_ms_ = cuda::elapsed_ms(*draw_start_, *drawn_);
    if (in_place) return;
    // Only now, with every CUDA step done, is the host frame written.
    for (int p = 0; p < plane_count(frame.format); ++p)
      unpack_rows(static_cast<uint8_t*>(frame.planes[p]), frame.strides[p], staging_[p].get(),
                  plane_size(frame.format, w, h, p));
  }

  // The label image stays on the device (the engine's, kept by label() when asked):
  // the rectangle is mapped through the id table there and only it comes down.
  void write_mask(const std::vector<uint32_t>& id_of, int frame_width, int x, int y, int width,
                  int height, int bytes_per_pixel, uint8_t* mask, size_t stride) override {
    const uint32_t* labels = has_labels_ ? engine_->device_labels() : nullptr;
    if (!labels)
      throw Error("cuda backend: the analytics mask needs the frame's label image, which "
                  "was not kept (analytics_mask was off when it was labeled)");
    mask_.write(labels, frame_width, id_of.data(), id_of.size(), x, y, width, height,
                bytes_per_pixel, mask, stride, stream_->get());
  }

 private:
  mask_cuda::MaskWriter mask_;  // write_mask's id table and device rectangle

 public:
  int64_t gpu_time_ns() const override { return int64_t(double(label_ms_ + draw_ms_) * 1e6 + 0.5); }

 private:
  /// Uploads the host frame's luma plane (every plane with all_planes) into the staging
  /// planes on the device and returns the device view of them.
  ImageView stage(const ImageView& frame, bool all_planes) {
    const int planes = all_planes ? plane_count(frame.format) : 1;
    for (int p = 0; p < planes; ++p) upload(frame, p);
    ImageView device = frame;
    device.space = MemorySpace::Device;
    for (int p = 0; p < 3; ++p) {
      device.planes[p] = p < plane_count(frame.format) ? planes_[p].get() : nullptr;
      device.strides[p] = plane_size(frame.format, frame.width, frame.height, p).row_bytes;
    }
    return device;
  }

  void upload(const ImageView& frame, int p) {
    const PlaneSize size = plane_size(frame.format, frame.width, frame.height, p);
    if (staging_[p].capacity() < size.bytes() || planes_[p].capacity() < size.bytes())
      throw Error("cuda backend: frame larger than the configured caps");
    pack_rows(staging_[p].get(), static_cast<const uint8_t*>(frame.planes[p]), frame.strides[p],
              size);
    cuda::check_copy(cudaMemcpyAsync(planes_[p].get(), staging_[p].get(), size.bytes(),
                                     cudaMemcpyHostToDevice, stream_->get()),
                     "cudaMemcpyAsync (upload plane)");
  }

  std::unique_ptr<cuda::Engine> engine_;
  std::unique_ptr<Stream> stream_;
  std::unique_ptr<Event> start_, labeled_, draw_start_, drawn_;
  PinnedBuffer<uint8_t> staging_[3];
  DeviceBuffer<uint8_t> planes_[3];
  PinnedBuffer<uint8_t> table_staging_;
  DeviceBuffer<uint8_t> table_device_;
  DeviceBuffer<uint32_t> owner_;
  float label_ms_ = 0, draw_ms_ = 0;
  bool has_labels_ = false, has_planes_ = false;
};

}  // namespace

std::unique_ptr<Backend> make_cuda_backend(int device_id) {
  return std::make_unique<CudaBackend>(device_id);
}

}  // namespace ccl::plugin
