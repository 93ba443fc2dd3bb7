// partitioned_semaphore (and, beside it, the flat counting_semaphore) with CPU threads and
// GPU blocks on one object from make_managed: never more than N holders (an atomic holder
// count checked inside) for 1 x 1, 4 x 132 and 15 x 528 CPU threads x GPU blocks and
// N = 1, 2, 8; no permit lost when timed acquires give up on either side (afterwards all
// N permits can be acquired); release(n) with n > 1 across the sides, both ways.

#include "device_actors.cuh"
#include "gpu.hpp"
#include "mixed.hpp"

#include <unisync/counting_semaphore.hpp>
#include <unisync/managed.hpp>
#include <unisync/partitioned_semaphore.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace unisync::test;
using namespace std::chrono_literals;

struct mix {
  unsigned cpu_threads;
  int gpu_blocks;
};
std::vector<mix> const stress_mixes = {{1, 1}, {4, 132}, {15, 528}};

template <class Semaphore>
class MixedSemaphoreStress : public ::testing::Test {};
using stress_types = ::testing::Types<unisync::partitioned_semaphore<>, unisync::counting_semaphore<>>;
TYPED_TEST_SUITE(MixedSemaphoreStress, stress_types);

/// Holds a permit for a moment, per block (one thread per block), `iterations` times;
/// with a timeout: gives up after `timeout_ns` and counts it.
template <class Semaphore>
__global__ void hold_or_give_up(Semaphore* semaphore, occupancy_record* record, int iterations,
                                unsigned long long timeout_ns, unsigned* gave_up)
{
  for (int i = 0; i < iterations; ++i) {
    if (timeout_ns != 0) {
      if (!semaphore->try_acquire_for(cuda::std::chrono::nanoseconds(timeout_ns))) {
        atomicAdd(gave_up, 1u);
        continue;
      }
    } else {
      semaphore->acquire();
    }
    record->enter();
    __nanosleep(200);
    record->leave();
    semaphore->release();
  }
}

template <class Semaphore>
void stress(int permits, mix cell, bool timed)
{
  SCOPED_TRACE(::testing::Message() << "N = " << permits << ", " << cell.cpu_threads << " x " << cell.gpu_blocks
                                    << (timed ? ", timed acquires" : ""));
  auto semaphore = unisync::make_managed<Semaphore>(permits);
  auto record = unisync::make_managed<occupancy_record>();
  auto gave_up = unisync::make_managed<unsigned>(0u);
  constexpr unsigned cpu_iterations = 200;
  constexpr int gpu_iterations = 4;
  // A tenth of a millisecond: timed acquires on both sides give up often under contention.
  constexpr unsigned long long timeout_ns = 100 * 1000;
  std::atomic<unsigned> cpu_gave_up{0};
  cudaError_t const status = run_mixed(
      cell.cpu_threads,
      [&](unsigned actor) {
        bool const gives_up = timed && actor % 2 == 0;
        for (unsigned i = 0; i < cpu_iterations; ++i) {
          if (gives_up) {
            if (!semaphore->try_acquire_for(std::chrono::nanoseconds(timeout_ns))) {
              cpu_gave_up.fetch_add(1);
              continue;
            }
          } else {
            semaphore->acquire();
          }
          record->enter();
          std::this_thread::yield();
          record->leave();
          semaphore->release();
        }
      },
      [&] {
        hold_or_give_up<<<cell.gpu_blocks, 1>>>(semaphore.get(), record.get(), gpu_iterations,
                                                timed ? timeout_ns : 0ull, gave_up.get());
      });
  ASSERT_EQ(status, cudaSuccess);
  EXPECT_LE(record->most_seen, permits);
  EXPECT_EQ(record->entries + static_cast<int>(cpu_gave_up.load() + *gave_up),
            static_cast<int>(cell.cpu_threads * cpu_iterations) + cell.gpu_blocks * gpu_iterations);
  ::testing::Test::RecordProperty("gave_up", std::to_string(cpu_gave_up.load() + *gave_up));
  // Every permit is still there, wherever it was left: the host takes all N.
  for (int permit = 0; permit < permits; ++permit) {
    ASSERT_TRUE(semaphore->try_acquire_for(10s)) << "permit " << permit << " was lost";
  }
  EXPECT_FALSE(semaphore->try_acquire_for(1ms)) << "a permit was made up";
}

TYPED_TEST(MixedSemaphoreStress, NeverMoreThanNHolders)
{
  UNISYNC_REQUIRE_GPU();
  for (int const permits : {1, 2, 8}) {
    for (mix const cell : stress_mixes) stress<TypeParam>(permits, cell, false);
  }
}

TYPED_TEST(MixedSemaphoreStress, TimedAcquiresThatGiveUpOnEitherSideLoseNoPermit)
{
  UNISYNC_REQUIRE_GPU();
  for (int const permits : {1, 2, 8}) {
    for (mix const cell : stress_mixes) stress<TypeParam>(permits, cell, true);
  }
}

TYPED_TEST(MixedSemaphoreStress, NeverMoreThanNHoldersWithBlocksHoldingTogether)
{
  UNISYNC_REQUIRE_GPU();
  auto semaphore = unisync::make_managed<TypeParam>(2);
  auto record = unisync::make_managed<occupancy_record>();
  int const blocks = multiprocessor_count();
  cudaError_t const status = run_mixed(
      4,
      [&](unsigned) {
        for (int i = 0; i < 200; ++i) {
          semaphore->acquire();
          record->enter();
          std::this_thread::yield();
          record->leave();
          semaphore->release();
        }
      },
      [&] { hold_per_block<<<blocks, 128>>>(semaphore.get(), record.get(), 10); });
  ASSERT_EQ(status, cudaSuccess);
  EXPECT_LE(record->most_seen, 2);
  EXPECT_EQ(record->entries, 4 * 200 + blocks * 10);
}

template <class Semaphore>
__global__ void acquire_and_count(Semaphore* semaphore, unsigned* admitted)
{
  semaphore->acquire();
  cuda::atomic_ref<unsigned, cuda::thread_scope_system>(*admitted).fetch_add(1, cuda::std::memory_order_release);
}

template <class Semaphore>
__global__ void release_n(Semaphore* semaphore, int update)
{
  semaphore->release(update);
}

unsigned load_admitted(unsigned const& admitted)
{
  return cuda::atomic_ref<unsigned const, cuda::thread_scope_system>(admitted).load(cuda::std::memory_order_acquire);
}

// release(2) on the host with five GPU waiters admits two of them, release(3) the rest.
TYPED_TEST(MixedSemaphoreStress, HostReleaseNAdmitsNDeviceWaiters)
{
  UNISYNC_REQUIRE_GPU();
  auto semaphore = unisync::make_managed<TypeParam>(0);
  auto admitted = unisync::make_managed<unsigned>(0u);
  acquire_and_count<<<5, 1>>>(semaphore.get(), admitted.get());
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  std::this_thread::sleep_for(20ms);  // let the blocks queue
  semaphore->release(2);
  auto const give_up = std::chrono::steady_clock::now() + 20s;
  while (load_admitted(*admitted) < 2 && std::chrono::steady_clock::now() < give_up) std::this_thread::yield();
  std::this_thread::sleep_for(20ms);
  EXPECT_EQ(load_admitted(*admitted), 2u) << "release(2) admits two waiters, no more";
  semaphore->release(3);
  ASSERT_EQ(finish_device_work(), cudaSuccess);
  EXPECT_EQ(*admitted, 5u);
}

// release(2) on the GPU with five CPU waiters admits two of them, release(3) the rest.
TYPED_TEST(MixedSemaphoreStress, DeviceReleaseNAdmitsNHostWaiters)
{
  UNISYNC_REQUIRE_GPU();
  auto semaphore = unisync::make_managed<TypeParam>(0);
  std::atomic<unsigned> admitted{0};
  std::vector<std::thread> waiters;
  for (int waiter = 0; waiter < 5; ++waiter) {
    waiters.emplace_back([&] {
      if (semaphore->try_acquire_for(30s)) admitted.fetch_add(1);
    });
  }
  std::this_thread::sleep_for(20ms);
  release_n<<<1, 1>>>(semaphore.get(), 2);
  ASSERT_EQ(finish_device_work(), cudaSuccess);
  auto const give_up = std::chrono::steady_clock::now() + 20s;
  while (admitted.load() < 2 && std::chrono::steady_clock::now() < give_up) std::this_thread::yield();
  std::this_thread::sleep_for(20ms);
  EXPECT_EQ(admitted.load(), 2u) << "release(2) admits two waiters, no more";
  release_n<<<1, 1>>>(semaphore.get(), 3);
  ASSERT_EQ(finish_device_work(), cudaSuccess);
  for (auto& waiter : waiters) waiter.join();
  EXPECT_EQ(admitted.load(), 5u);
}

}  // namespace
