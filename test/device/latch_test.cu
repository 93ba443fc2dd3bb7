// Latches on GPU threads, over every latch kind: nobody is released before the last
// count_down and everybody after it, with block-collective count_downs (one per block)
// and per-thread ones (lanes of a warp coalesced), a fresh latch per round; try_wait false
// before the last count_down and true after.

#include "gpu.hpp"
#include "latch_kinds.hpp"

#include <unisync/co_resident_launch.hpp>
#include <unisync/managed.hpp>

#include <cooperative_groups.h>
#include <gtest/gtest.h>

#include <vector>

namespace {

using namespace unisync::test;
namespace cg = cooperative_groups;

/// Each block counts down once for its threads and waits as a block: count_down(block)
/// then wait(block), or arrive_and_wait(block) (whose last block does not poll below
/// system scope, and hands the GPU's report to its second warp at system scope); its first
/// thread owns slot first_slot + blockIdx.x and probes every slot.
template <class Latch, bool ArriveAndWait>
__global__ void rounds_per_block(Latch* const* latches, release_record record, unsigned first_slot, unsigned rounds)
{
  auto block = cg::this_thread_block();
  unsigned const slot = first_slot + blockIdx.x;
  for (unsigned round = 1; round <= rounds; ++round) {
    Latch& latch = *latches[round - 1];
    if (block.thread_rank() == 0) record.before_count_down(slot, round);
    if constexpr (ArriveAndWait) {
      latch.arrive_and_wait(block);
    } else {
      latch.count_down(block);
      latch.wait(block);
    }
    if (block.thread_rank() == 0) record.after_release(0, record.actors, round);
  }
}

/// Every thread counts down and waits on its own (arrive_and_wait(), coalesced per warp),
/// owns a slot and probes 8 slots after its own.
template <class Latch>
__global__ void rounds_per_thread(Latch* const* latches, release_record record, unsigned first_slot, unsigned rounds)
{
  unsigned const slot = first_slot + blockIdx.x * blockDim.x + threadIdx.x;
  for (unsigned round = 1; round <= rounds; ++round) {
    record.before_count_down(slot, round);
    latches[round - 1]->arrive_and_wait();
    record.after_release(slot + 1, 8, round);
  }
}

template <class Kind>
class DeviceLatch : public ::testing::Test {};
TYPED_TEST_SUITE(DeviceLatch, latch_kinds_tested, type_names);

template <class Kind, bool ArriveAndWait>
void check_rounds_per_block()
{
  using latch_type = typename Kind::type;
  constexpr unsigned rounds = 40;
  constexpr unsigned threads = 128;
  // One block too: it alone reaches zero (below system scope) or reports (at system scope).
  for (unsigned const blocks : {1u, static_cast<unsigned>(multiprocessor_count())}) {
    latch_rounds<Kind> latches(rounds, blocks * threads);
    managed_release_record record(blocks);
    unisync::launch_co_resident(rounds_per_block<latch_type, ArriveAndWait>, dim3(blocks), dim3(threads), 0,
                                nullptr, latches.pointers.data(), record.record, 0u, rounds);
    ASSERT_EQ(finish_device_work(), cudaSuccess) << blocks << " blocks";
    EXPECT_EQ(*record.violations, 0u) << blocks << " blocks";
  }
}

TYPED_TEST(DeviceLatch, NoOneIsReleasedBeforeTheLastCountDownPerBlock)
{
  UNISYNC_REQUIRE_GPU();
  check_rounds_per_block<TypeParam, false>();
}

TYPED_TEST(DeviceLatch, NoOneIsReleasedBeforeTheLastArriveAndWaitPerBlock)
{
  UNISYNC_REQUIRE_GPU();
  check_rounds_per_block<TypeParam, true>();
}

TYPED_TEST(DeviceLatch, NoOneIsReleasedBeforeTheLastCountDownPerThread)
{
  UNISYNC_REQUIRE_GPU();
  using latch_type = typename TypeParam::type;
  constexpr unsigned rounds = 40;
  constexpr unsigned threads = 128;
  unsigned const blocks = static_cast<unsigned>(multiprocessor_count());
  latch_rounds<TypeParam> latches(rounds, blocks * threads);
  managed_release_record record(blocks * threads);
  unisync::launch_co_resident(rounds_per_thread<latch_type>, dim3(blocks), dim3(threads), 0, nullptr,
                              latches.pointers.data(), record.record, 0u, rounds);
  ASSERT_EQ(finish_device_work(), cudaSuccess);
  EXPECT_EQ(*record.violations, 0u);
}

/// Blocks 1.. count down once each and say so; block 0 waits until they all have, then
/// records try_wait (false: its own count_down is missing), counts down, and records
/// try_wait again (true).
template <class Latch>
__global__ void try_wait_around_the_last_count_down(Latch* latch, unsigned* counted, int* before, int* after)
{
  if (threadIdx.x != 0) return;
  if (blockIdx.x != 0) {
    latch->count_down();
    cuda::atomic_ref<unsigned, cuda::thread_scope_device>(*counted).fetch_add(1, cuda::std::memory_order_release);
    return;
  }
  auto const limit = unisync::detail::deadline::after(20'000'000'000ull);
  while (cuda::atomic_ref<unsigned, cuda::thread_scope_device>(*counted).load(cuda::std::memory_order_acquire) !=
         gridDim.x - 1) {
    if (limit.passed()) return;
    __nanosleep(1000);
  }
  *before = latch->try_wait() ? 1 : 0;
  latch->count_down();
  *after = latch->try_wait() ? 1 : 0;
}

TYPED_TEST(DeviceLatch, TryWaitIsFalseBeforeTheLastCountDownAndTrueAfter)
{
  UNISYNC_REQUIRE_GPU();
  using latch_type = typename TypeParam::type;
  constexpr unsigned blocks = 64;
  auto latch = unisync::make_managed<latch_type>(blocks);
  TypeParam::prepare(*latch);
  auto counted = unisync::make_managed<unsigned>(0u);
  auto before = unisync::make_managed<int>(-1);
  auto after = unisync::make_managed<int>(-1);
  try_wait_around_the_last_count_down<<<blocks, 32>>>(latch.get(), counted.get(), before.get(), after.get());
  ASSERT_EQ(finish_device_work(), cudaSuccess);
  EXPECT_EQ(*before, 0) << "try_wait returned true with a count_down missing";
  EXPECT_EQ(*after, 1) << "try_wait returned false after the last count_down";
  EXPECT_TRUE(latch->try_wait());
}

/// Tiles of 32 count down with update 2 per thread and wait as tiles.
template <class Latch>
__global__ void tiles_count_down_by_two(Latch* latch)
{
  auto tile = cg::tiled_partition<32>(cg::this_thread_block());
  latch->arrive_and_wait(tile, 2);
}

TYPED_TEST(DeviceLatch, TilesCountDownWithAnUpdate)
{
  UNISYNC_REQUIRE_GPU();
  using latch_type = typename TypeParam::type;
  auto latch = unisync::make_managed<latch_type>(8 * 128 * 2);
  TypeParam::prepare(*latch);
  tiles_count_down_by_two<<<8, 128>>>(latch.get());
  ASSERT_EQ(finish_device_work(), cudaSuccess);
  EXPECT_TRUE(latch->try_wait());
}

}  // namespace
