// Shared-mutex properties on GPU threads only, at system and device scope: a writer's
// section never overlaps any other section and readers overlap (per thread, all lanes of
// each warp contending, and per block or warp tile), from 1 block to 4x the
// multiprocessors; lanes of one warp on different objects; timed forms give up and leave
// no trace.

#include "gpu.hpp"
#include "shared_actors.cuh"
#include "test_access.hpp"

#include <unisync/managed.hpp>

#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <vector>

namespace {

using namespace unisync::test;
using access = unisync::detail::test_access;

template <class Mutex>
class DeviceSharedMutex : public ::testing::Test {};
using device_shared_types = ::testing::Types<unisync::shared_mutex, device_shared_mutex, striped_shared_mutex>;
TYPED_TEST_SUITE(DeviceSharedMutex, device_shared_types, shared_type_names);

std::vector<int> block_counts() { return {1, multiprocessor_count(), 4 * multiprocessor_count()}; }

template <class Mutex>
void expect_clean(Mutex& mutex, section_record const& record, long long sections, char const* what, int blocks)
{
  EXPECT_EQ(record.overlaps, 0u) << what << ", " << blocks << " blocks: a writer overlapped another section";
  EXPECT_EQ(static_cast<long long>(record.reads + record.writes), sections)
      << what << ", " << blocks << " blocks: lost updates under the exclusive lock";
  EXPECT_EQ(access::reader_words(mutex), 0u) << "a reader's registration was left behind";
  std::printf("%s, %d blocks: at most %d readers inside at once (%llu reads, %llu writes)\n", what, blocks,
              record.most_readers, static_cast<unsigned long long>(record.reads),
              static_cast<unsigned long long>(record.writes));
}

TYPED_TEST(DeviceSharedMutex, WriterSectionsNeverOverlapPerThread)
{
  UNISYNC_REQUIRE_GPU();
  constexpr int threads_per_block = 32;
  for (int blocks : block_counts()) {
    auto mutex = unisync::make_managed<TypeParam>();
    auto record = unisync::make_managed<section_record>();
    int const iterations = std::max(4, 40000 / (blocks * threads_per_block));
    read_or_write_per_thread<<<blocks, threads_per_block>>>(mutex.get(), record.get(), iterations, 90);
    ASSERT_EQ(finish_device_work(), cudaSuccess);
    expect_clean(*mutex, *record, static_cast<long long>(blocks) * threads_per_block * iterations, "per thread",
                 blocks);
    if (blocks > 1) EXPECT_GT(record->most_readers, 1) << "readers never overlapped";
  }
}

TYPED_TEST(DeviceSharedMutex, WriterSectionsNeverOverlapPerBlock)
{
  UNISYNC_REQUIRE_GPU();
  for (int blocks : block_counts()) {
    auto mutex = unisync::make_managed<TypeParam>();
    auto record = unisync::make_managed<section_record>();
    int const iterations = std::max(4, 20000 / blocks);
    read_or_write_per_group<0><<<blocks, 128>>>(mutex.get(), record.get(), iterations, 90);
    ASSERT_EQ(finish_device_work(), cudaSuccess);
    expect_clean(*mutex, *record, static_cast<long long>(blocks) * iterations, "per block", blocks);
    if (blocks > 1) EXPECT_GT(record->most_readers, 1) << "blocks never read together";
  }
}

TYPED_TEST(DeviceSharedMutex, WriterSectionsNeverOverlapPerWarpTile)
{
  UNISYNC_REQUIRE_GPU();
  int const blocks = multiprocessor_count();
  auto mutex = unisync::make_managed<TypeParam>();
  auto record = unisync::make_managed<section_record>();
  constexpr int iterations = 50;
  read_or_write_per_group<32><<<blocks, 128>>>(mutex.get(), record.get(), iterations, 90);
  ASSERT_EQ(finish_device_work(), cudaSuccess);
  expect_clean(*mutex, *record, static_cast<long long>(blocks) * 4 * iterations, "per warp tile", blocks);
  EXPECT_GT(record->most_readers, 1);
}

TYPED_TEST(DeviceSharedMutex, LanesOfAWarpOnTwoMutexesAreSeparateCalls)
{
  UNISYNC_REQUIRE_GPU();
  auto first = unisync::make_managed<TypeParam>();
  auto second = unisync::make_managed<TypeParam>();
  auto mutexes = unisync::make_managed<std::array<TypeParam*, 2>>(std::array<TypeParam*, 2>{first.get(), second.get()});
  auto records = unisync::make_managed<std::array<section_record, 2>>();
  constexpr int iterations = 500;
  lanes_on_two_mutexes<<<1, 32>>>(mutexes->data(), records->data(), iterations);
  ASSERT_EQ(finish_device_work(), cudaSuccess);
  for (int half = 0; half < 2; ++half) {
    EXPECT_EQ((*records)[half].overlaps, 0u) << "mutex " << half;
    EXPECT_EQ((*records)[half].reads + (*records)[half].writes, 16u * iterations) << "mutex " << half;
  }
  EXPECT_EQ(access::reader_words(*first) | access::reader_words(*second), 0u);
}

template <class Mutex>
__device__ void hold_exclusively_until(Mutex* mutex, unsigned* holding, unsigned* release)
{
  mutex->lock();
  cuda::atomic_ref<unsigned, cuda::thread_scope_system>(*holding).store(1, cuda::std::memory_order_release);
  while (cuda::atomic_ref<unsigned, cuda::thread_scope_system>(*release).load(cuda::std::memory_order_acquire) == 0) {
    __nanosleep(1000);
  }
  mutex->unlock();
}

template <class Mutex>
__device__ void try_while_held(Mutex* mutex, unsigned* holding, unsigned* release, unsigned long long timeout_ns,
                               unsigned long long* results)
{
  while (cuda::atomic_ref<unsigned, cuda::thread_scope_system>(*holding).load(cuda::std::memory_order_acquire) == 0) {
    __nanosleep(1000);
  }
  timed_tries_give_up(mutex, timeout_ns, results);
  cuda::atomic_ref<unsigned, cuda::thread_scope_system>(*release).store(1, cuda::std::memory_order_release);
}

template <class Mutex>
__global__ void holder_and_timed_tries(Mutex* mutex, unsigned* flags, unsigned long long timeout_ns,
                                       unsigned long long* results)
{
  if (blockIdx.x == 0) {
    hold_exclusively_until(mutex, &flags[0], &flags[1]);
  } else {
    try_while_held(mutex, &flags[0], &flags[1], timeout_ns, results);
  }
}

TYPED_TEST(DeviceSharedMutex, TimedFormsGiveUpAndLeaveNoTrace)
{
  UNISYNC_REQUIRE_GPU();
  auto mutex = unisync::make_managed<TypeParam>();
  auto flags = unisync::make_managed<std::array<unsigned, 2>>();
  auto results = unisync::make_managed<std::array<unsigned long long, 2>>(std::array<unsigned long long, 2>{0, ~0ull});
  constexpr unsigned long long timeout_ns = 2'000'000;
  holder_and_timed_tries<<<2, 1>>>(mutex.get(), flags->data(), timeout_ns, results->data());
  ASSERT_EQ(finish_device_work(), cudaSuccess);
  EXPECT_EQ((*results)[0], 0u) << "a timed try took the mutex while a writer held it";
  EXPECT_GE((*results)[1], timeout_ns) << "a timed try gave up early";
  EXPECT_EQ(access::reader_words(*mutex), 0u) << "a timed-out reader left its registration";
  auto record = unisync::make_managed<section_record>();
  read_or_write_per_thread<<<1, 32>>>(mutex.get(), record.get(), 20, 50);
  ASSERT_EQ(finish_device_work(), cudaSuccess);
  EXPECT_EQ(record->reads + record->writes, 640u) << "the mutex is not usable after the timed-out tries";
}

}  // namespace
