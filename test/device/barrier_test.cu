// Barriers on GPU threads only: the phase checker block-collective and per thread, from 1
// block to the most blocks that can be resident, and the co-residency guard.

#include "device_actors.cuh"
#include "flags.hpp"
#include "gpu.hpp"

#include <unisync/barrier.hpp>
#include <unisync/co_resident_launch.hpp>
#include <unisync/error.hpp>
#include <unisync/managed.hpp>
#include <unisync/partitioned_barrier.hpp>

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

using namespace unisync::test;
using checked_barrier = unisync::barrier<checking_completion>;
using device_checked_barrier = unisync::basic_barrier<cuda::thread_scope_device, checking_completion>;
using checked_partitioned_barrier = unisync::partitioned_barrier<checking_completion>;
// The default completion: the last arrival itself completes the phase.
using plain_barrier = unisync::barrier<>;
using device_plain_barrier = unisync::basic_barrier<cuda::thread_scope_device>;

struct managed_phase_harness {
  explicit managed_phase_harness(unsigned participants) : slots(participants, 0)
  {
    record.slots = slots.data();
    record.participants = participants;
    record.violations = violations.get();
    record.completions = completions.get();
  }
  std::vector<std::uint32_t, unisync::managed_allocator<std::uint32_t>> slots;
  unisync::managed_ptr<std::uint32_t> violations = unisync::make_managed<std::uint32_t>(0u);
  unisync::managed_ptr<std::uint32_t> completions = unisync::make_managed<std::uint32_t>(0u);
  phase_record record;
};

template <class Barrier>
unisync::managed_ptr<Barrier> make_barrier(int participants, phase_record const& record)
{
  return make_checked_barrier<Barrier>([](auto... arguments) { return unisync::make_managed<Barrier>(arguments...); },
                                       participants, record);
}

template <class Barrier>
void check_block_collective(int blocks, unsigned phases)
{
  constexpr int threads = 128;
  managed_phase_harness harness(static_cast<unsigned>(blocks));
  auto barrier = make_barrier<Barrier>(blocks * threads, harness.record);
  unisync::launch_co_resident(phases_per_block<Barrier>, dim3(blocks), dim3(threads), 0, nullptr, barrier.get(),
                              harness.record, 0u, phases);
  ASSERT_EQ(finish_device_work(), cudaSuccess);
  EXPECT_EQ(*harness.violations, 0u) << blocks << " blocks";
  if constexpr (counts_completions<Barrier>) EXPECT_EQ(*harness.completions, phases) << blocks << " blocks";
}

template <class Barrier>
void check_per_thread(int blocks, int threads, unsigned phases)
{
  unsigned const participants = static_cast<unsigned>(blocks * threads);
  managed_phase_harness harness(participants);
  auto barrier = make_barrier<Barrier>(participants, harness.record);
  unisync::launch_co_resident(phases_per_thread<Barrier>, dim3(blocks), dim3(threads), 0, nullptr, barrier.get(),
                              harness.record, 0u, phases);
  ASSERT_EQ(finish_device_work(), cudaSuccess);
  EXPECT_EQ(*harness.violations, 0u) << blocks << " x " << threads;
  if constexpr (counts_completions<Barrier>) EXPECT_EQ(*harness.completions, phases) << blocks << " x " << threads;
}

/// The most blocks of `threads` threads of `kernel` that can be resident at once.
template <class Barrier>
int max_resident(void (*kernel)(Barrier*, phase_record, unsigned, unsigned), int threads)
{
  return unisync::max_resident_blocks(kernel, threads);
}

TEST(DeviceBarrier, NoParticipantLeavesPhaseEarlyBlockCollective)
{
  UNISYNC_REQUIRE_GPU();
  for (int blocks : {1, multiprocessor_count(), max_resident(phases_per_block<checked_barrier>, 128)}) {
    check_block_collective<checked_barrier>(blocks, 2000);
  }
}

TEST(DeviceBarrier, NoParticipantLeavesPhaseEarlyBlockCollectiveDeviceScope)
{
  UNISYNC_REQUIRE_GPU();
  check_block_collective<device_checked_barrier>(multiprocessor_count(), 2000);
}

TEST(DeviceBarrier, NoParticipantLeavesPhaseEarlyPerThread)
{
  UNISYNC_REQUIRE_GPU();
  check_per_thread<checked_barrier>(1, 128, 2000);
  check_per_thread<checked_barrier>(multiprocessor_count(), 32, 1000);
  // Every resident block: the completion check walks every slot, so fewer phases.
  check_per_thread<checked_barrier>(max_resident(phases_per_thread<checked_barrier>, 32), 32, 100);
}

TEST(DeviceBarrier, DefaultCompletionNoParticipantLeavesPhaseEarly)
{
  UNISYNC_REQUIRE_GPU();
  for (int blocks : {1, multiprocessor_count(), max_resident(phases_per_block<checked_barrier>, 128)}) {
    check_block_collective<plain_barrier>(blocks, 2000);
  }
  check_block_collective<device_plain_barrier>(multiprocessor_count(), 2000);
  check_per_thread<plain_barrier>(1, 128, 2000);
  check_per_thread<plain_barrier>(multiprocessor_count(), 32, 1000);
  check_per_thread<device_plain_barrier>(max_resident(phases_per_thread<checked_barrier>, 32), 32, 300);
}

/// Thread 0 takes part in every phase; every other thread leaves in phase 2 + its index
/// modulo `phases - 2`, so a few threads drop in each phase, per thread or warp by warp.
template <class Barrier>
__global__ void phases_with_staggered_drops(Barrier* barrier, phase_record record, unsigned phases)
{
  unsigned const slot = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned const leave_at = slot == 0 ? phases + 1 : 2 + slot % (phases - 2);
  for (unsigned phase = 1; phase <= phases; ++phase) {
    record.before_arriving(slot, phase);
    if (phase == leave_at) {
      record.before_arriving(slot, phase_record::dropped);
      barrier->arrive_and_drop();
      return;
    }
    barrier->arrive_and_wait();
    record.after_passing(slot + 1, 4, phase);
  }
}

template <class Barrier>
void check_staggered_drops(int blocks, int threads, unsigned phases)
{
  managed_phase_harness harness(static_cast<unsigned>(blocks * threads));
  auto barrier = make_barrier<Barrier>(blocks * threads, harness.record);
  unisync::launch_co_resident(phases_with_staggered_drops<Barrier>, dim3(blocks), dim3(threads), 0, nullptr,
                              barrier.get(), harness.record, phases);
  ASSERT_EQ(finish_device_work(), cudaSuccess);
  EXPECT_EQ(*harness.violations, 0u);
  if constexpr (counts_completions<Barrier>) EXPECT_EQ(*harness.completions, phases);
}

TEST(DeviceBarrier, StaggeredDropsShrinkLaterPhases)
{
  UNISYNC_REQUIRE_GPU();
  check_staggered_drops<plain_barrier>(multiprocessor_count(), 64, 200);
  check_staggered_drops<device_plain_barrier>(multiprocessor_count(), 64, 200);
  check_staggered_drops<checked_barrier>(multiprocessor_count(), 64, 200);
}

TEST(DevicePartitionedBarrier, NoParticipantLeavesPhaseEarlyBlockCollective)
{
  UNISYNC_REQUIRE_GPU();
  for (int blocks : {1, multiprocessor_count(), max_resident(phases_per_block<checked_partitioned_barrier>, 128)}) {
    check_block_collective<checked_partitioned_barrier>(blocks, 2000);
  }
}

TEST(DevicePartitionedBarrier, NoParticipantLeavesPhaseEarlyPerThread)
{
  UNISYNC_REQUIRE_GPU();
  check_per_thread<checked_partitioned_barrier>(1, 128, 2000);
  check_per_thread<checked_partitioned_barrier>(multiprocessor_count(), 32, 1000);
}

// GPU threads alone on a partitioned barrier: drops race the phases' arms (a drop on a
// side alone never waits). Each dropper was released from the phase before, so none
// lands above a completion's stop here: the host's PartitionedSidesAlone tests that.
TEST(DevicePartitionedBarrier, StaggeredDropsShrinkLaterPhases)
{
  UNISYNC_REQUIRE_GPU();
  check_staggered_drops<unisync::partitioned_barrier<>>(multiprocessor_count(), 64, 200);
  check_staggered_drops<checked_partitioned_barrier>(multiprocessor_count(), 64, 200);
  check_staggered_drops<checked_partitioned_barrier>(1, 128, 200);
}

/// A completion that holds its first run until `signal` is raised, at most two seconds
/// (then it notes that it was held too long), and counts its runs.
struct completion_awaiting_a_signal {
  cuda::std::uint32_t* runs;
  cuda::std::uint32_t* running;
  cuda::std::uint32_t* signal;
  cuda::std::uint32_t* held_too_long;
  UNISYNC_HOST_DEVICE void operator()() const noexcept
  {
    using unisync::detail::atomic_at;
    if (atomic_at<cuda::thread_scope_system>(*runs).fetch_add(1, unisync::detail::memory_order_relaxed) != 0) return;
    raise_flag(*running, 1);
    auto const limit = unisync::detail::deadline::after(2'000'000'000ull);
    while (load_flag(*signal) == 0) {
      if (limit.passed()) {
        raise_flag(*held_too_long, 1);
        return;
      }
    }
  }
};

/// Warp 0's lane 0 completes the first phase of a barrier of one; warp 1's lane 0 arrives
/// beyond it while the completion runs, then raises the signal the completion waits for.
template <class Barrier>
__global__ void arrive_beyond_while_the_first_completion_runs(Barrier* barrier, cuda::std::uint32_t* running,
                                                              cuda::std::uint32_t* signal)
{
  if (threadIdx.x == 0) barrier->arrive_and_wait();
  if (threadIdx.x == 32) {
    cuda::std::uint32_t gave_up = 0;  // bounded: a completion that never runs fails the runs check
    if (!await_flag(*running, 1, gave_up)) return;
    auto token = barrier->arrive();
    raise_flag(*signal, 1);
    barrier->wait(cuda::std::move(token));
  }
}

// GPU threads alone, more than the barrier expects: an arrival beyond the first phase that
// comes while that phase's completion runs returns from arrive() at once (its last arriver
// counts it on the side after the arm), and is released once its own phase completes.
TEST(DevicePartitionedBarrier, AnArrivalBeyondTheFirstPhaseReturnsWhileItsCompletionRuns)
{
  UNISYNC_REQUIRE_GPU();
  using holding_barrier = unisync::partitioned_barrier<completion_awaiting_a_signal>;
  auto runs = unisync::make_managed<cuda::std::uint32_t>(0u);
  auto running = unisync::make_managed<cuda::std::uint32_t>(0u);
  auto signal = unisync::make_managed<cuda::std::uint32_t>(0u);
  auto held_too_long = unisync::make_managed<cuda::std::uint32_t>(0u);
  auto barrier = unisync::make_managed<holding_barrier>(
      1, completion_awaiting_a_signal{runs.get(), running.get(), signal.get(), held_too_long.get()});
  arrive_beyond_while_the_first_completion_runs<<<1, 64>>>(barrier.get(), running.get(), signal.get());
  ASSERT_EQ(finish_device_work(), cudaSuccess);
  EXPECT_EQ(*held_too_long, 0u) << "the arrival beyond the first phase waited for its completion";
  EXPECT_EQ(*runs, 2u) << "the first phase and the one the arrival beyond it completed";
}

TEST(DeviceBarrier, CoResidencyGuardRefusesAnOversizedGrid)
{
  UNISYNC_REQUIRE_GPU();
  int const limit = max_resident(phases_per_block<checked_barrier>, 128);
  managed_phase_harness harness(1);
  auto barrier = unisync::make_managed<checked_barrier>(1, checking_completion{harness.record});
  try {
    unisync::launch_co_resident(phases_per_block<checked_barrier>, dim3(limit + 1), dim3(128), 0, nullptr,
                                barrier.get(), harness.record, 0u, 1u);
    FAIL() << "launched " << limit + 1 << " blocks with room for " << limit;
  } catch (unisync::error const& refused) {
    std::string const message = refused.what();
    EXPECT_NE(message.find(std::to_string(limit + 1) + " blocks"), std::string::npos) << message;
    EXPECT_NE(message.find("at most " + std::to_string(limit)), std::string::npos) << message;
  }
  EXPECT_EQ(finish_device_work(), cudaSuccess) << "nothing was launched";
}

}  // namespace
