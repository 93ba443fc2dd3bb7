// Barriers with CPU threads and GPU blocks as participants of the same phases, on one
// object in managed memory, over every barrier type: the phase checker and the completion
// function (which runs on either side) for 1x1, 4 x 132 and 15 x every resident block,
// and a side that leaves the barrier with arrive_and_drop while the other goes on.

#include "barrier_kinds.hpp"
#include "device_actors.cuh"
#include "gpu.hpp"
#include "mixed.hpp"

#include <unisync/co_resident_launch.hpp>
#include <unisync/managed.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <thread>
#include <vector>

namespace {

using namespace unisync::test;

struct mixed_cell {
  unsigned cpu_threads;
  int gpu_blocks;  // -1: every block that can be resident
  unsigned phases;
};

/// Slots, counters and the checker, in managed memory.
struct managed_phase_harness {
  explicit managed_phase_harness(unsigned participants) : slots(participants, 0)
  {
    record = phase_record{slots.data(), participants, violations.get(), completions.get()};
  }
  std::vector<std::uint32_t, unisync::managed_allocator<std::uint32_t>> slots;
  unisync::managed_ptr<std::uint32_t> violations = unisync::make_managed<std::uint32_t>(0u);
  unisync::managed_ptr<std::uint32_t> completions = unisync::make_managed<std::uint32_t>(0u);
  phase_record record;
};

template <class Kind>
class MixedBarrier : public ::testing::Test {};
using barrier_kinds = ::testing::Types<central_barrier_kind, partitioned_barrier_kind, flat_partitioned_barrier_kind>;
TYPED_TEST_SUITE(MixedBarrier, barrier_kinds, type_names);

template <class Kind, class Completion>
void check_mixed_phases()
{
  using barrier_type = typename Kind::template type<Completion>;
  constexpr int threads_per_block = 128;
  for (mixed_cell const cell : {mixed_cell{1, 1, 2000}, mixed_cell{4, 132, 1000}, mixed_cell{15, -1, 300}}) {
    int const blocks =
        cell.gpu_blocks >= 0 ? cell.gpu_blocks
                             : unisync::max_resident_blocks(phases_per_block<barrier_type>, threads_per_block);
    unsigned const cpu_threads = std::min(cell.cpu_threads, std::max(1u, std::thread::hardware_concurrency() - 1));
    managed_phase_harness harness(cpu_threads + static_cast<unsigned>(blocks));  // one slot per CPU thread and block
    phase_record const record = harness.record;
    auto barrier = make_checked_barrier<barrier_type>(
        [](auto... arguments) { return unisync::make_managed<barrier_type>(arguments...); },
        cpu_threads + blocks * threads_per_block, record);
    Kind::prepare(*barrier);
    cudaError_t const status = run_mixed(
        cpu_threads,
        [&](unsigned actor) {
          for (unsigned phase = 1; phase <= cell.phases; ++phase) {
            record.before_arriving(actor, phase);
            barrier->arrive_and_wait();
            record.after_passing(actor + 1, 8, phase);
          }
        },
        [&] {
          unisync::launch_co_resident(phases_per_block<barrier_type>, dim3(blocks), dim3(threads_per_block), 0,
                                      nullptr, barrier.get(), record, cpu_threads, cell.phases);
        });
    ASSERT_EQ(status, cudaSuccess) << cpu_threads << " CPU threads x " << blocks << " blocks";
    EXPECT_EQ(*harness.violations, 0u) << cpu_threads << " CPU threads x " << blocks << " blocks";
    if constexpr (counts_completions<barrier_type>) {
      EXPECT_EQ(*harness.completions, cell.phases) << cpu_threads << " CPU threads x " << blocks << " blocks";
    }
  }
}

TYPED_TEST(MixedBarrier, NoParticipantLeavesPhaseEarly)
{
  UNISYNC_REQUIRE_GPU();
  check_mixed_phases<TypeParam, checking_completion>();
}

TYPED_TEST(MixedBarrier, NoParticipantLeavesPhaseEarlyWithTheDefaultCompletion)
{
  UNISYNC_REQUIRE_GPU();
  check_mixed_phases<TypeParam, unisync::empty_completion>();
}

/// Every GPU thread takes part per thread until `leave_at`, where it drops out.
template <class Barrier>
__global__ void phases_then_drop(Barrier* barrier, phase_record record, unsigned first_slot, unsigned leave_at)
{
  unsigned const slot = first_slot + blockIdx.x * blockDim.x + threadIdx.x;
  for (unsigned phase = 1; phase < leave_at; ++phase) {
    record.before_arriving(slot, phase);
    barrier->arrive_and_wait();
    record.after_passing(slot + 1, 4, phase);
  }
  record.before_arriving(slot, phase_record::dropped);
  barrier->arrive_and_drop();
}

TYPED_TEST(MixedBarrier, GpuSideLeavesWhileCpuThreadsGoOn)
{
  UNISYNC_REQUIRE_GPU();
  using barrier_type = typename TypeParam::template type<checking_completion>;
  constexpr unsigned cpu_threads = 4;
  constexpr unsigned gpu_blocks = 4;
  constexpr unsigned gpu_threads = 32;
  constexpr unsigned leave_at = 50;
  constexpr unsigned phases = 200;
  managed_phase_harness harness(cpu_threads + gpu_blocks * gpu_threads);
  phase_record const record = harness.record;
  auto barrier = unisync::make_managed<barrier_type>(cpu_threads + gpu_blocks * gpu_threads, checking_completion{record});
  TypeParam::prepare(*barrier);
  cudaError_t const status = run_mixed(
      cpu_threads,
      [&](unsigned actor) {
        for (unsigned phase = 1; phase <= phases; ++phase) {
          record.before_arriving(actor, phase);
          barrier->arrive_and_wait();
          record.after_passing(actor + 1, 8, phase);
        }
      },
      [&] {
        phases_then_drop<<<gpu_blocks, gpu_threads>>>(barrier.get(), record, cpu_threads, leave_at);
      });
  ASSERT_EQ(status, cudaSuccess);
  EXPECT_EQ(*harness.violations, 0u);
  EXPECT_EQ(*harness.completions, phases);
}

/// Arrives, and reports whether a 2 ms timed wait saw the phase complete (it must not: the
/// host has not arrived), then waits for the host with a generous timeout.
template <class Barrier>
__global__ void timed_wait_for_host(Barrier* barrier, int* first_result, int* second_result)
{
  auto token = barrier->arrive();
  bool const early = barrier->try_wait_for(token, cuda::std::chrono::milliseconds(2));
  cuda::atomic_ref<int, cuda::thread_scope_system>(*first_result).store(early ? 1 : 0, cuda::std::memory_order_release);
  *second_result = barrier->try_wait_for(token, cuda::std::chrono::seconds(20)) ? 1 : 0;
}

TYPED_TEST(MixedBarrier, DeviceTimedWaitGivesUpWhileTheHostIsMissing)
{
  UNISYNC_REQUIRE_GPU();
  using barrier_type = typename TypeParam::template type<unisync::empty_completion>;
  auto barrier = unisync::make_managed<barrier_type>(2);
  TypeParam::prepare(*barrier);
  auto first_result = unisync::make_managed<int>(-1);
  auto second_result = unisync::make_managed<int>(-1);
  timed_wait_for_host<<<1, 1>>>(barrier.get(), first_result.get(), second_result.get());
  while (cuda::atomic_ref<int, cuda::thread_scope_system>(*first_result).load(cuda::std::memory_order_acquire) < 0) {
    std::this_thread::yield();
  }
  barrier->arrive_and_wait();
  ASSERT_EQ(finish_device_work(), cudaSuccess);
  EXPECT_EQ(*first_result, 0) << "the timed wait returned true with a participant missing";
  EXPECT_EQ(*second_result, 1) << "the phase completed once the host arrived";
}

}  // namespace
