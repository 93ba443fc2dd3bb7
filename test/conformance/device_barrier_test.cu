// The barriers against [thread.barrier.class] with the per-thread members called by lanes
// of one warp: each lane is one participant (a warp that arrives together may arrive with
// one atomic, but every lane still counts as one arrival of its own object). A kernel
// that hangs is caught by the kernel deadline (gpu.hpp).

#include "barrier_kinds.hpp"
#include "checks.hpp"
#include "gpu.hpp"

#include <unisync/managed.hpp>

#include <gtest/gtest.h>

#include <array>
#include <chrono>

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

}  // namespace
