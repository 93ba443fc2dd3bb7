// CPU threads hand work to a persistent kernel through a bounded ring guarded by two
// unisync partitioned semaphores, and GPU blocks hand work back to CPU threads through
// another; the status quo (a copy and a launch per batch) runs beside them. Every item
// must be taken exactly once, with its payload intact.
// Exit status: 0 when every run delivered every item once, 1 otherwise, 77 without a GPU.
// With --consumers-stop-early: 0 when producers whose consumers have ended stop with an
// error instead of waiting on a full ring forever.

#include "work_queue_runs.cuh"

#include <unisync/capabilities.hpp>
#include <unisync/error.hpp>
#include <unisync/partitioned_semaphore.hpp>

#include <cstdio>
#include <cstring>

namespace {

constexpr std::uint32_t capacity = 1024;
using queue_semaphore = unisync::partitioned_semaphore<capacity>;  // platform-aware: CPU and GPU share it
using queue_ring = work_queue::ring<queue_semaphore, capacity>;

bool delivered_once(char const* what, work_queue::run_result const& result, std::uint64_t expected_items)
{
  std::uint64_t missing = 0;
  std::uint64_t repeated = 0;
  for (std::uint64_t claim = 0; claim < expected_items; ++claim) {
    std::uint32_t const times = claim < result.times_taken.size() ? result.times_taken[claim] : 0;
    missing += times == 0;
    repeated += times > 1;
  }
  bool const correct = result.items == expected_items && missing == 0 && repeated == 0 && result.corrupt_items == 0;
  std::printf("%-40s %8llu items in %.3f s, median latency %.1f us: %llu missing, %llu taken twice, %llu corrupt %s\n",
              what, static_cast<unsigned long long>(result.items), result.seconds,
              work_queue::latency_percentile(result, 0.5) * 1e-3, static_cast<unsigned long long>(missing),
              static_cast<unsigned long long>(repeated), static_cast<unsigned long long>(result.corrupt_items),
              correct ? "(correct)" : "(WRONG)");
  return correct;
}

/// Every consumer block takes a stop item put in first and ends: the producers fill the
/// ring, and must then give up with an error.
int consumers_stop_early(unsigned producers, unsigned blocks)
{
  queue_ring ring;
  work_queue::item stop{};
  stop.sequence = work_queue::stop_sequence;
  for (unsigned block = 0; block < blocks; ++block) ring.get().push(stop);
  try {
    static_cast<void>(
        work_queue::host_to_gpu(ring, producers, blocks, 0, work_queue::run_limits{4 * capacity, 60.0}, 1u << 20));
  } catch (unisync::error const& refused) {
    std::printf("producers stopped: %s (correct)\n", refused.what());
    return 0;
  }
  std::puts("producers finished with no consumer left (WRONG)");
  return 1;
}

}  // namespace

int main(int argc, char** argv)
{
  if (!unisync::gpu_available()) return std::puts("no GPU: nothing to hand work to"), 77;
  if (argc > 1 && std::strcmp(argv[1], "--consumers-stop-early") == 0) return consumers_stop_early(4, 33);
  constexpr unsigned cpu_threads = 4, gpu_blocks = 33;
  constexpr std::uint64_t items_each = 500;
  work_queue::run_limits const limits{items_each, 60.0};  // stop by count, not by time
  bool correct = true;
  {
    queue_ring ring;
    auto const result = work_queue::host_to_gpu(ring, cpu_threads, gpu_blocks, 1000, limits, 1u << 20);
    correct &= delivered_once("4 CPU producers -> 33 GPU consumers", result, cpu_threads * items_each);
  }
  {
    queue_ring ring;
    auto const result = work_queue::gpu_to_host(ring, gpu_blocks, cpu_threads, 1000, limits, 1u << 20);
    correct &= delivered_once("33 GPU producers -> 4 CPU consumers", result, gpu_blocks * items_each);
  }
  {
    auto const result = work_queue::batched_launches(cpu_threads, gpu_blocks, 1000, 64, limits, 1u << 20);
    correct &= delivered_once("4 CPU threads, a launch per 64 items", result, cpu_threads * items_each);
  }
  return correct ? 0 : 1;
}
