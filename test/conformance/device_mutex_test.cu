// The lock types (and binary semaphores used as locks, [thread.sema.cnt]) against
// [thread.mutex.requirements.mutex] with the per-thread members called by lanes of one
// warp on different objects: each lane's call is a lock() or unlock() of its own object,
// as separate std calls are, never a call the warp makes for lanes that name another
// object; and scoped_lock and unisync::lock ([thread.lock.scoped],
// [thread.lock.algorithm]) among many GPU threads. A kernel that hangs is caught by the
// kernel deadline (gpu.hpp).

#include "device_actors.cuh"
#include "gpu.hpp"
#include "lockables.hpp"

#include <unisync/managed.hpp>

#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <type_traits>

namespace {

using namespace unisync::test;

constexpr std::chrono::seconds lane_deadline{30};
constexpr unsigned most_objects = 32;

/// Lane k of every warp locks *locks[k % objects] and adds one to counters[k % objects]
/// under it, with a read and a later write (increment_slowly): a lane let in while another
/// lane held its object, or a warp that took one object for lanes that name another, loses
/// updates.
template <class Lock>
__global__ void lanes_on_their_own_locks(Lock* locks, unsigned long long* counters, unsigned objects, int iterations)
{
  unsigned const object = (threadIdx.x % 32u) % objects;
  for (int i = 0; i < iterations; ++i) {
    locks[object].lock();
    increment_slowly(counters[object]);
    locks[object].unlock();
  }
}

/// Lane 0 holds *first until lane 1 has taken and released *second; lane 1 tells it so.
/// A warp that made lane 1's lock() of *second a call on *first would wait for lane 0,
/// which waits for lane 1: the kernel would hang.
template <class Lock>
__global__ void lane_waits_for_a_lane_on_another_lock(Lock* first, Lock* second, unsigned* done)
{
  cuda::atomic_ref<unsigned, cuda::thread_scope_device> const second_done(*done);
  if (threadIdx.x == 0) {
    first->lock();
    while (second_done.load(cuda::std::memory_order_acquire) == 0) {
    }
    first->unlock();
  } else if (threadIdx.x == 1) {
    second->lock();
    second->unlock();
    second_done.store(1, cuda::std::memory_order_release);
  }
}

template <class Lock>
class ConformanceDeviceMutex : public ::testing::Test {};
using device_lock_types =
    ::testing::Types<unisync::mutex, unisync::spin_mutex, unisync::ticket_mutex, device_mutex, device_ticket_mutex,
                     unisync::cohort_mutex, semaphore_lock<cuda::thread_scope_system>,
                     semaphore_lock<cuda::thread_scope_device>, partitioned_semaphore_lock>;
TYPED_TEST_SUITE(ConformanceDeviceMutex, device_lock_types, type_names);

// [thread.mutex.requirements.mutex] lock(): "Blocks the calling thread until ownership of
// the mutex can be obtained", of the mutex it is called on; no two threads own one mutex
// at once. Lanes of one warp on 2 and on 32 objects, the warps of many blocks contending
// for the same objects.
TYPED_TEST(ConformanceDeviceMutex, LanesOfAWarpLockTheirOwnMutexes)
{
  UNISYNC_REQUIRE_GPU();
  int const blocks = multiprocessor_count();
  constexpr int iterations = 20;
  for (unsigned const objects : {2u, most_objects}) {
    auto locks = unisync::make_managed<std::array<TypeParam, most_objects>>();
    auto counters = unisync::make_managed<std::array<unsigned long long, most_objects>>();
    counters->fill(0);
    lanes_on_their_own_locks<<<blocks, 32>>>(locks->data(), counters->data(), objects, iterations);
    ASSERT_EQ(finish_device_work(lane_deadline), cudaSuccess) << objects << " objects";
    unsigned long long const per_object = static_cast<unsigned long long>(blocks) * (32 / objects) * iterations;
    for (unsigned object = 0; object < objects; ++object) {
      EXPECT_EQ((*counters)[object], per_object) << "object " << object << " of " << objects << ": lost updates";
    }
  }
}

// The same, for progress: a lane that holds one mutex and waits for another lane of its
// warp does not hold back that lane's lock() of another mutex.
TYPED_TEST(ConformanceDeviceMutex, ALaneHoldingOneMutexDoesNotHoldBackALaneOnAnother)
{
  UNISYNC_REQUIRE_GPU();
  auto locks = unisync::make_managed<std::array<TypeParam, 2>>();
  auto done = unisync::make_managed<unsigned>(0u);
  lane_waits_for_a_lane_on_another_lock<<<1, 32>>>(&(*locks)[0], &(*locks)[1], done.get());
  ASSERT_EQ(finish_device_work(lane_deadline), cudaSuccess);
  EXPECT_EQ(*done, 1u);
}

// [thread.lock.scoped] explicit scoped_lock(m...) and [thread.lock.algorithm] lock(): "the
// sequence of calls does not result in deadlock". Every lane of a warp per multiprocessor
// takes the same three mutexes, half in one order and half in the other (scoped_lock, and
// unisync::lock with the opposite order); all get through, each holding all three at once.
TYPED_TEST(ConformanceDeviceMutex, ScopedLockAvoidsDeadlockAmongManyThreads)
{
  UNISYNC_REQUIRE_GPU();
  if constexpr (std::is_same_v<TypeParam, partitioned_semaphore_lock>) {
    GTEST_SKIP() << "its try_lock() on the GPU fails while the permit sits in the CPU's pool (scoped_lock.hpp)";
  }
  int const blocks = multiprocessor_count();
  constexpr int threads_per_block = 32;
  constexpr int iterations = 2;
  auto mutexes = unisync::make_managed<three_mutexes<TypeParam>>();
  sections_under_three<<<blocks, threads_per_block>>>(mutexes.get(), iterations);
  ASSERT_EQ(finish_device_work(lane_deadline), cudaSuccess);
  for (unsigned long long const count : mutexes->counts) {
    EXPECT_EQ(count, static_cast<unsigned long long>(blocks) * threads_per_block * iterations);
  }
}

/// A broken lock for the checker below: per-thread lock() and unlock() made as one call of
/// the converged lanes, whose lowest lane locks its own object for all of them (as a group
/// overload does), whatever object each lane named.
class warp_aggregating_lock : public device_mutex {
 public:
  __device__ void lock()
  {
    auto lanes = cg::coalesced_threads();
    if (lanes.thread_rank() == 0) device_mutex::lock();
    lanes.sync();
  }
  __device__ void unlock()
  {
    auto lanes = cg::coalesced_threads();
    lanes.sync();
    if (lanes.thread_rank() == 0) device_mutex::unlock();
  }
};

// LanesOfAWarpLockTheirOwnMutexes can fail: with a lock that makes the lanes' calls one
// call on the lowest lane's object, lanes that share an object are inside at once.
TEST(ConformanceDeviceMutexChecker, CatchesAWarpThatLocksForLanesOnOtherObjects)
{
  UNISYNC_REQUIRE_GPU();
  int const blocks = multiprocessor_count();
  constexpr int iterations = 20;
  constexpr unsigned objects = 2;
  auto locks = unisync::make_managed<std::array<warp_aggregating_lock, objects>>();
  auto counters = unisync::make_managed<std::array<unsigned long long, objects>>();
  counters->fill(0);
  lanes_on_their_own_locks<<<blocks, 32>>>(locks->data(), counters->data(), objects, iterations);
  ASSERT_EQ(finish_device_work(lane_deadline), cudaSuccess);
  unsigned long long const per_object = static_cast<unsigned long long>(blocks) * (32 / objects) * iterations;
  EXPECT_LT((*counters)[0] + (*counters)[1], 2 * per_object) << "the lost updates went unseen";
}

}  // namespace
