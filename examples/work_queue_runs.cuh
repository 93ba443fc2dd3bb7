#pragma once
// Running the work queue (work_queue.cuh) both ways, and the status quo it replaces:
// batches built on the host and handed over with a copy and a kernel launch each. Every
// run records, per item, how many times it was taken and its enqueue-to-start latency, so
// that the example can check exactly-once delivery and the benchmark can report the
// latency's median and 99th percentile.

#include "cuda_memory.cuh"
#include "work_queue.cuh"

#include <unisync/error.hpp>

#include <cuda/std/chrono>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace work_queue {

/// When producers stop: after `items_per_producer` items or `window_seconds`, whichever
/// comes first.
struct run_limits {
  std::uint64_t items_per_producer;
  double window_seconds;
};

/// What a run did: items consumed, its length, and the per-item records of the first
/// `records` claim numbers (times taken; latency in ns, 0 when not taken).
struct run_result {
  std::uint64_t items = 0;
  double seconds = 0;
  std::uint64_t corrupt_items = 0;  // payloads that did not match their producer's
  std::vector<std::uint32_t> times_taken;
  std::vector<std::uint32_t> latency_ns;
};

/// The payload a producer writes: from its producer and index, with word w holding
/// base + index * w, so that a consumer can check it without knowing who wrote it.
__host__ __device__ inline void fill_payload(item& value, std::uint64_t producer, std::uint64_t index)
{
  std::uint64_t const base = producer * 0x9e3779b97f4a7c15ull + index;
  for (int word = 0; word < 6; ++word) value.payload[word] = base + index * word;
}
__host__ __device__ inline bool payload_intact(item const& value)
{
  std::uint64_t const index = value.payload[1] - value.payload[0];
  for (int word = 2; word < 6; ++word) {
    if (value.payload[word] != value.payload[0] + index * word) return false;
  }
  return true;
}

/// Per-item records, in memory both sides write (managed): how often each claim number
/// was taken, and when it started.
struct records {
  std::uint32_t* times_taken;
  std::uint32_t* latency_ns;
  std::uint64_t capacity;

  __host__ __device__ void taken(item const& value, std::uint64_t started_ns) const
  {
    if (value.sequence >= capacity) return;
    cuda::atomic_ref<std::uint32_t, cuda::thread_scope_system>(times_taken[value.sequence])
        .fetch_add(1, cuda::std::memory_order_relaxed);
    std::uint64_t const waited = started_ns > value.enqueued_ns ? started_ns - value.enqueued_ns : 1;
    latency_ns[value.sequence] = static_cast<std::uint32_t>(waited < 0xffffffffu ? waited : 0xffffffffu);
  }
};

class record_storage {
 public:
  explicit record_storage(std::uint64_t capacity)
      : capacity_(capacity), times_taken_(zeroed(capacity)), latency_ns_(zeroed(capacity))
  {
  }

  records get() const { return records{times_taken_.get(), latency_ns_.get(), capacity_}; }
  void copy_into(run_result& result, std::uint64_t claims) const
  {
    std::uint64_t const kept = std::min(claims, capacity_);
    result.times_taken.assign(times_taken_.get(), times_taken_.get() + kept);
    result.latency_ns.assign(latency_ns_.get(), latency_ns_.get() + kept);
  }

 private:
  static cuda_memory::device_array<std::uint32_t> zeroed(std::uint64_t capacity)
  {
    cuda_memory::device_array<std::uint32_t> records = cuda_memory::allocate_managed<std::uint32_t>(capacity);
    std::fill(records.get(), records.get() + capacity, 0u);
    return records;
  }

  std::uint64_t capacity_;
  cuda_memory::device_array<std::uint32_t> times_taken_;
  cuda_memory::device_array<std::uint32_t> latency_ns_;
};

/// One consumer per block (thread 0) until it takes a stop item.
template <class View>
__global__ void consume_on_gpu(View queue, std::uint32_t work_ns, records taken, unsigned long long* consumed,
                               unsigned long long* corrupt)
{
  unsigned long long mine = 0;
  unsigned long long bad = 0;
  for (;;) {
    item const value = queue.pop();
    if (value.sequence == stop_sequence) break;
    taken.taken(value, gpu_clock_ns(0));
    bad += payload_intact(value) ? 0 : 1;
    work_for(work_ns, 0);
    ++mine;
  }
  atomicAdd(consumed, mine);
  atomicAdd(corrupt, bad);
}

/// One producer per block (thread 0) until `stop` is set or its items are out.
template <class View>
__global__ void produce_on_gpu(View queue, std::uint64_t items, unsigned const* stop)
{
  cuda::atomic_ref<unsigned, cuda::thread_scope_system> stopped(*const_cast<unsigned*>(stop));
  for (std::uint64_t index = 0; index < items && stopped.load(cuda::std::memory_order_relaxed) == 0; ++index) {
    item value{};
    fill_payload(value, blockIdx.x, index);
    value.enqueued_ns = gpu_clock_ns(0);
    queue.push(value);
  }
}

inline void check_cuda(cudaError_t status, char const* what)
{
  if (status != cudaSuccess) throw unisync::error(std::string("work_queue: ") + what + ": " + cudaGetErrorString(status));
}

/// Host threads produce, GPU blocks consume.
template <class Ring>
run_result host_to_gpu(Ring& queue_ring, unsigned producers, unsigned blocks, std::uint32_t work_ns,
                       run_limits limits, std::uint64_t record_capacity)
{
  std::int64_t const offset = clock_offset();
  auto const queue = queue_ring.get();
  record_storage storage(record_capacity);
  auto const counts = cuda_memory::allocate_managed<unsigned long long>(2);  // consumed, corrupt
  counts[0] = counts[1] = 0;
  consume_on_gpu<<<blocks, 1>>>(queue, work_ns, storage.get(), counts.get(), counts.get() + 1);
  check_cuda(cudaGetLastError(), "consumer launch");
  auto const start = std::chrono::steady_clock::now();
  auto const deadline = start + std::chrono::duration<double>(limits.window_seconds);
  // If the consumer kernel fails or ends early, nobody drains the ring and producers
  // waiting for a free slot would wait forever. A watcher looks every 250 ms while items
  // are still being pushed; once the kernel has stopped it takes the items itself, so that
  // every push returns, and the run ends with an error. The last push wakes it, so that the
  // run's time holds no wait for it (a watcher that slept 20 ms between looks cost 15
  // producers a fifth of their items per second in 100 ms runs).
  std::atomic<bool> consumers_gone{false};
  std::atomic<unsigned> pushing{producers + 1};  // the producers, then the stop items
  std::atomic<unsigned> stops_announced{0};      // counted before each stop item's push
  std::mutex watch;
  std::condition_variable all_pushed;
  auto done_pushing = [&] {
    if (pushing.fetch_sub(1) != 1) return;
    std::lock_guard<std::mutex> const lock(watch);
    all_pushed.notify_one();
  };
  std::thread watcher([&] {
    std::unique_lock<std::mutex> lock(watch);
    while (!all_pushed.wait_for(lock, std::chrono::milliseconds(250), [&] { return pushing.load() == 0; })) {
      cudaError_t const state = cudaStreamQuery(nullptr);
      if (state == cudaErrorNotReady) continue;
      // Ended as asked: every block took its stop item, announced before it was pushed.
      if (state == cudaSuccess && stops_announced.load() == blocks) return;
      consumers_gone.store(true);
      lock.unlock();
      item discarded{};
      while (pushing.load() != 0) static_cast<void>(queue.try_pop_for(discarded, cuda::std::chrono::milliseconds(20)));
      return;
    }
  });
  std::vector<std::thread> threads;
  for (unsigned producer = 0; producer < producers; ++producer) {
    threads.emplace_back([&, producer] {
      for (std::uint64_t index = 0; index < limits.items_per_producer && !consumers_gone.load(); ++index) {
        if ((index & 15u) == 0 && std::chrono::steady_clock::now() >= deadline) break;
        item value{};
        fill_payload(value, producer, index);
        value.enqueued_ns = gpu_clock_ns(offset);
        queue.push(value);
      }
      done_pushing();
    });
  }
  for (std::thread& thread : threads) thread.join();
  item stop{};
  stop.sequence = stop_sequence;
  for (unsigned block = 0; block < blocks && !consumers_gone.load(); ++block) {
    stops_announced.fetch_add(1);
    queue.push(stop);
  }
  done_pushing();
  watcher.join();
  check_cuda(cudaDeviceSynchronize(), "consumers");
  if (consumers_gone.load()) {
    throw unisync::error("work_queue: the consumer kernel ended before it took every item");
  }
  run_result result;
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.items = counts[0];
  result.corrupt_items = counts[1];
  storage.copy_into(result, result.items);
  return result;
}

/// GPU blocks produce, host threads consume.
template <class Ring>
run_result gpu_to_host(Ring& queue_ring, unsigned producer_blocks, unsigned consumers, std::uint32_t work_ns,
                       run_limits limits, std::uint64_t record_capacity)
{
  std::int64_t const offset = clock_offset();
  auto const queue = queue_ring.get();
  record_storage storage(record_capacity);
  auto stop_flag = unisync::make_managed<unsigned>(unisync::memory_advice::prefer_host, 0u);
  auto const start = std::chrono::steady_clock::now();
  produce_on_gpu<<<producer_blocks, 1>>>(queue, limits.items_per_producer, stop_flag.get());
  check_cuda(cudaGetLastError(), "producer launch");
  std::atomic<std::uint64_t> consumed{0};
  std::atomic<std::uint64_t> corrupt{0};
  std::vector<std::thread> threads;
  auto const records_view = storage.get();
  for (unsigned consumer = 0; consumer < consumers; ++consumer) {
    threads.emplace_back([&] {
      std::uint64_t mine = 0;
      for (;;) {
        item const value = queue.pop();
        if (value.sequence == stop_sequence) break;
        records_view.taken(value, gpu_clock_ns(offset));
        if (!payload_intact(value)) corrupt.fetch_add(1);
        work_for(work_ns, offset);
        ++mine;
      }
      consumed.fetch_add(mine);
    });
  }
  // The producers stop at the window's end (or when their items are out); then one stop
  // item per consumer, pushed from the host.
  while (std::chrono::steady_clock::now() - start < std::chrono::duration<double>(limits.window_seconds) &&
         cudaStreamQuery(nullptr) == cudaErrorNotReady) {
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  cuda::atomic_ref<unsigned, cuda::thread_scope_system>(*stop_flag).store(1, cuda::std::memory_order_relaxed);
  // The consumers are stopped and joined even when the producers failed, and only then is
  // that reported: a joinable std::thread left behind by an exception ends the program.
  cudaError_t const produced = cudaDeviceSynchronize();
  item stop{};
  stop.sequence = stop_sequence;
  for (unsigned consumer = 0; consumer < consumers; ++consumer) queue.push(stop);
  for (std::thread& thread : threads) thread.join();
  check_cuda(produced, "producers");
  run_result result;
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.items = consumed.load();
  result.corrupt_items = corrupt.load();
  storage.copy_into(result, result.items);
  return result;
}

/// The status quo: each producer thread fills a batch on the host, then copies it to the
/// GPU and launches a kernel whose blocks work through it; two batches per producer, so
/// that one fills while the other is in flight.
__global__ void consume_batch(item const* batch, std::uint32_t count, std::uint32_t work_ns, records taken,
                              unsigned long long* corrupt)
{
  for (std::uint32_t index = blockIdx.x; index < count; index += gridDim.x) {
    item const value = batch[index];
    taken.taken(value, gpu_clock_ns(0));
    if (!payload_intact(value)) atomicAdd(corrupt, 1ull);
    work_for(work_ns, 0);
  }
}

inline run_result batched_launches(unsigned producers, unsigned blocks, std::uint32_t work_ns, std::uint32_t batch,
                                   run_limits limits, std::uint64_t record_capacity)
{
  std::int64_t const offset = clock_offset();
  record_storage storage(record_capacity);
  auto const corrupt = cuda_memory::allocate_managed<unsigned long long>(1);
  corrupt[0] = 0;
  std::atomic<std::uint64_t> next_sequence{0};
  auto const start = std::chrono::steady_clock::now();
  auto const deadline = start + std::chrono::duration<double>(limits.window_seconds);
  auto const records_view = storage.get();
  auto produce = [&](unsigned producer) {
    cuda_memory::owned_stream const owned = cuda_memory::create_stream();
    cudaStream_t const stream = owned.get();
    cuda_memory::pinned_array<item> host[2] = {cuda_memory::allocate_pinned<item>(batch),
                                               cuda_memory::allocate_pinned<item>(batch)};
    cuda_memory::device_array<item> device[2] = {cuda_memory::allocate_device<item>(batch),
                                                 cuda_memory::allocate_device<item>(batch)};
    cuda_memory::owned_event done[2] = {cuda_memory::create_event(cudaEventDisableTiming),
                                        cuda_memory::create_event(cudaEventDisableTiming)};
    for (auto const& event : done) check_cuda(cudaEventRecord(event.get(), stream), "cudaEventRecord");
    std::uint64_t index = 0;
    for (int buffer = 0; index < limits.items_per_producer && std::chrono::steady_clock::now() < deadline;
         buffer ^= 1) {
      // This buffer's last batch is done.
      check_cuda(cudaEventSynchronize(done[buffer].get()), "cudaEventSynchronize");
      std::uint32_t filled = 0;
      for (; filled < batch && index < limits.items_per_producer; ++filled, ++index) {
        item& value = host[buffer][filled];
        fill_payload(value, producer, index);
        value.sequence = next_sequence.fetch_add(1, std::memory_order_relaxed);
        value.enqueued_ns = gpu_clock_ns(offset);
      }
      check_cuda(cudaMemcpyAsync(device[buffer].get(), host[buffer].get(), filled * sizeof(item),
                                 cudaMemcpyHostToDevice, stream),
                 "cudaMemcpyAsync");
      consume_batch<<<blocks, 1, 0, stream>>>(device[buffer].get(), filled, work_ns, records_view, corrupt.get());
      check_cuda(cudaEventRecord(done[buffer].get(), stream), "cudaEventRecord");
    }
    check_cuda(cudaStreamSynchronize(stream), "batches");
  };
  // A failure in a producer thread is carried out of it and rethrown here, after every
  // thread has been joined: an exception that left a std::thread would end the program.
  std::vector<std::exception_ptr> failures(producers);
  std::vector<std::thread> threads;
  auto join_all = [&] {
    for (std::thread& thread : threads) thread.join();
  };
  try {
    for (unsigned producer = 0; producer < producers; ++producer) {
      threads.emplace_back([&, producer] {
        try {
          produce(producer);
        } catch (...) {
          failures[producer] = std::current_exception();
        }
      });
    }
  } catch (...) {
    join_all();
    throw;
  }
  join_all();
  for (std::exception_ptr const& failure : failures) {
    if (failure) std::rethrow_exception(failure);
  }
  run_result result;
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.items = next_sequence.load();
  result.corrupt_items = corrupt[0];
  storage.copy_into(result, result.items);
  return result;
}

/// The latency at `fraction` (0.5: median) of the recorded items, in ns.
inline double latency_percentile(run_result const& result, double fraction)
{
  std::vector<std::uint32_t> taken;
  for (std::size_t index = 0; index < result.latency_ns.size(); ++index) {
    if (result.times_taken[index] != 0) taken.push_back(result.latency_ns[index]);
  }
  if (taken.empty()) return 0;
  auto const at = static_cast<std::size_t>(fraction * static_cast<double>(taken.size() - 1));
  std::nth_element(taken.begin(), taken.begin() + static_cast<std::ptrdiff_t>(at), taken.end());
  return taken[at];
}

}  // namespace work_queue
