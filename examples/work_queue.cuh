#pragma once
// A bounded work queue between CPU threads and a persistent kernel: producers wait for a
// free slot, write a 64-byte item, and signal it; consumers wait for a filled slot, take
// the item, work on it, and free the slot. Two counting semaphores (free slots, filled
// slots) do all the waiting, on both sides of the link; each side claims slots with a
// counter only it touches. The same ring runs the other way (GPU blocks produce, CPU
// threads consume: the GPU asking the host for a service).
//
// examples/work_queue.cu checks that every item is consumed exactly once; the contention
// binary times it against the same ring on libcu++'s semaphores and against batching on
// the host with a kernel launch per batch (benchmark/cases/application_cases.cu).

#include "gpu_clock.cuh"

#include <unisync/error.hpp>
#include <unisync/managed.hpp>

#include <cuda/atomic>
#include <cuda/std/chrono>
#include <cuda_runtime.h>

#include <cstdint>

namespace work_queue {

using gpu_clock::clock_offset;
using gpu_clock::gpu_clock_ns;

/// A unit of work: 64 bytes, as a small request would be.
struct alignas(64) item {
  std::uint64_t sequence;     // which item this is (its claim number); ~0 asks a consumer to stop
  std::uint64_t enqueued_ns;  // when its producer started to enqueue it, on the GPU's clock
  std::uint64_t payload[6];
};

inline constexpr std::uint64_t stop_sequence = ~std::uint64_t{0};

/// Spins for `nanoseconds` on the GPU's clock (or the host's): the work an item asks for.
__host__ __device__ inline void work_for(std::uint32_t nanoseconds, std::int64_t host_to_gpu_ns)
{
  if (nanoseconds == 0) return;
  std::uint64_t const until = gpu_clock_ns(host_to_gpu_ns) + nanoseconds;
  while (gpu_clock_ns(host_to_gpu_ns) < until) {
  }
}

/// One slot of the ring: its item, and a turn word (Vyukov's): `claim` when the slot is
/// free for the producer of claim number `claim`, `claim + 1` once that item is in it.
/// Another producer or consumer may hold a claim on the same slot one lap away, so the
/// semaphores alone do not say the slot is ready: the turn does.
struct alignas(128) slot {
  item value;
  std::uint64_t turn;
};

/// The ring: `Capacity` slots in memory the host prefers (both sides reach it with loads
/// and stores; neither migrates it), two semaphores placed as make_managed places them,
/// and one claim counter per side, each on a page of its own so that it stays on the side
/// that increments it.
template <class Semaphore, std::uint32_t Capacity>
class ring {
 public:
  static_assert((Capacity & (Capacity - 1)) == 0, "the ring's capacity is a power of two");

  /// What kernels and threads use, passed by value.
  struct view {
    slot* slots;
    Semaphore* free_slots;
    Semaphore* filled_slots;
    std::uint64_t* produced;  // claim numbers taken by producers (only producers touch it)
    std::uint64_t* consumed;  // claim numbers taken by consumers (only consumers touch it)

    /// Waits for a free slot and puts `value` in it (value.sequence is set to its claim).
    __host__ __device__ void push(item value) const
    {
      free_slots->acquire();
      put(value);
    }

    /// Waits for a filled slot and takes its item.
    __host__ __device__ item pop() const
    {
      filled_slots->acquire();
      return take();
    }

    /// As pop, giving up when no item comes within `timeout`; true when one was taken.
    template <class Rep, class Period>
    __host__ __device__ bool try_pop_for(item& value, cuda::std::chrono::duration<Rep, Period> timeout) const
    {
      if (!filled_slots->try_acquire_for(timeout)) return false;
      value = take();
      return true;
    }

   private:
    /// Takes the item of the next claim, once filled_slots has granted one.
    __host__ __device__ item take() const
    {
      std::uint64_t const claim = claim_next(consumed);
      slot& from = slots[claim & (Capacity - 1)];
      wait_turn(from, claim + 1);
      item const taken = from.value;
      turn_of(from).store(claim + Capacity, cuda::std::memory_order_release);
      free_slots->release();
      return taken;
    }

    /// Fills the slot of the next claim, once free_slots has granted one.
    __host__ __device__ void put(item value) const
    {
      std::uint64_t const claim = claim_next(produced);
      slot& into = slots[claim & (Capacity - 1)];
      wait_turn(into, claim);
      if (value.sequence != stop_sequence) value.sequence = claim;
      into.value = value;
      turn_of(into).store(claim + 1, cuda::std::memory_order_release);
      filled_slots->release();
    }
    __host__ __device__ static cuda::atomic_ref<std::uint64_t, cuda::thread_scope_system> turn_of(slot& at)
    {
      return cuda::atomic_ref<std::uint64_t, cuda::thread_scope_system>(at.turn);
    }
    __host__ __device__ static std::uint64_t claim_next(std::uint64_t* counter)
    {
      return cuda::atomic_ref<std::uint64_t, cuda::thread_scope_system>(*counter).fetch_add(
          1, cuda::std::memory_order_relaxed);
    }
    /// The semaphore has granted the slot; a claim one lap behind may still be finishing.
    __host__ __device__ static void wait_turn(slot& at, std::uint64_t turn)
    {
      while (turn_of(at).load(cuda::std::memory_order_acquire) != turn) {
      }
    }
  };

  ring()
      : slots_(unisync::make_managed<slot_array>(unisync::memory_advice::prefer_host)),
        free_slots_(unisync::make_managed<Semaphore>(static_cast<std::ptrdiff_t>(Capacity))),
        filled_slots_(unisync::make_managed<Semaphore>(0)),
        claims_(unisync::make_managed<claim_counters>())
  {
    for (std::uint32_t index = 0; index < Capacity; ++index) slots_->slots[index].turn = index;
  }

  view get() const
  {
    return view{slots_->slots, free_slots_.get(), filled_slots_.get(), &claims_->produced, &claims_->consumed};
  }

 private:
  struct slot_array {
    slot slots[Capacity];
  };
  struct claim_counters {
    alignas(4096) std::uint64_t produced = 0;
    alignas(4096) std::uint64_t consumed = 0;
  };

  unisync::managed_ptr<slot_array> slots_;
  unisync::managed_ptr<Semaphore> free_slots_;
  unisync::managed_ptr<Semaphore> filled_slots_;
  unisync::managed_ptr<claim_counters> claims_;
};

}  // namespace work_queue
