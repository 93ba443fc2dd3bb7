// Shared-mutex properties with CPU threads and GPU threads on one system-scope object in
// managed memory, in the cells 1 CPU x 1 block, 4 x SMs and 15 x 4 SMs: a writer's section
// never overlaps any other section on either side, readers of both sides overlap, and the
// timed forms give up on either side while the other side holds it, leaving no trace.

#include "gpu.hpp"
#include "mixed.hpp"
#include "shared_actors.cuh"
#include "test_access.hpp"

#include <unisync/managed.hpp>

#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

namespace {

using namespace unisync::test;
using namespace std::chrono_literals;
using access = unisync::detail::test_access;

struct mix {
  unsigned cpu_threads;
  int sm_multiple;  // GPU blocks: this many times the multiprocessors, or 1 block when 0
};

int blocks_of(mix const& cell) { return cell.sm_multiple == 0 ? 1 : cell.sm_multiple * multiprocessor_count(); }

void cpu_reads_or_writes(unisync::shared_mutex& mutex, section_record& record, unsigned actor, unsigned sections,
                         unsigned read_percent)
{
  read_write_choice choice(actor);
  for (unsigned i = 0; i < sections; ++i) {
    if (choice.reads(read_percent)) {
      mutex.lock_shared();
      record.enter_shared();
      std::this_thread::yield();
      record.leave_shared();
      mutex.unlock_shared();
    } else {
      mutex.lock();
      record.exclusive_section();
      mutex.unlock();
    }
  }
}

class MixedSharedMutex : public ::testing::TestWithParam<bool> {};  // param: GPU blocks act as groups

TEST_P(MixedSharedMutex, WriterSectionsNeverOverlapAcrossSides)
{
  UNISYNC_REQUIRE_GPU();
  bool const per_block = GetParam();
  for (mix const cell : {mix{1, 0}, mix{4, 1}, mix{15, 4}}) {
    int const blocks = blocks_of(cell);
    int most_in_cell = 0;  // readers overlap by chance: with 2 actors at 90% reads, rarely
    for (unsigned read_percent : {90u, 99u}) {
      auto mutex = unisync::make_managed<unisync::shared_mutex>();
      auto record = unisync::make_managed<section_record>();
      constexpr unsigned cpu_sections = 2000;
      int const gpu_iterations = std::max(4, 20000 / blocks);
      cudaError_t const status = run_mixed(
          cell.cpu_threads,
          [&](unsigned actor) { cpu_reads_or_writes(*mutex, *record, actor, cpu_sections, read_percent); },
          [&] {
            if (per_block) {
              read_or_write_per_group<0><<<blocks, 128>>>(mutex.get(), record.get(), gpu_iterations, read_percent);
            } else {
              read_or_write_per_thread<<<blocks, 1>>>(mutex.get(), record.get(), gpu_iterations, read_percent);
            }
          });
      ASSERT_EQ(status, cudaSuccess);
      EXPECT_EQ(record->overlaps, 0u) << cell.cpu_threads << " CPU threads x " << blocks << " blocks, "
                                      << read_percent << "% reads";
      EXPECT_EQ(record->reads + record->writes,
                cell.cpu_threads * cpu_sections + static_cast<unsigned long long>(blocks) * gpu_iterations)
          << "lost updates under the exclusive lock";
      EXPECT_EQ(access::reader_words(*mutex), 0u) << "a reader's registration was left behind";
      EXPECT_FALSE(access::gpu_reported_present(*mutex)) << "the GPU side still reports readers";
      most_in_cell = std::max(most_in_cell, record->most_readers);
      std::printf("%u CPU threads x %d blocks (%s), %u%% reads: at most %d readers inside at once\n",
                  cell.cpu_threads, blocks, per_block ? "per block" : "per thread", read_percent,
                  record->most_readers);
    }
    EXPECT_GT(most_in_cell, 1) << "readers never overlapped with " << cell.cpu_threads << " CPU threads x " << blocks
                               << " blocks";
  }
}

INSTANTIATE_TEST_SUITE_P(Actors, MixedSharedMutex, ::testing::Values(false, true),
                         [](::testing::TestParamInfo<bool> const& info) {
                           return info.param ? std::string("PerBlock") : std::string("PerThread");
                         });

template <class Mutex>
__global__ void device_tries_while_host_holds(Mutex* mutex, unsigned long long timeout_ns, unsigned long long* results)
{
  timed_tries_give_up(mutex, timeout_ns, results);
}

TEST(MixedSharedMutexTimed, DeviceTimedFormsGiveUpWhileTheHostWrites)
{
  UNISYNC_REQUIRE_GPU();
  auto mutex = unisync::make_managed<unisync::shared_mutex>();
  auto results = unisync::make_managed<std::array<unsigned long long, 2>>(std::array<unsigned long long, 2>{0, ~0ull});
  constexpr unsigned long long timeout_ns = 2'000'000;
  mutex->lock();
  device_tries_while_host_holds<<<4, 1>>>(mutex.get(), timeout_ns, results->data());
  ASSERT_EQ(finish_device_work(), cudaSuccess);
  mutex->unlock();
  EXPECT_EQ((*results)[0], 0u) << "a device try took the mutex while the host held it";
  EXPECT_GE((*results)[1], timeout_ns);
  EXPECT_EQ(access::reader_words(*mutex), 0u) << "a timed-out GPU reader left its registration";
  EXPECT_FALSE(access::gpu_reported_present(*mutex));
  EXPECT_TRUE(mutex->try_lock_for(1s)) << "a writer cannot get in after the timed-out GPU readers";
  mutex->unlock();
}

template <class Mutex>
__global__ void read_until_released(Mutex* mutex, unsigned* holding, unsigned* release)
{
  mutex->lock_shared();
  cuda::atomic_ref<unsigned, cuda::thread_scope_system>(*holding).store(1, cuda::std::memory_order_release);
  while (cuda::atomic_ref<unsigned, cuda::thread_scope_system>(*release).load(cuda::std::memory_order_acquire) == 0) {
    __nanosleep(1000);
  }
  mutex->unlock_shared();
}

TEST(MixedSharedMutexTimed, HostWriterGivesUpWhileTheDeviceReadsAndReadersShareIt)
{
  UNISYNC_REQUIRE_GPU();
  auto mutex = unisync::make_managed<unisync::shared_mutex>();
  auto flags = unisync::make_managed<std::array<unsigned, 2>>();
  read_until_released<<<1, 1>>>(mutex.get(), &(*flags)[0], &(*flags)[1]);
  while (cuda::atomic_ref<unsigned, cuda::thread_scope_system>((*flags)[0]).load(cuda::std::memory_order_acquire) == 0) {
    std::this_thread::yield();
  }
  auto const start = std::chrono::steady_clock::now();
  EXPECT_FALSE(mutex->try_lock_for(20ms)) << "the host wrote while a GPU reader held the mutex";
  EXPECT_GE(std::chrono::steady_clock::now() - start, 20ms);
  EXPECT_TRUE(mutex->try_lock_shared_for(1s)) << "the host could not read beside the GPU reader";
  mutex->unlock_shared();
  cuda::atomic_ref<unsigned, cuda::thread_scope_system>((*flags)[1]).store(1, cuda::std::memory_order_release);
  ASSERT_EQ(finish_device_work(), cudaSuccess);
  EXPECT_TRUE(mutex->try_lock_for(1s));
  mutex->unlock();
  EXPECT_EQ(access::reader_words(*mutex), 0u);
}

}  // namespace
