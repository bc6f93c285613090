// ccl::cuda::TrackSearch in builds without CUDA: nothing to search on.
#include "ccl/track_search.h"
#include "tracker_search.h"

namespace ccl::cuda {

struct TrackSearch::Impl {};

TrackSearch::TrackSearch(cudaStream_t) {
  throw Error("ccl::cuda::TrackSearch: this build of libccl has no CUDA");
}
TrackSearch::~TrackSearch() = default;
void TrackSearch::use_device_table(const Component*, uint32_t) {}
void TrackSearch::upload(TableView) {}
float TrackSearch::last_device_ms() const { return 0; }
double TrackSearch::last_wait_ms() const { return 0; }
size_t TrackSearch::last_candidates() const { return 0; }
tracking::Probe* TrackSearch::probe_buffer(size_t) { return nullptr; }
void TrackSearch::find(const tracking::SearchRequest&, tracking::SearchAnswer&) {}

}  // namespace ccl::cuda
