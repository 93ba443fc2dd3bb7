#pragma once
// GPU actors for the stress properties, shared by the device and mixed suites. Each kernel
// runs one property's loop in every thread (per-thread mode) or in every group (block or
// warp tile: group mode), against an object the host may be using at the same time.

#include "checks.hpp"
#include "lockables.hpp"
#include "test_access.hpp"

#include <cooperative_groups.h>

#include <cuda/std/cstdint>

namespace unisync::test {

namespace cg = cooperative_groups;

/// Lost updates, per thread: every thread of every block contends, all 32 lanes of a warp
/// included (needs independent thread scheduling).
template <class Lock>
__global__ void increment_per_thread(Lock* lock, unsigned long long* counter, int iterations)
{
  for (int i = 0; i < iterations; ++i) {
    lock->lock();
    increment_slowly(*counter);
    lock->unlock();
  }
}

/// Lost updates, per group: the group holds the lock together; every thread reads the
/// counter inside and the leader writes it back plus the group's size.
template <int TileSize, class Lock>
__global__ void increment_per_group(Lock* lock, unsigned long long* counter, int iterations)
{
  auto block = cg::this_thread_block();
  auto run = [&](auto const& group) {
    for (int i = 0; i < iterations; ++i) {
      lock->lock(group);
      unsigned long long const seen = *static_cast<unsigned long long volatile*>(counter);
      group.sync();
      if (group.thread_rank() == 0) *static_cast<unsigned long long volatile*>(counter) = seen + group.size();
      lock->unlock(group);
    }
  };
  if constexpr (TileSize == 0) {
    run(block);
  } else {
    run(cg::tiled_partition<TileSize>(block));
  }
}

/// Sections under three mutexes (three_mutexes::one_section), each thread alternating
/// between the two orders.
template <class Mutex>
__global__ void sections_under_three(three_mutexes<Mutex>* mutexes, int iterations)
{
  for (int i = 0; i < iterations; ++i) mutexes->one_section((blockIdx.x + threadIdx.x + i) & 1u);
}

/// try_lock(group) gives the same answer in every thread of the group; a disagreement
/// counts as a violation.
template <class Lock>
__global__ void try_lock_per_block(Lock* lock, unsigned* violations, unsigned* successes, int attempts)
{
  auto block = cg::this_thread_block();
  __shared__ unsigned agreed;
  for (int attempt = 0; attempt < attempts; ++attempt) {
    if (block.thread_rank() == 0) agreed = 0;
    block.sync();
    bool const taken = lock->try_lock(block);
    atomicAdd(&agreed, taken ? 1u : 0u);
    block.sync();
    if (block.thread_rank() == 0) {
      if (agreed != 0 && agreed != block.size()) atomicAdd(violations, 1u);
      if (taken) atomicAdd(successes, 1u);
    }
    if (taken) lock->unlock(block);
  }
}

/// FIFO: actor b takes its ticket only once actors 0..b-1 have taken theirs, so ticket
/// order is the actor order; each records its place in the order of service. Actor 0
/// holds the lock until every actor has a ticket. One thread per block.
template <class Lock>
__global__ void serve_in_ticket_order(Lock* lock, unsigned* served_order, unsigned* next_place,
                                      unsigned long long first_ticket)
{
  unsigned const actor = blockIdx.x;
  while (detail::test_access::tickets_taken(*lock) - first_ticket != actor) __nanosleep(100);
  lock->lock();
  if (actor == 0) {
    while (detail::test_access::tickets_taken(*lock) - first_ticket != gridDim.x) __nanosleep(100);
  }
  served_order[(*next_place)++] = actor;
  lock->unlock();
}

/// Never more than N holders, per thread.
template <class Semaphore>
__global__ void hold_per_thread(Semaphore* semaphore, occupancy_record* record, int iterations)
{
  for (int i = 0; i < iterations; ++i) {
    semaphore->acquire();
    record->enter();
    __nanosleep(200);
    record->leave();
    semaphore->release();
  }
}

/// Never more than N holders, per block: the block holds one permit together.
template <class Semaphore>
__global__ void hold_per_block(Semaphore* semaphore, occupancy_record* record, int iterations)
{
  auto block = cg::this_thread_block();
  for (int i = 0; i < iterations; ++i) {
    semaphore->acquire(block);
    if (block.thread_rank() == 0) record->enter();
    __nanosleep(200);
    if (block.thread_rank() == 0) record->leave();
    semaphore->release(block);
  }
}

/// The phase checker, block-collective: one slot per block (its participants pass
/// together), written and probed by the block's first thread. Slot numbers start at
/// `first_slot` so that CPU threads can own the slots before them.
template <class Barrier>
__global__ void phases_per_block(Barrier* barrier, phase_record record, unsigned first_slot, unsigned phases)
{
  auto block = cg::this_thread_block();
  unsigned const slot = first_slot + blockIdx.x;
  for (unsigned phase = 1; phase <= phases; ++phase) {
    if (block.thread_rank() == 0) record.before_arriving(slot, phase);
    barrier->arrive_and_wait(block);
    if (block.thread_rank() == 0) record.after_passing(slot + 1, 8, phase);
  }
}

/// The phase checker, per thread: every thread is a participant with its own slot.
template <class Barrier>
__global__ void phases_per_thread(Barrier* barrier, phase_record record, unsigned first_slot, unsigned phases)
{
  unsigned const slot = first_slot + blockIdx.x * blockDim.x + threadIdx.x;
  for (unsigned phase = 1; phase <= phases; ++phase) {
    record.before_arriving(slot, phase);
    barrier->arrive_and_wait();
    record.after_passing(slot + 1, 4, phase);
  }
}

}  // namespace unisync::test
