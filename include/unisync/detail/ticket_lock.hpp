#pragma once
// The ticket-lock algorithm: basic_ticket_mutex's body, and the per-side local locks of the
// cohort mutex (which also needs to see whether anyone queues behind the holder). The
// contract and the memory-ordering argument are in unisync/ticket_mutex.hpp.

#include <unisync/detail/atomic.hpp>
#include <unisync/detail/config.hpp>
#include <unisync/detail/platform.hpp>
#include <unisync/detail/wait.hpp>

#include <cuda/atomic>
#include <cuda/std/cstdint>

namespace unisync::detail {

template <cuda::thread_scope Scope, class Backoff>
struct ticket_lock {
  // The next ticket to hand out. Written by every lock() (fetch_add) and by a successful
  // try_lock() (compare-exchange). 64-bit, so it never wraps between two reads.
  alignas(cache_line_size) cuda::std::uint64_t tickets_taken = 0;
  // The ticket allowed to hold the lock. Written only by the holder, in unlock().
  alignas(cache_line_size) cuda::std::uint64_t tickets_served = 0;

  UNISYNC_HOST_DEVICE void lock()
  {
    cuda::std::uint64_t const my_ticket = atomic_at<Scope>(tickets_taken).fetch_add(1, memory_order_relaxed);
    auto served = atomic_at<Scope>(tickets_served);
    wait_for_turn<Backoff>([&](cuda::std::memory_order order) {
      // Unsigned subtraction: the number of tickets ahead of mine, across wraparound.
      cuda::std::uint64_t const ahead = my_ticket - served.load(order);
      return ahead == 0 ? 0u : forecast_ns(saturated_count(ahead), Backoff::tuning::ticket_handoff_ns);
    });
  }

  UNISYNC_HOST_DEVICE bool try_lock() noexcept
  {
    // tickets_served first, with acquire: if it equals tickets_taken, the lock is free and
    // this load saw the last holder's release. The compare-exchange then takes exactly the
    // ticket being served, or fails without taking any.
    cuda::std::uint64_t const now_serving = atomic_at<Scope>(tickets_served).load(memory_order_acquire);
    auto taken = atomic_at<Scope>(tickets_taken);
    cuda::std::uint64_t expected = taken.load(memory_order_relaxed);
    if (expected != now_serving) return false;
    return taken.compare_exchange_strong(expected, expected + 1, memory_order_relaxed, memory_order_relaxed);
  }

  UNISYNC_HOST_DEVICE void unlock()
  {
    auto served = atomic_at<Scope>(tickets_served);
    UNISYNC_ASSERT(atomic_at<Scope>(tickets_taken).load(memory_order_relaxed) != served.load(memory_order_relaxed),
                   "unlock() of a ticket_mutex that is not locked");
    // Only the holder writes tickets_served, so adding 1 and storing its value + 1 are the
    // same write. On the GPU below system scope the add is a reduction the holder does not
    // wait for: the next ticket sees its turn one L2 round trip sooner than after a load and
    // a store (device scope, 132 blocks on an H100: 1.20e6 against 1.02e6 sections/s,
    // benchmark/results/h100-gpu-lock-entry). At system scope the word is in managed memory
    // that may sit on the CPU's side, where a GPU atomic moves the page (in a trial, one CPU
    // thread and one block fell from 3.6e6 to 1.3e4 sections/s), so there the holder stores.
    if (Scope != cuda::thread_scope_system && running_on_device()) {
      served.fetch_add(1, memory_order_release);
      return;
    }
    served.store(served.load(memory_order_relaxed) + 1, memory_order_release);
  }

  /// Retries try_lock() until it succeeds or the timeout passes: never takes a ticket. A
  /// timeout of zero tries once.
  UNISYNC_HOST_DEVICE bool try_lock_within(cuda::std::uint64_t timeout_ns)
  {
    return wait_for_turn_within<Backoff>(timeout_ns, [&](cuda::std::memory_order) {
      if (try_lock()) return 0u;
      // Pause as if queued behind everyone now waiting.
      return forecast_ns(saturated_count(queued()), Backoff::tuning::ticket_handoff_ns);
    });
  }

  /// Tickets taken and not yet served: the holder plus its waiters. Called by the holder,
  /// it tells whether anyone queues behind it.
  UNISYNC_HOST_DEVICE cuda::std::uint64_t queued()
  {
    return atomic_at<Scope>(tickets_taken).load(memory_order_relaxed) -
           atomic_at<Scope>(tickets_served).load(memory_order_relaxed);
  }
};

}  // namespace unisync::detail
