// The barriers against [thread.barrier.class] with the per-thread members called by lanes
// of one warp: each lane is one participant (a warp that arrives together may arrive with
// one atomic, but every lane still counts as one arrival of its own object). A kernel
// that hangs is caught by the kernel deadline (gpu.hpp).

#include "barrier_kinds.hpp"
#include "checks.hpp"
#include "gpu.hpp"
#include "test_access.hpp"

#include <unisync/barrier.hpp>
#include <unisync/capabilities.hpp>
#include <unisync/managed.hpp>
#include <unisync/partitioned_barrier.hpp>

#include <cuda/atomic>

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <type_traits>

namespace {

using namespace unisync::test;

constexpr std::chrono::seconds lane_deadline{30};

/// Even lanes on *barriers[0], odd lanes on *barriers[1], each barrier of 16; the phase
/// checker of each barrier has one slot per lane of its half.
template <class Barrier>
__global__ void lanes_on_two_barriers(Barrier* const* barriers, phase_record const* records, unsigned phases)
{
  unsigned const lane = threadIdx.x;
  unsigned const half = lane & 1u;
  unsigned const slot = lane >> 1;
  for (unsigned phase = 1; phase <= phases; ++phase) {
    records[half].before_arriving(slot, phase);
    barriers[half]->arrive_and_wait();
    records[half].after_passing(0, 16, phase);
  }
}

template <class Kind>
class ConformanceDeviceBarrier : public ::testing::Test {};
TYPED_TEST_SUITE(ConformanceDeviceBarrier, barrier_kinds_tested, type_names);

// [thread.barrier.class] arrive_and_wait(): each call is one arrival of the object it is
// called on, also when the lanes of one warp call it together on two barriers.
TYPED_TEST(ConformanceDeviceBarrier, LanesOfAWarpArriveOnTheirOwnBarriers)
{
  UNISYNC_REQUIRE_GPU();
  using barrier_type = typename TypeParam::template type<checking_completion>;
  constexpr unsigned phases = 100;
  auto slots = unisync::make_managed<std::array<cuda::std::uint32_t, 32>>();
  auto counters = unisync::make_managed<std::array<cuda::std::uint32_t, 4>>();  // violations, completions per half
  auto records = unisync::make_managed<std::array<phase_record, 2>>();
  for (unsigned half = 0; half < 2; ++half) {
    (*records)[half] = phase_record{slots->data() + 16 * half, 16, &(*counters)[2 * half], &(*counters)[2 * half + 1]};
  }
  auto even = unisync::make_managed<barrier_type>(16, checking_completion{(*records)[0]});
  auto odd = unisync::make_managed<barrier_type>(16, checking_completion{(*records)[1]});
  TypeParam::prepare(*even);
  TypeParam::prepare(*odd);
  auto barriers = unisync::make_managed<std::array<barrier_type*, 2>>(std::array<barrier_type*, 2>{even.get(), odd.get()});
  lanes_on_two_barriers<<<1, 32>>>(barriers->data(), records->data(), phases);
  ASSERT_EQ(finish_device_work(lane_deadline), cudaSuccess);
  for (unsigned half = 0; half < 2; ++half) {
    EXPECT_EQ((*counters)[2 * half], 0u) << "a lane left a phase of barrier " << half << " early";
    EXPECT_EQ((*counters)[2 * half + 1], phases) << "completions of barrier " << half;
  }
}

/// What a participant's try_wait, try_wait_for and try_wait_until said about its token: 1
/// where the answer was right (false before the other participant arrived, true after).
struct try_wait_answers {
  cuda::std::uint32_t before = 0;
  cuda::std::uint32_t timed_out = 0;
  cuda::std::uint32_t until_out = 0;
  cuda::std::uint32_t timed_after = 0;
  cuda::std::uint32_t until_after = 0;
  cuda::std::uint32_t until_past_after = 0;
  cuda::std::uint32_t after = 0;
};

/// Thread 0 arrives on a barrier of two and asks about its token; thread 32 (another warp)
/// arrives only once thread 0 lets it.
template <class Barrier>
__global__ void try_wait_around_the_last_arrival(Barrier* barrier, cuda::std::uint32_t* go, try_wait_answers* answers)
{
  using namespace cuda::std::chrono;
  cuda::atomic_ref<cuda::std::uint32_t, cuda::thread_scope_device> signal(*go);
  if (threadIdx.x == 0) {
    auto const token = barrier->arrive();
    answers->before = barrier->try_wait(token) ? 0u : 1u;
    answers->timed_out = barrier->try_wait_for(token, microseconds(200)) ? 0u : 1u;
    answers->until_out = barrier->try_wait_until(token, system_clock::now() + microseconds(200)) ? 0u : 1u;
    signal.store(1, cuda::std::memory_order_release);
    answers->timed_after = barrier->try_wait_for(token, seconds(10)) ? 1u : 0u;
    answers->until_after = barrier->try_wait_until(token, system_clock::now() + seconds(10)) ? 1u : 0u;
    answers->until_past_after = barrier->try_wait_until(token, system_clock::now() - seconds(1)) ? 1u : 0u;
    answers->after = barrier->try_wait(token) ? 1u : 0u;
  } else if (threadIdx.x == 32) {
    while (signal.load(cuda::std::memory_order_acquire) == 0) {
    }
    barrier->arrive_and_wait();
  }
}

// try_wait(token), try_wait_for(token, timeout) and try_wait_until(token, when)
// (extensions std's barrier lacks, as libcu++'s cuda::barrier has them) on the device:
// false while the phase is open, also once the timeout has passed; true once the last
// participant has arrived, also with a deadline already past.
TYPED_TEST(ConformanceDeviceBarrier, TryWaitAnswersBeforeAndAfterTheLastArrival)
{
  UNISYNC_REQUIRE_GPU();
  using barrier_type = typename TypeParam::template type<unisync::empty_completion>;
  auto barrier = unisync::make_managed<barrier_type>(2);
  TypeParam::prepare(*barrier);
  auto go = unisync::make_managed<cuda::std::uint32_t>(0u);
  auto answers = unisync::make_managed<try_wait_answers>();
  try_wait_around_the_last_arrival<<<1, 64>>>(barrier.get(), go.get(), answers.get());
  ASSERT_EQ(finish_device_work(lane_deadline), cudaSuccess);
  EXPECT_EQ(answers->before, 1u) << "try_wait said the phase had completed before the last arrival";
  EXPECT_EQ(answers->timed_out, 1u) << "try_wait_for said the phase had completed before the last arrival";
  EXPECT_EQ(answers->until_out, 1u) << "try_wait_until said the phase had completed before the last arrival";
  EXPECT_EQ(answers->timed_after, 1u) << "try_wait_for gave up although the last participant arrived";
  EXPECT_EQ(answers->until_after, 1u) << "try_wait_until missed the completed phase";
  EXPECT_EQ(answers->until_past_after, 1u) << "try_wait_until(a past time point) missed the completed phase";
  EXPECT_EQ(answers->after, 1u) << "try_wait said the completed phase was still open";
}

/// Counts the runs of a barrier's completion function, on either side.
struct counting_completion {
  cuda::std::uint32_t* runs;
  __host__ __device__ void operator()() const noexcept
  {
    cuda::atomic_ref<cuda::std::uint32_t, cuda::thread_scope_system>(*runs).fetch_add(1, cuda::std::memory_order_relaxed);
  }
};

/// Every thread of one block arrive_and_wait()s once per round on a barrier that expects
/// fewer, rounds apart (__syncthreads): each records the phases it saw completed when it
/// left.
template <class Barrier>
__global__ void lanes_on_a_smaller_barrier(Barrier* barrier, cuda::std::uint32_t* seen, unsigned rounds)
{
  for (unsigned round = 0; round < rounds; ++round) {
    barrier->arrive_and_wait();
    seen[round * blockDim.x + threadIdx.x] = unisync::detail::test_access::open_phase(*barrier);
    __syncthreads();
  }
}

template <class Barrier>
class ConformanceDeviceBarrierMoreLanesThanExpected : public ::testing::Test {};
// The partitioned barrier with GPU threads alone: its first phase on the central word, the
// rest on the GPU's side word.
using barriers_counting_beyond_a_phase =
    ::testing::Types<unisync::barrier<>, unisync::basic_barrier<cuda::thread_scope_device>,
                     unisync::barrier<counting_completion>,
                     unisync::basic_barrier<cuda::thread_scope_device, counting_completion>,
                     unisync::partitioned_barrier<>, unisync::partitioned_barrier<counting_completion>>;
TYPED_TEST_SUITE(ConformanceDeviceBarrierMoreLanesThanExpected, barriers_counting_beyond_a_phase);

template <class Barrier>
constexpr bool is_partitioned_v = false;
template <class Completion, class Backoff>
constexpr bool is_partitioned_v<unisync::basic_partitioned_barrier<Completion, Backoff>> = true;

// [thread.barrier.class] arrive: arrivals beyond a phase's expected count are arrivals of
// the next phase, and each thread is released when its own phase completes: 32 lanes on a
// barrier of 16 complete two phases; 64 lanes on 16, four; 96 lanes on 24, four, where a
// warp's lanes span two phases and the later ones wait for lanes of other warps. No
// round may release more threads before its j-th phase completed than j phases hold, none
// before its first; a completion function runs once per phase.
TYPED_TEST(ConformanceDeviceBarrierMoreLanesThanExpected, EachLaneLeavesWhenItsOwnPhaseCompletes)
{
  UNISYNC_REQUIRE_GPU();
  if constexpr (is_partitioned_v<TypeParam>) {
    if (unisync::device_capabilities().host_native_atomic_supported) {
      GTEST_SKIP() << "make_managed selects the flat mode here, which refuses arrivals beyond a phase";
    }
  }
  constexpr unsigned rounds = 200;
  struct shape {
    unsigned lanes;
    unsigned expected;
  };
  for (shape const cell : {shape{32, 16}, shape{64, 16}, shape{96, 24}}) {
    unsigned const phases_per_round = cell.lanes / cell.expected;
    auto runs = unisync::make_managed<cuda::std::uint32_t>(0u);
    auto seen = unisync::make_managed<std::array<cuda::std::uint32_t, 96 * rounds>>();
    auto barrier = [&] {
      if constexpr (std::is_constructible_v<TypeParam, int, counting_completion>) {
        return unisync::make_managed<TypeParam>(cell.expected, counting_completion{runs.get()});
      } else {
        return unisync::make_managed<TypeParam>(cell.expected);
      }
    }();
    lanes_on_a_smaller_barrier<<<1, cell.lanes>>>(barrier.get(), seen->data(), rounds);
    ASSERT_EQ(finish_device_work(lane_deadline), cudaSuccess);
    EXPECT_EQ(unisync::detail::test_access::open_phase(*barrier), phases_per_round * rounds) << cell.lanes << " lanes";
    if constexpr (std::is_constructible_v<TypeParam, int, counting_completion>) {
      EXPECT_EQ(*runs, phases_per_round * rounds) << "one completion per phase, " << cell.lanes << " lanes";
    }
    for (unsigned round = 0; round < rounds; ++round) {
      auto const first = seen->begin() + cell.lanes * round;
      for (unsigned completed = 0; completed < phases_per_round; ++completed) {
        unsigned const open = phases_per_round * round + completed;  // phases seen completed: `open`
        auto const left = static_cast<unsigned>(
            std::count_if(first, first + cell.lanes, [&](cuda::std::uint32_t phases) { return phases <= open; }));
        EXPECT_LE(left, completed * cell.expected)
            << left << " of " << cell.lanes << " lanes left round " << round << " with " << completed
            << " of its phases completed";
      }
    }
  }
}

}  // namespace
