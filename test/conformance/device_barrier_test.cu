// The barriers against [thread.barrier.class] with the per-thread members called by lanes
// of one warp: each lane is one participant (a warp that arrives together may arrive with
// one atomic, but every lane still counts as one arrival of its own object). A kernel
// that hangs is caught by the kernel deadline (gpu.hpp).

#include "barrier_kinds.hpp"
#include "checks.hpp"
#include "gpu.hpp"
#include "test_access.hpp"

#include <unisync/barrier.hpp>
#include <unisync/managed.hpp>

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

/// Counts the runs of a barrier's completion function, on either side.
struct counting_completion {
  cuda::std::uint32_t* runs;
  __host__ __device__ void operator()() const noexcept
  {
    cuda::atomic_ref<cuda::std::uint32_t, cuda::thread_scope_system>(*runs).fetch_add(1, cuda::std::memory_order_relaxed);
  }
};

/// The 32 lanes of one warp arrive_and_wait() once per round on a barrier of 16, rounds
/// apart (__syncwarp): each lane records the phases it saw completed when it left.
template <class Barrier>
__global__ void warp_on_barrier_of_sixteen(Barrier* barrier, cuda::std::uint32_t* seen, unsigned rounds)
{
  for (unsigned round = 0; round < rounds; ++round) {
    barrier->arrive_and_wait();
    seen[round * 32 + threadIdx.x] = unisync::detail::test_access::open_phase(*barrier);
    __syncwarp();
  }
}

template <class Barrier>
class ConformanceDeviceBarrierMoreLanesThanExpected : public ::testing::Test {};
using central_barriers = ::testing::Types<unisync::barrier<>, unisync::basic_barrier<cuda::thread_scope_device>,
                                          unisync::barrier<counting_completion>,
                                          unisync::basic_barrier<cuda::thread_scope_device, counting_completion>>;
TYPED_TEST_SUITE(ConformanceDeviceBarrierMoreLanesThanExpected, central_barriers);

// [thread.barrier.class] arrive: arrivals beyond a phase's expected count are arrivals of
// the next phase: 32 lanes calling arrive_and_wait() together on a barrier of 16 complete
// two phases, each lane is released when its own phase completes (the first 16 may leave
// after the first phase, the others only after the second), and a completion function
// runs once per phase.
TYPED_TEST(ConformanceDeviceBarrierMoreLanesThanExpected, AWarpOnABarrierOfSixteenCompletesTwoPhases)
{
  UNISYNC_REQUIRE_GPU();
  constexpr unsigned rounds = 200;
  auto runs = unisync::make_managed<cuda::std::uint32_t>(0u);
  auto seen = unisync::make_managed<std::array<cuda::std::uint32_t, 32 * rounds>>();
  auto barrier = [&] {
    if constexpr (std::is_constructible_v<TypeParam, int, counting_completion>) {
      return unisync::make_managed<TypeParam>(16, counting_completion{runs.get()});
    } else {
      return unisync::make_managed<TypeParam>(16);
    }
  }();
  warp_on_barrier_of_sixteen<<<1, 32>>>(barrier.get(), seen->data(), rounds);
  ASSERT_EQ(finish_device_work(lane_deadline), cudaSuccess);
  EXPECT_EQ(unisync::detail::test_access::open_phase(*barrier), 2 * rounds);
  if constexpr (std::is_constructible_v<TypeParam, int, counting_completion>) {
    EXPECT_EQ(*runs, 2 * rounds) << "one completion per phase";
  }
  for (unsigned round = 0; round < rounds; ++round) {
    auto const lanes = seen->begin() + 32 * round;
    auto const early = std::count_if(lanes, lanes + 32, [&](cuda::std::uint32_t phases) { return phases <= 2 * round + 1; });
    auto const unfinished = std::count_if(lanes, lanes + 32, [&](cuda::std::uint32_t phases) { return phases <= 2 * round; });
    EXPECT_LE(early, 16) << "lanes left round " << round << " with only its first phase completed";
    EXPECT_EQ(unfinished, 0) << "lanes left round " << round << " before its first phase completed";
  }
}

}  // namespace
