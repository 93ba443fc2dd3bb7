#pragma once
// The tests' hook into the primitives' counters (befriended as unisync::detail::test_access):
// to see when a waiter has taken its ticket, and to start counters near the 64-bit wrap.

#include <unisync/barrier.hpp>
#include <unisync/cohort_mutex.hpp>
#include <unisync/counting_semaphore.hpp>
#include <unisync/latch.hpp>
#include <unisync/partitioned_barrier.hpp>
#include <unisync/ticket_mutex.hpp>

#include <cuda/std/cstdint>

namespace unisync::detail {

struct test_access {
  template <cuda::thread_scope Scope, class Backoff>
  UNISYNC_HOST_DEVICE static cuda::std::uint64_t tickets_taken(basic_ticket_mutex<Scope, Backoff>& lock)
  {
    return atomic_at<Scope>(lock.lock_.tickets_taken).load(memory_order_acquire);
  }
  /// Moves both counters of an unused lock to `ticket`.
  template <cuda::thread_scope Scope, class Backoff>
  static void start_tickets_at(basic_ticket_mutex<Scope, Backoff>& lock, cuda::std::uint64_t ticket)
  {
    lock.lock_.tickets_taken = ticket;
    lock.lock_.tickets_served = ticket;
  }

  /// The cohort mutex's local queue of the calling side.
  template <class Backoff>
  UNISYNC_HOST_DEVICE static cuda::std::uint64_t tickets_taken(basic_cohort_mutex<Backoff>& lock)
  {
    return running_on_device() ? atomic_at<cuda::thread_scope_device>(lock.gpu_.local.tickets_taken).load(memory_order_acquire)
                               : atomic_at<cuda::thread_scope_system>(lock.cpu_.local.tickets_taken).load(memory_order_acquire);
  }
  template <class Backoff>
  static void start_tickets_at(basic_cohort_mutex<Backoff>& lock, cuda::std::uint64_t ticket)
  {
    lock.cpu_.local.tickets_taken = lock.cpu_.local.tickets_served = ticket;
    lock.gpu_.local.tickets_taken = lock.gpu_.local.tickets_served = ticket;
  }

  /// Keeps every phase on the central word, as on a link with native host atomics.
  template <class Completion, class Backoff>
  static void make_flat(basic_partitioned_barrier<Completion, Backoff>& barrier)
  {
    barrier.central_.flat = 1;
  }
  /// Flips the host waiters' hint line, as a completing thread's late store (after it left
  /// with arrive_and_drop) can: the hint then shows the open phase as the previous one.
  template <cuda::thread_scope Scope, class Completion, class Backoff>
  static void flip_hint(basic_barrier<Scope, Completion, Backoff>& barrier)
  {
    barrier.open_parity_ ^= 1u;
  }
  template <class Completion, class Backoff>
  static void flip_hint(basic_partitioned_barrier<Completion, Backoff>& barrier)
  {
    barrier.cpu_.open_parity ^= 1u;
  }
  /// Pretends the first phase found `cpu_share` CPU and `gpu_share` GPU participants.
  template <class Completion, class Backoff>
  static void assume_split(basic_partitioned_barrier<Completion, Backoff>& barrier, cuda::std::uint32_t cpu_share,
                           cuda::std::uint32_t gpu_share)
  {
    using barrier_type = basic_partitioned_barrier<Completion, Backoff>;
    barrier.cpu_ = {};
    barrier.gpu_ = {};
    barrier.reports_ = {};
    barrier.reports_.from_cpu = cpu_share;
    barrier.reports_.from_gpu = gpu_share;
    barrier.cpu_.word = (gpu_share != 0 ? barrier_type::mixed_flag : 0) | cpu_share;
    barrier.gpu_.word = (cpu_share != 0 ? barrier_type::mixed_flag : 0) | gpu_share;
  }
  /// A side of a partitioned barrier, for host threads that stand in for GPU threads.
  enum class side { cpu, gpu };
  template <class Barrier>
  static auto side_of(side which)
  {
    return which == side::gpu ? Barrier::side_kind::gpu : Barrier::side_kind::cpu;
  }
  /// arrive(update) and arrive_and_drop() as a thread of `which` side would call them.
  template <class Completion, class Backoff>
  static auto arrive_as(basic_partitioned_barrier<Completion, Backoff>& barrier, side which,
                        cuda::std::uint32_t update = 1, bool drop = false)
  {
    return barrier.arrive_as(side_of<basic_partitioned_barrier<Completion, Backoff>>(which), update, drop);
  }
  /// wait(token) as a thread of `which` side would call it.
  template <class Completion, class Backoff, class Token>
  static void wait_as(basic_partitioned_barrier<Completion, Backoff> const& barrier, side which, Token&& token)
  {
    barrier.wait_as(side_of<basic_partitioned_barrier<Completion, Backoff>>(which), static_cast<Token&&>(token));
  }
  /// try_wait_for(token, timeout) as a thread of `which` side would call it.
  template <class Completion, class Backoff, class Token>
  static bool try_wait_for_as(basic_partitioned_barrier<Completion, Backoff> const& barrier, side which,
                              Token const& token, cuda::std::uint64_t timeout_ns)
  {
    return barrier.try_wait_within(side_of<basic_partitioned_barrier<Completion, Backoff>>(which), token, timeout_ns);
  }

  /// Keeps every call of a system-scope latch on one word, as on a link with native host
  /// atomics.
  template <class Backoff>
  static void make_flat(basic_latch<cuda::thread_scope_system, Backoff>& latch)
  {
    latch.state_.host.flat = 1;
    latch.state_.device.flat = 1;
  }
  /// count_down(update), wait() and try_wait() as a thread of `which` side would call them.
  template <cuda::thread_scope Scope, class Backoff>
  static void count_down_as(basic_latch<Scope, Backoff>& latch, side which, cuda::std::uint64_t update = 1)
  {
    latch.count_down_as(side_of<basic_latch<Scope, Backoff>>(which), update);
  }
  template <cuda::thread_scope Scope, class Backoff>
  static void wait_as(basic_latch<Scope, Backoff> const& latch, side which)
  {
    latch.wait_as(side_of<basic_latch<Scope, Backoff>>(which), 1);
  }
  template <cuda::thread_scope Scope, class Backoff>
  static bool try_wait_as(basic_latch<Scope, Backoff> const& latch, side which)
  {
    return latch.try_wait_as(side_of<basic_latch<Scope, Backoff>>(which));
  }
  /// The GPU's total as its word holds it, and as its last report says.
  template <class Backoff>
  static cuda::std::uint32_t gpu_total(basic_latch<cuda::thread_scope_system, Backoff>& latch)
  {
    return static_cast<cuda::std::uint32_t>(
        atomic_at<cuda::thread_scope_system>(latch.state_.device.word).load(memory_order_acquire) >> 32);
  }
  template <class Backoff>
  static cuda::std::uint32_t gpu_report(basic_latch<cuda::thread_scope_system, Backoff>& latch)
  {
    return atomic_at<cuda::thread_scope_system>(latch.state_.host.gpu_report).load(memory_order_acquire);
  }

  template <cuda::thread_scope Scope, cuda::std::ptrdiff_t Max, class Backoff>
  UNISYNC_HOST_DEVICE static cuda::std::uint64_t tickets_taken(basic_counting_semaphore<Scope, Max, Backoff>& semaphore)
  {
    return atomic_at<Scope>(semaphore.tickets_taken_).load(memory_order_acquire);
  }
  /// Moves both counters of an unused semaphore so the next ticket is `ticket`, keeping
  /// its count.
  template <cuda::thread_scope Scope, cuda::std::ptrdiff_t Max, class Backoff>
  static void start_tickets_at(basic_counting_semaphore<Scope, Max, Backoff>& semaphore, cuda::std::uint64_t ticket)
  {
    cuda::std::uint64_t const count = semaphore.permits_granted_ - semaphore.tickets_taken_;
    semaphore.tickets_taken_ = ticket;
    semaphore.permits_granted_ = ticket + count;
  }
  template <cuda::thread_scope Scope, cuda::std::ptrdiff_t Max, class Backoff>
  static cuda::std::int64_t count(basic_counting_semaphore<Scope, Max, Backoff>& semaphore)
  {
    return wrapping_distance(atomic_at<Scope>(semaphore.permits_granted_).load(memory_order_acquire),
                             atomic_at<Scope>(semaphore.tickets_taken_).load(memory_order_acquire));
  }

  /// The parity of the barrier's open phase (bit 63 of its word): flips once per completed phase.
  template <cuda::thread_scope Scope, class Completion, class Backoff>
  UNISYNC_HOST_DEVICE static cuda::std::uint32_t parity(basic_barrier<Scope, Completion, Backoff>& barrier)
  {
    using barrier_type = basic_barrier<Scope, Completion, Backoff>;
    return static_cast<cuda::std::uint32_t>(atomic_at<Scope>(barrier.word_).load(memory_order_acquire) >>
                                            barrier_type::parity_shift);
  }
};

}  // namespace unisync::detail
