#pragma once
// GPU actors of the shared-mutex properties, shared by the device and mixed suites: each
// thread (per-thread mode) or block (group mode) reads or writes by its own pseudo-random
// choice and checks its sections in a section_record.

#include "shared_kinds.hpp"

#include <cooperative_groups.h>

namespace unisync::test {

/// Per thread: every thread of every block is an actor, all 32 lanes of a warp included.
template <class Mutex>
__global__ void read_or_write_per_thread(Mutex* mutex, section_record* record, int iterations,
                                         unsigned read_percent)
{
  read_write_choice choice(1000u + blockIdx.x * blockDim.x + threadIdx.x);
  for (int i = 0; i < iterations; ++i) {
    if (choice.reads(read_percent)) {
      mutex->lock_shared();
      record->enter_shared();
      __nanosleep(200);  // long enough for other readers to come in beside it
      record->leave_shared();
      mutex->unlock_shared();
    } else {
      mutex->lock();
      record->exclusive_section();
      mutex->unlock();
    }
  }
}

/// Per group: the block (TileSize 0) or a warp tile holds the mutex as one; its leader
/// checks the section.
template <int TileSize, class Mutex>
__global__ void read_or_write_per_group(Mutex* mutex, section_record* record, int iterations, unsigned read_percent)
{
  auto block = cooperative_groups::this_thread_block();
  auto run = [&](auto const& group, unsigned group_number) {
    read_write_choice choice(5000u + group_number);  // the same choice in every thread of the group
    for (int i = 0; i < iterations; ++i) {
      if (choice.reads(read_percent)) {
        mutex->lock_shared(group);
        if (group.thread_rank() == 0) record->enter_shared();
        __nanosleep(200);
        if (group.thread_rank() == 0) record->leave_shared();
        mutex->unlock_shared(group);
      } else {
        mutex->lock(group);
        if (group.thread_rank() == 0) record->exclusive_section();
        mutex->unlock(group);
      }
    }
  };
  if constexpr (TileSize == 0) {
    run(block, blockIdx.x);
  } else {
    auto tile = cooperative_groups::tiled_partition<TileSize>(block);
    run(tile, blockIdx.x * (blockDim.x / TileSize) + tile.meta_group_rank());
  }
}

/// The lanes of one warp on two mutexes: even lanes on mutexes[0], odd lanes on
/// mutexes[1], each with its own record. Per-thread calls from lanes of one warp are
/// separate calls, whichever object they name.
template <class Mutex>
__global__ void lanes_on_two_mutexes(Mutex* const* mutexes, section_record* records, int iterations)
{
  unsigned const half = threadIdx.x & 1u;
  read_write_choice choice(77u + threadIdx.x);
  for (int i = 0; i < iterations; ++i) {
    if (choice.reads(50)) {
      mutexes[half]->lock_shared();
      records[half].enter_shared();
      records[half].leave_shared();
      mutexes[half]->unlock_shared();
    } else {
      mutexes[half]->lock();
      records[half].exclusive_section();
      mutexes[half]->unlock();
    }
  }
}

/// The timed forms on the device while another actor holds the mutex exclusively: every
/// try must give up. results[0]: tries that wrongly succeeded; results[1]: shortest wait of
/// a timed try, in ns.
template <class Mutex>
__device__ void timed_tries_give_up(Mutex* mutex, unsigned long long timeout_ns, unsigned long long* results)
{
  auto const timeout = cuda::std::chrono::nanoseconds(static_cast<long long>(timeout_ns));
  unsigned long long const start = unisync::detail::monotonic_nanoseconds();
  bool const shared_taken = mutex->try_lock_shared_for(timeout);
  unsigned long long const waited = unisync::detail::monotonic_nanoseconds() - start;
  if (shared_taken) mutex->unlock_shared();
  bool const until_taken = mutex->try_lock_shared_until(cuda::std::chrono::system_clock::now() + timeout);
  if (until_taken) mutex->unlock_shared();
  bool const exclusive_taken = mutex->try_lock_for(timeout);
  if (exclusive_taken) mutex->unlock();
  atomicAdd(&results[0], (shared_taken ? 1ull : 0ull) + (until_taken ? 1ull : 0ull) + (exclusive_taken ? 1ull : 0ull));
  atomicMin(&results[1], waited);
}

}  // namespace unisync::test
