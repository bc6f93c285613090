// ccl::cuda::TrackSearch (ccl/track_search.h): the tracker's grid search on the device.
//
// Per frame, on the search's stream:
//  1. dets_kernel: each component in label order as the tracker reads it (centroid,
//     area, box, label), and where the grid lists it: a small one in the cell of its
//     top-left corner, a big one in every cell it covers, a wide one once after the
//     last cell; with the host's formulas, so the cells are the host's;
//  2. an exclusive scan of the listings per component, list_kernel writes them in
//     component order, and a stable radix sort by cell keeps that order within a
//     cell (the order in which build_grid places them);
//  3. starts_kernel: where each cell's entries begin;
//  4. gates_kernel: each gate visits its candidates in the order the host's gather()
//     + drop_repeats() give them, costs them as pair_cost() does and keeps the 8
//     cheapest (what the host keeps of them) in slots of its own;
//  5. a scan of the kept counts, and pack_kernel writes the kept candidates packed
//     into mapped host memory; the counts and offsets are copied back; one wait.
// The steps of a thread are in track_search.h, shared with the host.
#include "ccl/track_search.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include "../src/tracker_search.h"
#include "ccl/cuda_memory.h"
#include "track_search.h"

namespace ccl::cuda {

namespace {

using namespace track_search;

constexpr int kBlock = 256;

__global__ void dets_kernel(const Component* __restrict__ table, const uint32_t* __restrict__ order,
                            uint32_t n, GridPlan g, Det* __restrict__ dets,
                            Cells* __restrict__ cells, uint8_t* __restrict__ kind,
                            uint32_t* __restrict__ listings) {
  const uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k == n) listings[n] = 0;  // the scan's total
  if (k >= n) return;
  Det d;
  Cells c{};
  uint8_t what;
  listings[k] = take_component(table[order ? order[k] : k], g, &d, &c, &what);
  dets[k] = d;
  cells[k] = c;
  kind[k] = what;
}

__global__ void list_kernel(uint32_t n, GridPlan g, const Cells* __restrict__ cells,
                            const uint8_t* __restrict__ kind, const uint32_t* __restrict__ at,
                            uint32_t* __restrict__ keys, int32_t* __restrict__ values) {
  const uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < n) list_component(k, g, cells[k], kind[k], at[k], keys, values);
}

// starts[c]: the first entry of cell c, for c up to grid_w * grid_h + 1 (the wide
// list's start, then the end).
__global__ void starts_kernel(const uint32_t* __restrict__ keys, uint32_t entries,
                              uint32_t cells, uint32_t* __restrict__ starts) {
  const uint32_t c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c <= cells + 1) starts[c] = lower_bound(keys, entries, c);
}

// One thread per gate: its kKept cheapest candidates into its slots, how many it has
// in all, and how many it keeps (0 at kept[count], for the scan's total).
__global__ void gates_kernel(const Probe* __restrict__ probes, uint32_t count, GridPlan g,
                             const Det* __restrict__ dets, const Cells* __restrict__ cells,
                             const uint32_t* __restrict__ keys, const int32_t* __restrict__ values,
                             const uint32_t* __restrict__ starts, Candidate* __restrict__ slots,
                             uint32_t* __restrict__ all, uint32_t* __restrict__ kept) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i == count) kept[count] = 0;
  if (i >= count) return;
  const uint32_t n = cheapest_of_gate<kKept>(probes[i], g, dets, cells, keys, values, starts,
                                             slots + size_t(i) * kKept);
  all[i] = n;
  kept[i] = n < uint32_t(kKept) ? n : uint32_t(kKept);
}

// The kept candidates packed, gate after gate, into the host's memory.
__global__ void pack_kernel(uint32_t count, const Candidate* __restrict__ slots,
                            const uint32_t* __restrict__ first, Candidate* __restrict__ out) {
  const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  const uint32_t i = t / kKept, j = t % kKept;
  if (i >= count) return;
  if (first[i] + j < first[i + 1]) out[first[i] + j] = slots[size_t(i) * kKept + j];
}

unsigned blocks_for(size_t threads) { return unsigned((threads + kBlock - 1) / kBlock); }

int key_bits(uint32_t largest) {
  int bits = 1;
  while (bits < 32 && (largest >> bits) != 0) ++bits;
  return bits;
}

}  // namespace

struct TrackSearch::Impl {
  cudaStream_t stream;
  Event start{true}, stop{true};
  float device_ms = 0;
  double wait_ms = 0;
  size_t candidates = 0;
  // The caller's device table for the next search (or our own upload of it).
  const Component* device_table = nullptr;
  uint32_t device_count = 0;
  bool table_given = false;
  DeviceBuffer<Component> own_table;
  DeviceBuffer<uint32_t> order;
  DeviceBuffer<Det> dets;
  DeviceBuffer<Cells> cells;
  DeviceBuffer<uint8_t> kind;
  DeviceBuffer<uint32_t> listings, listing_at;
  DeviceBuffer<uint32_t> keys[2];
  DeviceBuffer<int32_t> values[2];
  DeviceBuffer<uint32_t> starts;
  DeviceBuffer<Probe> probes;
  DeviceBuffer<uint32_t> all, kept, first;
  DeviceBuffer<Candidate> slots;
  DeviceBuffer<unsigned char> scratch;
  PinnedBuffer<Probe> host_probes;
  PinnedBuffer<uint32_t> host_all, host_first;
  // Written by pack_kernel straight into the host's memory: how many there are is
  // only known on the device, and a copy would have to wait for it.
  MappedBuffer<Candidate> host_out;

  explicit Impl(cudaStream_t s) : stream(s) {}

  void upload(const Component* table, uint32_t count) {
    own_table.reserve(std::max<size_t>(count, 1), "track search table");
    if (count)
      check_copy(cudaMemcpyAsync(own_table.get(), table, count * sizeof(Component),
                                 cudaMemcpyHostToDevice, stream),
                 "track search table upload");
    device_table = own_table.get();
    device_count = count;
    table_given = true;
  }

  void wait() {
    const auto t0 = std::chrono::steady_clock::now();
    CCL_CUDA_CHECK(cudaStreamSynchronize(stream));
    wait_ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                   .count();
  }

  template <class Op>
  void scratch_for(Op op) {
    size_t bytes = 0;
    CCL_CUDA_CHECK(op(nullptr, bytes));
    scratch.reserve(std::max<size_t>(bytes, 1), "track search scratch");
    CCL_CUDA_CHECK(op(scratch.get(), bytes));
  }

  void find(const tracking::SearchRequest& r, tracking::SearchAnswer& answer);
};

void TrackSearch::Impl::find(const tracking::SearchRequest& r, tracking::SearchAnswer& answer) {
  wait_ms = 0;
  const uint32_t n = r.count;
  const GridPlan g = r.grid;
  if (g.listings > uint64_t(INT32_MAX) || uint64_t(g.grid_w) * uint64_t(g.grid_h) + 2 > INT32_MAX ||
      uint64_t(r.probes) * kKept > uint64_t(INT32_MAX))
    throw Error("track search: more grid entries or probes than it counts");
  const uint32_t entries = uint32_t(g.listings);
  const uint32_t all_cells = uint32_t(g.grid_w) * uint32_t(g.grid_h);
  const size_t m = std::max<size_t>(n, 1), probe_count = std::max<size_t>(r.probes, 1);
  // Grown only; allocating waits for the device, so all of it before the first copy.
  dets.reserve(m, "track search dets");
  cells.reserve(m, "track search cells");
  kind.reserve(m, "track search kinds");
  listings.reserve(m + 1, "track search listings");
  listing_at.reserve(m + 1, "track search listings");
  for (int b = 0; b < 2; ++b) {
    keys[b].reserve(std::max<size_t>(entries, 1), "track search keys");
    values[b].reserve(std::max<size_t>(entries, 1), "track search values");
  }
  starts.reserve(size_t(all_cells) + 2, "track search cell starts");
  probes.reserve(probe_count, "track search probes");
  all.reserve(probe_count, "track search counts");
  kept.reserve(probe_count + 1, "track search counts");
  first.reserve(probe_count + 1, "track search offsets");
  slots.reserve(probe_count * kKept, "track search slots");
  host_all.reserve(probe_count, "track search counts");
  host_first.reserve(probe_count + 1, "track search offsets");
  host_out.reserve(probe_count * kKept, "track search candidates");
  if (r.order) order.reserve(m, "track search order");

  start.record(stream);
  if (!table_given || device_count != n) upload(r.components, n);
  table_given = false;
  const uint32_t* order_on_device = nullptr;
  if (r.order) {
    check_copy(cudaMemcpyAsync(order.get(), r.order, n * sizeof(uint32_t),
                               cudaMemcpyHostToDevice, stream),
               "track search order upload");
    order_on_device = order.get();
  }
  if (r.probes)
    check_copy(cudaMemcpyAsync(probes.get(), host_probes.get(), r.probes * sizeof(Probe),
                               cudaMemcpyHostToDevice, stream),
               "track search probes upload");
  dets_kernel<<<blocks_for(size_t(n) + 1), kBlock, 0, stream>>>(
      device_table, order_on_device, n, g, dets.get(), cells.get(), kind.get(), listings.get());
  check_launch("track search dets_kernel");
  uint32_t* listings_in = listings.get();
  uint32_t* listings_out = listing_at.get();
  scratch_for([&](void* p, size_t& bytes) {
    return cub::DeviceScan::ExclusiveSum(p, bytes, listings_in, listings_out, int(n) + 1, stream);
  });
  if (n) {
    list_kernel<<<blocks_for(n), kBlock, 0, stream>>>(n, g, cells.get(), kind.get(),
                                                       listing_at.get(), keys[0].get(),
                                                       values[0].get());
    check_launch("track search list_kernel");
  }
  cub::DoubleBuffer<uint32_t> sort_keys(keys[0].get(), keys[1].get());
  cub::DoubleBuffer<int32_t> sort_values(values[0].get(), values[1].get());
  const int bits = key_bits(all_cells);
  if (entries)
    scratch_for([&](void* p, size_t& bytes) {
      return cub::DeviceRadixSort::SortPairs(p, bytes, sort_keys, sort_values, int(entries), 0,
                                             bits, stream);
    });
  starts_kernel<<<blocks_for(size_t(all_cells) + 2), kBlock, 0, stream>>>(
      sort_keys.Current(), entries, all_cells, starts.get());
  check_launch("track search starts_kernel");
  gates_kernel<<<blocks_for(size_t(r.probes) + 1), kBlock, 0, stream>>>(
      probes.get(), r.probes, g, dets.get(), cells.get(), sort_keys.Current(),
      sort_values.Current(), starts.get(), slots.get(), all.get(), kept.get());
  check_launch("track search gates_kernel");
  uint32_t* counts = kept.get();
  uint32_t* offsets = first.get();
  scratch_for([&](void* p, size_t& bytes) {
    return cub::DeviceScan::ExclusiveSum(p, bytes, counts, offsets, int(r.probes) + 1, stream);
  });
  if (r.probes) {
    pack_kernel<<<blocks_for(size_t(r.probes) * kKept), kBlock, 0, stream>>>(
        r.probes, slots.get(), first.get(), host_out.device());
    check_launch("track search pack_kernel");
    check_copy(cudaMemcpyAsync(host_all.get(), all.get(), size_t(r.probes) * sizeof(uint32_t),
                               cudaMemcpyDeviceToHost, stream),
               "track search counts download");
  }
  check_copy(cudaMemcpyAsync(host_first.get(), first.get(),
                             (size_t(r.probes) + 1) * sizeof(uint32_t), cudaMemcpyDeviceToHost,
                             stream),
             "track search offsets download");
  stop.record(stream);
  wait();
  candidates = 0;
  for (uint32_t k = 0; k < r.probes; ++k) candidates += host_all.get()[k];
  device_ms = elapsed_ms(start, stop);
  answer.all = host_all.get();
  answer.first = host_first.get();
  answer.candidates = host_out.host();
}

TrackSearch::TrackSearch(cudaStream_t stream) : impl_(std::make_unique<Impl>(stream)) {}
TrackSearch::~TrackSearch() = default;

void TrackSearch::use_device_table(const Component* device_components, uint32_t count) {
  impl_->device_table = device_components;
  impl_->device_count = count;
  impl_->table_given = true;
}

void TrackSearch::upload(TableView table) {
  impl_->upload(table.data, table.size);
  impl_->wait();
}

float TrackSearch::last_device_ms() const { return impl_->device_ms; }
double TrackSearch::last_wait_ms() const { return impl_->wait_ms; }
size_t TrackSearch::last_candidates() const { return impl_->candidates; }

tracking::Probe* TrackSearch::probe_buffer(size_t count) {
  impl_->host_probes.reserve(std::max<size_t>(count, 1), "track search probes");
  return impl_->host_probes.get();
}

void TrackSearch::find(const tracking::SearchRequest& request, tracking::SearchAnswer& answer) {
  impl_->find(request, answer);
}

}  // namespace ccl::cuda
