// Block-scope objects in `__shared__` memory, which nvcc never constructs: each kernel
// first fills the object's bytes with garbage (what a previous occupant of the memory may
// leave), one thread init()s it, and the block then runs the type's stress check. Without
// init() both locks read as held (the ticket lock's two counters differ) and the kernel
// runs into the test's deadline. Every block of the grid has its own objects.

#include "checks.hpp"
#include "gpu.hpp"

#include <unisync/barrier.hpp>
#include <unisync/counting_semaphore.hpp>
#include <unisync/latch.hpp>
#include <unisync/managed.hpp>
#include <unisync/mutex.hpp>
#include <unisync/shared_mutex.hpp>
#include <unisync/ticket_mutex.hpp>

#include <cooperative_groups.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <type_traits>
#include <vector>

namespace {

using namespace unisync::test;
namespace cg = cooperative_groups;
constexpr auto block_scope = cuda::thread_scope_block;
constexpr int threads_per_block = 128;

/// Results the kernels write and the test reads.
template <class T>
using managed_vector = std::vector<T, unisync::managed_allocator<T>>;

/// Every thread of the block fills part of `objects`' bytes with a pattern that differs
/// from byte to byte, never a zero word; the block synchronizes.
template <class T>
__device__ void scribble_over(T* objects, unsigned count)
{
  auto* const bytes = reinterpret_cast<unsigned char*>(objects);
  for (unsigned byte = threadIdx.x; byte < count * sizeof(T); byte += blockDim.x) {
    bytes[byte] = static_cast<unsigned char>(1 + byte % 251);
  }
  __syncthreads();
}

/// Two locks in one block: lanes of a warp take different ones (lane parity), each adds to
/// its lock's counter under it; then each warp, as a tile, adds once per round under lock 0
/// (after the whole block is done with the first loop: a tile's leader takes the lock before
/// the tile synchronizes, so a lane of its warp still queued for that lock would wait for
/// it forever, as with any lock held across a barrier).
template <class Mutex>
__global__ void count_under_shared_locks(unsigned long long* totals, int iterations)
{
  __shared__ Mutex locks[2];
  __shared__ unsigned long long counters[2];
  scribble_over(locks, 2);
  if (threadIdx.x == 0) {
    init(&locks[0]);
    init(&locks[1]);
    counters[0] = counters[1] = 0;
  }
  __syncthreads();
  unsigned const mine = threadIdx.x & 1u;
  for (int i = 0; i < iterations; ++i) {
    locks[mine].lock();
    increment_slowly(counters[mine]);
    locks[mine].unlock();
  }
  __syncthreads();
  auto const warp = cg::tiled_partition<32>(cg::this_thread_block());
  for (int i = 0; i < iterations; ++i) {
    locks[0].lock(warp);
    if (warp.thread_rank() == 0) increment_slowly(counters[0]);
    locks[0].unlock(warp);
  }
  __syncthreads();
  if (threadIdx.x == 0) totals[blockIdx.x] = counters[0] + counters[1];
}

template <class Mutex>
class SharedMemoryLock : public ::testing::Test {};
using block_mutex = unisync::basic_mutex<block_scope>;
using shared_memory_locks = ::testing::Types<block_mutex, unisync::basic_ticket_mutex<block_scope>>;
struct block_lock_names {
  template <class Mutex>
  static std::string GetName(int)
  {
    return std::is_same_v<Mutex, block_mutex> ? "block_scope_mutex" : "block_scope_ticket_mutex";
  }
};
TYPED_TEST_SUITE(SharedMemoryLock, shared_memory_locks, block_lock_names);

TYPED_TEST(SharedMemoryLock, InitThenNoLostUpdates)
{
  UNISYNC_REQUIRE_GPU();
  int const blocks = multiprocessor_count();
  constexpr int iterations = 50;
  managed_vector<unsigned long long> totals(blocks);
  count_under_shared_locks<TypeParam><<<blocks, threads_per_block>>>(totals.data(), iterations);
  ASSERT_EQ(finish_device_work(), cudaSuccess);
  for (int block = 0; block < blocks; ++block) {
    EXPECT_EQ(totals[block], static_cast<unsigned long long>(threads_per_block + threads_per_block / 32) * iterations)
        << "block " << block;
  }
}

/// What one block of the shared-mutex check saw.
struct shared_mutex_report {
  unsigned overlaps;      // a writer's section beside any other section
  unsigned most_readers;  // the most readers seen inside at once
  unsigned long long written;
};

/// One thread in 8 writes (increment_slowly under lock()); the others read under
/// lock_shared() and count how many readers are inside at once.
__global__ void shared_mutex_in_shared_memory(shared_mutex_report* reports, int iterations)
{
  __shared__ unisync::basic_shared_mutex<block_scope> mutex;
  __shared__ unsigned readers_inside, writers_inside, overlaps, most_readers;
  __shared__ unsigned long long written;
  scribble_over(&mutex, 1);
  if (threadIdx.x == 0) {
    init(&mutex);
    readers_inside = writers_inside = overlaps = most_readers = 0;
    written = 0;
  }
  __syncthreads();
  bool const writer = threadIdx.x % 8 == 0;
  for (int i = 0; i < iterations; ++i) {
    if (writer) {
      mutex.lock();
      if (atomicAdd(&writers_inside, 1) != 0 || atomicAdd(&readers_inside, 0) != 0) atomicAdd(&overlaps, 1);
      increment_slowly(written);
      atomicSub(&writers_inside, 1);
      mutex.unlock();
    } else {
      mutex.lock_shared();
      atomicMax(&most_readers, atomicAdd(&readers_inside, 1) + 1);
      if (atomicAdd(&writers_inside, 0) != 0) atomicAdd(&overlaps, 1);
      __nanosleep(200);  // stay inside a while, so that readers meet
      atomicSub(&readers_inside, 1);
      mutex.unlock_shared();
    }
  }
  __syncthreads();
  if (threadIdx.x == 0) reports[blockIdx.x] = {overlaps, most_readers, written};
}

TEST(SharedMemorySharedMutex, InitThenWritersExcludeEveryoneAndReadersOverlap)
{
  UNISYNC_REQUIRE_GPU();
  int const blocks = multiprocessor_count();
  constexpr int iterations = 50;
  managed_vector<shared_mutex_report> reports(blocks);
  shared_mutex_in_shared_memory<<<blocks, threads_per_block>>>(reports.data(), iterations);
  ASSERT_EQ(finish_device_work(), cudaSuccess);
  unsigned most_readers = 0;
  for (int block = 0; block < blocks; ++block) {
    EXPECT_EQ(reports[block].overlaps, 0u) << "block " << block;
    EXPECT_EQ(reports[block].written, static_cast<unsigned long long>(threads_per_block / 8) * iterations)
        << "block " << block;
    most_readers = std::max(most_readers, reports[block].most_readers);
  }
  std::printf("most readers inside at once in one block: %u\n", most_readers);
  EXPECT_GT(most_readers, 1u);
}

/// A semaphore of `permits` in each block; every thread acquires and releases it.
__global__ void semaphore_in_shared_memory(occupancy_record* records, int permits, int iterations)
{
  __shared__ unisync::basic_counting_semaphore<block_scope, 8> semaphore;
  scribble_over(&semaphore, 1);
  if (threadIdx.x == 0) init(&semaphore, permits);
  __syncthreads();
  for (int i = 0; i < iterations; ++i) {
    semaphore.acquire();
    records[blockIdx.x].enter();
    __nanosleep(100);
    records[blockIdx.x].leave();
    semaphore.release();
  }
}

TEST(SharedMemorySemaphore, InitThenNeverMoreHoldersThanPermits)
{
  UNISYNC_REQUIRE_GPU();
  int const blocks = multiprocessor_count();
  constexpr int iterations = 50;
  for (int permits : {1, 2, 8}) {
    managed_vector<occupancy_record> records(blocks);
    semaphore_in_shared_memory<<<blocks, threads_per_block>>>(records.data(), permits, iterations);
    ASSERT_EQ(finish_device_work(), cudaSuccess);
    for (int block = 0; block < blocks; ++block) {
      EXPECT_LE(records[block].most_seen, permits) << permits << " permits, block " << block;
      EXPECT_EQ(records[block].entries, threads_per_block * iterations) << permits << " permits, block " << block;
    }
  }
}

/// A latch of the block's threads: each marks itself, then arrive_and_wait(); after it
/// every mark must be there. `late` threads count down only after a pause.
__global__ void latch_in_shared_memory(unsigned* early_releases)
{
  __shared__ unisync::basic_latch<block_scope> latch;
  __shared__ unsigned marked[threads_per_block];
  scribble_over(&latch, 1);
  if (threadIdx.x == 0) init(&latch, blockDim.x);
  marked[threadIdx.x] = 0;
  __syncthreads();
  if (threadIdx.x % 32 == 31) __nanosleep(20000);
  atomicExch(&marked[threadIdx.x], 1);
  latch.arrive_and_wait();
  for (unsigned other = 0; other < blockDim.x; ++other) {
    if (atomicAdd(&marked[other], 0) == 0) atomicAdd(&early_releases[blockIdx.x], 1);
  }
}

TEST(SharedMemoryLatch, InitThenNobodyReleasedBeforeTheLastCountDown)
{
  UNISYNC_REQUIRE_GPU();
  int const blocks = multiprocessor_count();
  managed_vector<unsigned> early_releases(blocks);
  latch_in_shared_memory<<<blocks, threads_per_block>>>(early_releases.data());
  ASSERT_EQ(finish_device_work(), cudaSuccess);
  for (int block = 0; block < blocks; ++block) EXPECT_EQ(early_releases[block], 0u) << "block " << block;
}

/// The phase checker over a barrier of the block's threads with the checking completion
/// function, per thread and then per warp tile; each block has its record.
__global__ void barrier_in_shared_memory(phase_record* records, unsigned phases)
{
  __shared__ unisync::basic_barrier<block_scope, checking_completion> barrier;
  phase_record const& record = records[blockIdx.x];
  scribble_over(&barrier, 1);
  if (threadIdx.x == 0) init(&barrier, blockDim.x, checking_completion{record});
  __syncthreads();
  for (unsigned phase = 1; phase <= phases; ++phase) {
    record.before_arriving(threadIdx.x, phase);
    barrier.arrive_and_wait();
    record.after_passing(threadIdx.x + 1, 8, phase);
  }
  auto const warp = cg::tiled_partition<32>(cg::this_thread_block());
  for (unsigned phase = phases + 1; phase <= 2 * phases; ++phase) {
    record.before_arriving(threadIdx.x, phase);
    barrier.arrive_and_wait(warp);
    record.after_passing(threadIdx.x + 1, 8, phase);
  }
}

TEST(SharedMemoryBarrier, InitThenNoParticipantLeavesAPhaseEarly)
{
  UNISYNC_REQUIRE_GPU();
  int const blocks = multiprocessor_count();
  constexpr unsigned phases = 100;
  managed_vector<std::uint32_t> slots(blocks * threads_per_block);
  managed_vector<std::uint32_t> counters(2 * blocks);
  managed_vector<phase_record> records(blocks);
  for (int block = 0; block < blocks; ++block) {
    records[block] = {&slots[block * threads_per_block], threads_per_block, &counters[2 * block],
                      &counters[2 * block + 1]};
  }
  barrier_in_shared_memory<<<blocks, threads_per_block>>>(records.data(), phases);
  ASSERT_EQ(finish_device_work(), cudaSuccess);
  for (int block = 0; block < blocks; ++block) {
    EXPECT_EQ(*records[block].violations, 0u) << "block " << block;
    EXPECT_EQ(*records[block].completions, 2 * phases) << "block " << block;
  }
}

}  // namespace
