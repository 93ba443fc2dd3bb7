// The latches against [thread.latch.class] with the per-thread members called by lanes of
// one warp: each call is a count_down or wait of its own object (the warp may make the
// calls of lanes that name the same latch and update as one, but never merges latches or
// updates). A kernel that hangs is caught by the kernel deadline (gpu.hpp).

#include "gpu.hpp"
#include "latch_kinds.hpp"

#include <unisync/managed.hpp>

#include <gtest/gtest.h>

#include <array>
#include <chrono>

namespace {

using namespace unisync::test;

constexpr std::chrono::seconds lane_deadline{30};

/// Lane k counts down by 1 + (k / 2) % 2 (two updates on each latch).
__host__ __device__ constexpr unsigned update_of(unsigned lane) { return 1u + (lane / 2u) % 2u; }

/// Sum of the updates of the lanes of one parity.
constexpr unsigned updates_of_half(unsigned half)
{
  unsigned sum = 0;
  for (unsigned lane = half; lane < 32; lane += 2) sum += update_of(lane);
  return sum;
}

/// Even lanes on *latches[0], odd lanes on *latches[1], every lane with its own slot in
/// its half's record; the odd latch expects one count_down more, which lane 0 makes only
/// once it has been released from the even latch: the odd lanes must still be waiting
/// then, as separate calls on another object would be.
template <class Latch>
__global__ void lanes_on_two_latches(Latch* const* latches, release_record const* records, unsigned* order_errors)
{
  unsigned const lane = threadIdx.x;
  unsigned const half = lane & 1u;
  records[half].before_count_down(lane >> 1, 1);
  latches[half]->count_down(update_of(lane));
  latches[half]->wait();
  records[half].after_release(0, 16, 1);
  if (half == 1 && !latches[0]->try_wait()) atomicAdd(order_errors, 1u);  // released before the even latch
  if (lane == 0) {
    if (latches[1]->try_wait()) atomicAdd(order_errors, 1u);  // the odd latch needs lane 0's count_down
    latches[1]->count_down();
  }
}

/// Every lane of one converged warp counts down one latch, by update_of(lane) or, with
/// `same_update`, by 1; the latch expects one count_down more, which lane 0 makes only
/// after checking that no lane could pass (`early`), and then every lane waits.
template <class Latch>
__global__ void whole_warp_on_one_latch(Latch* latch, bool same_update, unsigned* early)
{
  unsigned const lane = threadIdx.x;
  latch->count_down(same_update ? 1u : update_of(lane));
  __syncwarp();
  if (latch->try_wait()) atomicAdd(early, 1u);
  __syncwarp();
  if (lane == 0) latch->count_down();
  latch->wait();
}

template <class Kind>
class ConformanceDeviceLatch : public ::testing::Test {};
TYPED_TEST_SUITE(ConformanceDeviceLatch, latch_kinds_tested, type_names);

// [thread.latch.class] p8 count_down: "Atomically decrements counter by update" -- the
// counter of the object it is called on, by that call's update, also when the lanes of
// one warp call it together on two latches with two updates each; p13 wait: blocks until
// a count_down decrements that counter to zero.
TYPED_TEST(ConformanceDeviceLatch, LanesOfAWarpCountDownTheirOwnLatches)
{
  UNISYNC_REQUIRE_GPU();
  using latch_type = typename TypeParam::type;
  for (int repeat = 0; repeat < 20; ++repeat) {
    auto slots = unisync::make_managed<std::array<cuda::std::uint32_t, 32>>();
    auto counters = unisync::make_managed<std::array<cuda::std::uint32_t, 3>>();  // violations per half, order
    auto records = unisync::make_managed<std::array<release_record, 2>>();
    for (unsigned half = 0; half < 2; ++half) {
      (*records)[half] = release_record{slots->data() + 16 * half, 16, &(*counters)[half]};
    }
    auto even = unisync::make_managed<latch_type>(updates_of_half(0));
    auto odd = unisync::make_managed<latch_type>(updates_of_half(1) + 1);
    TypeParam::prepare(*even);
    TypeParam::prepare(*odd);
    auto latches = unisync::make_managed<std::array<latch_type*, 2>>(std::array<latch_type*, 2>{even.get(), odd.get()});
    lanes_on_two_latches<<<1, 32>>>(latches->data(), records->data(), &(*counters)[2]);
    ASSERT_EQ(finish_device_work(lane_deadline), cudaSuccess);
    EXPECT_EQ((*counters)[0], 0u) << "an even lane was released before an even lane's count_down";
    EXPECT_EQ((*counters)[1], 0u) << "an odd lane was released before an odd lane's count_down";
    EXPECT_EQ((*counters)[2], 0u) << "the latches were released out of order";
    EXPECT_TRUE(even->try_wait());
    EXPECT_TRUE(odd->try_wait());
  }
}

// [thread.latch.class] p8 count_down: each call decrements by its own update, also when a
// whole warp calls it together on one latch (the warp may count its lanes with one
// atomic only where they all pass the same update).
TYPED_TEST(ConformanceDeviceLatch, WholeWarpCountsDownOneLatchByEachLanesUpdate)
{
  UNISYNC_REQUIRE_GPU();
  using latch_type = typename TypeParam::type;
  for (bool const same_update : {true, false}) {
    unsigned const total = same_update ? 32u : updates_of_half(0) + updates_of_half(1);
    auto latch = unisync::make_managed<latch_type>(total + 1);
    TypeParam::prepare(*latch);
    auto early = unisync::make_managed<unsigned>(0u);
    whole_warp_on_one_latch<<<1, 32>>>(latch.get(), same_update, early.get());
    ASSERT_EQ(finish_device_work(lane_deadline), cudaSuccess) << (same_update ? "one update" : "two updates");
    EXPECT_EQ(*early, 0u) << "a lane passed the latch before its last count_down";
    EXPECT_TRUE(latch->try_wait());
  }
}

}  // namespace
