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

/// A holder's view of the lock: the state its predecessor left in the served word, and
/// the tickets taken and not yet served (itself plus its waiters).
struct ticket_holder_view {
  cuda::std::uint64_t state;
  cuda::std::uint64_t queued;
};

/// What a holder that served the next ticket before it looked saw: the state and queue it
/// found before its add, and the ticket count the queue was read from.
struct ticket_look {
  ticket_holder_view view;
  cuda::std::uint64_t taken;
};

/// HolderBits > 0: tickets_served also carries that many low bits of state that each
/// holder hands to the next (the cohort mutex's hold on its top lock and its pass count),
/// so that the next holder reads it with the poll that shows its turn instead of with a
/// load after it (an L2 round trip on the GPU), and the holder changes it with the write
/// that serves the next ticket. Tickets then count modulo 2^(64 - HolderBits).
template <cuda::thread_scope Scope, class Backoff, unsigned HolderBits = 0>
struct ticket_lock {
  static_assert(HolderBits <= 32, "ticket_lock: at most 32 bits of holder state");
  static constexpr cuda::std::uint64_t state_mask = (cuda::std::uint64_t{1} << HolderBits) - 1;

  // The next ticket to hand out. Written by every lock() (fetch_add) and by a successful
  // try_lock() (compare-exchange). 64-bit, so it never wraps between two reads.
  alignas(cache_line_size) cuda::std::uint64_t tickets_taken = 0;
  // The ticket allowed to hold the lock, shifted left by HolderBits, and the holder state
  // below it. Written only by the holder.
  alignas(cache_line_size) cuda::std::uint64_t tickets_served = 0;

  /// How many tickets `ticket` is ahead of the one `served_word` serves, across wraparound.
  UNISYNC_HOST_DEVICE static constexpr cuda::std::uint64_t tickets_between(cuda::std::uint64_t ticket,
                                                                          cuda::std::uint64_t served_word) noexcept
  {
    return ((ticket << HolderBits) - (served_word & ~state_mask)) >> HolderBits;
  }

  /// Returns the holder state the previous holder left.
  UNISYNC_HOST_DEVICE cuda::std::uint64_t lock()
  {
    cuda::std::uint64_t const my_ticket = atomic_at<Scope>(tickets_taken).fetch_add(1, memory_order_relaxed);
    auto served = atomic_at<Scope>(tickets_served);
    cuda::std::uint64_t word = 0;
    wait_for_turn<Backoff>([&](cuda::std::memory_order order) {
      word = served.load(order);
      cuda::std::uint64_t const ahead = tickets_between(my_ticket, word);
      return ahead == 0 ? 0u : forecast_ns(saturated_count(ahead), Backoff::tuning::ticket_handoff_ns);
    });
    return word & state_mask;
  }

  /// On success stores the holder state the previous holder left in `*state` (if given).
  UNISYNC_HOST_DEVICE bool try_lock(cuda::std::uint64_t* state = nullptr) noexcept
  {
    // tickets_served first, with acquire: if it serves tickets_taken, the lock is free and
    // this load saw the last holder's release (and its state, which no one changes until
    // the ticket is taken). The compare-exchange then takes exactly the ticket being
    // served, or fails without taking any.
    cuda::std::uint64_t const now_serving = atomic_at<Scope>(tickets_served).load(memory_order_acquire);
    auto taken = atomic_at<Scope>(tickets_taken);
    cuda::std::uint64_t expected = taken.load(memory_order_relaxed);
    if (tickets_between(expected, now_serving) != 0) return false;
    if (!taken.compare_exchange_strong(expected, expected + 1, memory_order_relaxed, memory_order_relaxed)) {
      return false;
    }
    if (state != nullptr) *state = now_serving & state_mask;
    return true;
  }

  /// Serves the next ticket and leaves it `state_next` (the holder read `state_now`).
  UNISYNC_HOST_DEVICE void unlock(cuda::std::uint64_t state_now = 0, cuda::std::uint64_t state_next = 0)
  {
    UNISYNC_ASSERT(queued() != 0, "unlock() of a ticket_mutex that is not locked");
    add_to_served((cuda::std::uint64_t{1} << HolderBits) + state_next - state_now, memory_order_release);
  }

  /// The holder changes its state from `state_now` to `state_next` without serving anyone.
  UNISYNC_HOST_DEVICE void change_state(cuda::std::uint64_t state_now, cuda::std::uint64_t state_next)
  {
    // Relaxed: the next holder reads it through unlock()'s release.
    add_to_served(state_next - state_now, memory_order_relaxed);
  }

  /// Retries try_lock(state) until it succeeds or the timeout passes: never takes a
  /// ticket. A timeout of zero tries once.
  UNISYNC_HOST_DEVICE bool try_lock_within(cuda::std::uint64_t timeout_ns, cuda::std::uint64_t* state = nullptr)
  {
    return wait_for_turn_within<Backoff>(timeout_ns, [&](cuda::std::memory_order) {
      if (try_lock(state)) return 0u;
      // Pause as if queued behind everyone now waiting.
      return forecast_ns(saturated_count(queued()), Backoff::tuning::ticket_handoff_ns);
    });
  }

  /// The holder serves the next ticket first and looks after: adds `state_delta` to its
  /// state with the serve and returns the state and queue as view_as_holder() would have
  /// shown them just before the add (`taken` is the ticket count the queue was read
  /// from). The load of tickets_taken goes out with the add and may read it before the add
  /// lands: a queue above 1 then still means that the next ticket is taken (lock() never
  /// gives its ticket up), one of 1 only that it was not yet (take_back() decides).
  UNISYNC_HOST_DEVICE ticket_look serve_next_then_look(cuda::std::uint64_t state_delta)
  {
    cuda::std::uint64_t const before = atomic_at<Scope>(tickets_served)
                                           .fetch_add((cuda::std::uint64_t{1} << HolderBits) + state_delta,
                                                      memory_order_release);
    cuda::std::uint64_t const taken = atomic_at<Scope>(tickets_taken).load(memory_order_relaxed);
    return {{before & state_mask, tickets_between(taken, before)}, taken};
  }

  /// After serve_next_then_look() showed no one queued (tickets_taken == `taken`): takes
  /// the ticket just served unless a thread has taken it meanwhile. True: the caller holds
  /// the lock again, with the state it served it with. Relaxed: no other thread held it
  /// in between.
  UNISYNC_HOST_DEVICE bool take_back(cuda::std::uint64_t taken)
  {
    return atomic_at<Scope>(tickets_taken)
        .compare_exchange_strong(taken, taken + 1, memory_order_relaxed, memory_order_relaxed);
  }

  /// Tickets taken and not yet served: the holder plus its waiters. Called by the holder,
  /// it tells whether anyone queues behind it.
  UNISYNC_HOST_DEVICE cuda::std::uint64_t queued() { return view_as_holder().queued; }

  /// The holder's state and queue, with two loads that do not wait for each other.
  UNISYNC_HOST_DEVICE ticket_holder_view view_as_holder()
  {
    cuda::std::uint64_t const taken = atomic_at<Scope>(tickets_taken).load(memory_order_relaxed);
    cuda::std::uint64_t const word = atomic_at<Scope>(tickets_served).load(memory_order_relaxed);
    return {word & state_mask, tickets_between(taken, word)};
  }

 private:
  UNISYNC_HOST_DEVICE void add_to_served(cuda::std::uint64_t delta, cuda::std::memory_order order)
  {
    auto served = atomic_at<Scope>(tickets_served);
    // Only the holder writes tickets_served, so adding to it and storing its value plus
    // the same are the same write. On the GPU below system scope the add is a reduction
    // the holder does not wait for: the next ticket sees its turn one L2 round trip sooner
    // than after a load and a store (device scope, 132 blocks on an H100: 1.20e6 against
    // 1.02e6 sections/s, benchmark/results/h100-gpu-lock-entry). At system scope the word
    // is in managed memory that may sit on the CPU's side, where a GPU atomic moves the
    // page (in a trial, one CPU thread and one block fell from 3.6e6 to 1.3e4 sections/s),
    // so there the holder stores.
    if (Scope != cuda::thread_scope_system && running_on_device()) {
      served.fetch_add(delta, order);
      return;
    }
    served.store(served.load(memory_order_relaxed) + delta, order);
  }
};

}  // namespace unisync::detail
