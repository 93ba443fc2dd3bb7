// System-scope latches with CPU threads and GPU blocks on one object in managed memory,
// partitioned and flat: nobody is released before the last count_down and everybody
// after it, for 1 x 1, 4 x 132 and 15 x 528 CPU threads x GPU blocks, with block and
// per-thread count_downs on the GPU, a fresh latch per round; count_downs on one side
// only releasing waiters on the other side only; try_wait on both sides around the last
// count_down.

#include "flags.hpp"
#include "gpu.hpp"
#include "latch_kinds.hpp"
#include "mixed.hpp"

#include <unisync/co_resident_launch.hpp>
#include <unisync/managed.hpp>

#include <cooperative_groups.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <thread>

namespace {

using namespace unisync::test;
namespace cg = cooperative_groups;

constexpr unsigned threads_per_block = 128;

struct mixed_cell {
  unsigned cpu_threads;
  unsigned gpu_blocks;
  unsigned rounds;
};
constexpr mixed_cell mixed_cells[] = {{1, 1, 200}, {4, 132, 100}, {15, 528, 30}};

/// The cell's CPU threads, leaving a core for the driver on small hosts.
unsigned cpu_threads_for(mixed_cell const& cell)
{
  return std::min(cell.cpu_threads, std::max(1u, std::thread::hardware_concurrency() - 1));
}

/// The cell's blocks, at most as many as can be resident with the kernel (every block
/// waits for the others, so they must all run at once).
template <class Kernel>
unsigned gpu_blocks_for(mixed_cell const& cell, Kernel kernel)
{
  return std::min(cell.gpu_blocks,
                  static_cast<unsigned>(unisync::max_resident_blocks(kernel, static_cast<int>(threads_per_block))));
}

enum class gpu_calls { block, thread };

/// GPU side of a round: block-collective (slot per block) or per thread (slot per thread).
/// Slots of GPU actors follow the CPU's.
template <class Latch, gpu_calls Calls>
__global__ void gpu_rounds(Latch* const* latches, release_record record, unsigned first_slot, unsigned rounds)
{
  auto block = cg::this_thread_block();
  for (unsigned round = 1; round <= rounds; ++round) {
    Latch& latch = *latches[round - 1];
    if constexpr (Calls == gpu_calls::block) {
      if (block.thread_rank() == 0) record.before_count_down(first_slot + blockIdx.x, round);
      latch.arrive_and_wait(block);
      if (block.thread_rank() == 0) record.after_release(0, record.actors, round);
    } else {
      unsigned const slot = first_slot + blockIdx.x * blockDim.x + threadIdx.x;
      record.before_count_down(slot, round);
      latch.arrive_and_wait();
      record.after_release(slot + 1, 8, round);
    }
  }
}

template <class Kind>
class MixedLatch : public ::testing::Test {};
TYPED_TEST_SUITE(MixedLatch, system_latch_kinds, type_names);

template <class Kind, gpu_calls Calls>
void check_mixed_rounds()
{
  using latch_type = typename Kind::type;
  for (mixed_cell const& cell : mixed_cells) {
    unsigned const cpu_threads = cpu_threads_for(cell);
    unsigned const blocks = gpu_blocks_for(cell, gpu_rounds<latch_type, Calls>);
    unsigned const gpu_actors = Calls == gpu_calls::block ? blocks : blocks * threads_per_block;
    latch_rounds<Kind> latches(cell.rounds, cpu_threads + blocks * threads_per_block);
    managed_release_record record(cpu_threads + gpu_actors);
    release_record const checker = record.record;
    cudaError_t const status = run_mixed(
        cpu_threads,
        [&](unsigned actor) {
          for (unsigned round = 1; round <= cell.rounds; ++round) {
            checker.before_count_down(actor, round);
            latches.pointers[round - 1]->arrive_and_wait();
            checker.after_release(0, checker.actors, round);
          }
        },
        [&] {
          unisync::launch_co_resident(gpu_rounds<latch_type, Calls>, dim3(blocks), dim3(threads_per_block), 0,
                                      nullptr, latches.pointers.data(), checker, cpu_threads, cell.rounds);
        });
    ASSERT_EQ(status, cudaSuccess) << cpu_threads << " CPU threads x " << blocks << " blocks";
    EXPECT_EQ(*record.violations, 0u) << cpu_threads << " CPU threads x " << blocks << " blocks";
  }
}

TYPED_TEST(MixedLatch, NoOneIsReleasedBeforeTheLastCountDownPerBlock)
{
  UNISYNC_REQUIRE_GPU();
  check_mixed_rounds<TypeParam, gpu_calls::block>();
}

TYPED_TEST(MixedLatch, NoOneIsReleasedBeforeTheLastCountDownPerThread)
{
  UNISYNC_REQUIRE_GPU();
  check_mixed_rounds<TypeParam, gpu_calls::thread>();
}

/// What the GPU blocks of a one-sided test do.
enum class gpu_role { counts_down, arrives_and_waits, waits };

/// GPU blocks only count down (each once for its threads; with arrive_and_wait the GPU's
/// report may come from the block's second warp), or only wait.
template <class Latch>
__global__ void gpu_counts_down_or_waits(Latch* const* latches, release_record record, gpu_role role,
                                         unsigned first_slot, unsigned rounds)
{
  auto block = cg::this_thread_block();
  for (unsigned round = 1; round <= rounds; ++round) {
    Latch& latch = *latches[round - 1];
    if (role != gpu_role::waits) {
      if (block.thread_rank() == 0) record.before_count_down(first_slot + blockIdx.x, round);
      if (role == gpu_role::counts_down) {
        latch.count_down(block);
      } else {
        latch.arrive_and_wait(block);
      }
    } else {
      latch.wait(block);
      if (block.thread_rank() == 0) record.after_release(0, record.actors, round);
    }
  }
}

/// count_downs from one side only, waiters on the other side only: the end must reach
/// waiters on a side where nobody counted down, in every round.
template <class Kind>
void check_one_side_releases_the_other(gpu_role role)
{
  using latch_type = typename Kind::type;
  bool const gpu_counts = role != gpu_role::waits;
  for (mixed_cell const& cell : mixed_cells) {
    unsigned const cpu_threads = cpu_threads_for(cell);
    unsigned const blocks = gpu_blocks_for(cell, gpu_counts_down_or_waits<latch_type>);
    unsigned const counters = gpu_counts ? blocks : cpu_threads;
    latch_rounds<Kind> latches(cell.rounds, gpu_counts ? blocks * threads_per_block : cpu_threads);
    managed_release_record record(counters);
    release_record const checker = record.record;
    cudaError_t const status = run_mixed(
        cpu_threads,
        [&](unsigned actor) {
          for (unsigned round = 1; round <= cell.rounds; ++round) {
            if (gpu_counts) {
              latches.pointers[round - 1]->wait();
              checker.after_release(0, checker.actors, round);
            } else {
              checker.before_count_down(actor, round);
              latches.pointers[round - 1]->count_down();
            }
          }
        },
        [&] {
          unisync::launch_co_resident(gpu_counts_down_or_waits<latch_type>, dim3(blocks), dim3(threads_per_block), 0,
                                      nullptr, latches.pointers.data(), checker, role, 0u, cell.rounds);
        });
    ASSERT_EQ(status, cudaSuccess) << cpu_threads << " CPU threads x " << blocks << " blocks";
    EXPECT_EQ(*record.violations, 0u) << cpu_threads << " CPU threads x " << blocks << " blocks";
  }
}

TYPED_TEST(MixedLatch, CpuCountDownsReleaseGpuWaiters)
{
  UNISYNC_REQUIRE_GPU();
  check_one_side_releases_the_other<TypeParam>(gpu_role::waits);
}

TYPED_TEST(MixedLatch, GpuCountDownsReleaseCpuWaiters)
{
  UNISYNC_REQUIRE_GPU();
  check_one_side_releases_the_other<TypeParam>(gpu_role::counts_down);
}

// Blocks that count down and wait together hand the GPU's report to their second warp:
// CPU waiters, with no count_down of their own, learn the end only from those reports.
TYPED_TEST(MixedLatch, GpuBlocksArrivingAndWaitingReleaseCpuWaiters)
{
  UNISYNC_REQUIRE_GPU();
  check_one_side_releases_the_other<TypeParam>(gpu_role::arrives_and_waits);
}

/// Every block counts down once for its threads, raises its flag, then polls try_wait
/// (bounded) and records whether it saw false before the host's count_down (it must:
/// the host counts down only once every block's flag is up) and true after.
template <class Latch>
__global__ void try_wait_across(Latch* latch, cuda::std::uint32_t* counted, cuda::std::uint32_t* early,
                                cuda::std::uint32_t* released, cuda::std::uint32_t* host_counted)
{
  auto block = cg::this_thread_block();
  latch->count_down(block);
  if (block.thread_rank() != 0) return;
  bool const early_true = latch->try_wait();
  unisync::detail::atomic_at<cuda::thread_scope_system>(*counted).fetch_add(1, unisync::detail::memory_order_release);
  cuda::std::uint32_t failures = 0;
  if (!await_flag(*host_counted, 1, failures)) return;
  if (early_true) unisync::detail::atomic_at<cuda::thread_scope_system>(*early).fetch_add(1, unisync::detail::memory_order_relaxed);
  auto const limit = unisync::detail::deadline::after(flag_wait_limit_ns);
  while (!latch->try_wait()) {
    if (limit.passed()) return;
    __nanosleep(500);
  }
  unisync::detail::atomic_at<cuda::thread_scope_system>(*released).fetch_add(1, unisync::detail::memory_order_relaxed);
}

TYPED_TEST(MixedLatch, TryWaitOnBothSidesAroundTheLastCountDown)
{
  UNISYNC_REQUIRE_GPU();
  using latch_type = typename TypeParam::type;
  constexpr unsigned blocks = 132;
  auto latch = unisync::make_managed<latch_type>(blocks * threads_per_block + 1);
  TypeParam::prepare(*latch);
  auto counters = unisync::make_managed<std::array<cuda::std::uint32_t, 4>>();  // counted, early, released, host
  cuda::std::uint32_t* words = counters->data();
  try_wait_across<<<blocks, threads_per_block>>>(latch.get(), &words[0], &words[1], &words[2], &words[3]);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  cuda::std::uint32_t failures = 0;
  EXPECT_TRUE(await_flag(words[0], blocks, failures)) << "the blocks did not all count down";
  EXPECT_FALSE(latch->try_wait()) << "try_wait on the CPU returned true with the CPU's count_down missing";
  latch->count_down();
  EXPECT_TRUE(latch->try_wait());
  raise_flag(words[3], 1);
  latch->wait();
  ASSERT_EQ(finish_device_work(), cudaSuccess);
  EXPECT_EQ(words[1], 0u) << "try_wait on the GPU returned true with the CPU's count_down missing";
  EXPECT_EQ(words[2], blocks) << "blocks whose try_wait never returned true after the last count_down";
}

/// Only the first warp of each block calls arrive_and_wait(block); the block's other
/// threads have exited.
template <class Latch>
__global__ void first_warps_arrive_and_wait(Latch* latch)
{
  if (threadIdx.x >= 32) return;
  latch->arrive_and_wait(cg::this_thread_block());
}

// A block whose other warps have exited counts down for the threads that call, and its
// leader reports that count itself: a report handed to a second warp that is gone would
// never be stored, and the CPU would never see the end.
TYPED_TEST(MixedLatch, BlocksWithExitedWarpsStillReportTheirCountDowns)
{
  UNISYNC_REQUIRE_GPU();
  using latch_type = typename TypeParam::type;
  for (unsigned const blocks : {1u, 8u}) {
    auto latch = unisync::make_managed<latch_type>(blocks * 32);
    TypeParam::prepare(*latch);
    first_warps_arrive_and_wait<<<blocks, threads_per_block>>>(latch.get());
    ASSERT_EQ(cudaGetLastError(), cudaSuccess);
    ASSERT_EQ(finish_device_work(), cudaSuccess) << blocks << " blocks";
    auto const give_up = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (!latch->try_wait() && std::chrono::steady_clock::now() < give_up) std::this_thread::yield();
    EXPECT_TRUE(latch->try_wait()) << blocks << " blocks: the CPU never saw the GPU's count_downs";
  }
}

}  // namespace
