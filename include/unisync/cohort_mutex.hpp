#pragma once

#include <unisync/backoff.hpp>
#include <unisync/detail/atomic.hpp>
#include <unisync/detail/chrono.hpp>
#include <unisync/detail/config.hpp>
#include <unisync/detail/groups.hpp>
#include <unisync/detail/platform.hpp>
#include <unisync/detail/ticket_lock.hpp>
#include <unisync/managed.hpp>

#include <cuda/atomic>
#include <cuda/std/chrono>
#include <cuda/std/cstdint>

#include <chrono>

namespace unisync {

/**
 * @brief A mutex for CPU and GPU threads that keeps every read-modify-write on one side of
 * the link: the platform-aware lock for GPUs without native host atomics (PCIe).
 *
 * Each side has a local FIFO ticket lock in its own memory (GPU: device-resident page,
 * device-scope atomics; CPU: host-resident page). The thread that takes its side's local
 * lock also needs the top lock, a two-party Peterson lock between the two sides built
 * from loads and stores only (host-resident words; the GPU reaches them across the link
 * with system-scope ordering). A holder that sees a thread queued behind it on its own
 * side passes the lock on without releasing the top lock (a cohort), at most
 * `tuning::cohort_pass_bound` (B) times in a row while the other side is interested; then
 * it hands the top lock over: Peterson's turn lets the other side in, and its own side,
 * still interested, gets the top lock back after that side's turn. A GPU holder passes
 * before it looks (see unlock()); the thread that receives the pass beyond the bound
 * makes the same decision on entry, so a side still runs at most B + 1 sections a turn.
 *
 * Progress: starvation-free. Bounded bypass: once a waiting thread's side has announced
 * its interest in the top lock, the thread sees at most (B + 1) * (ceil((Q + 1) / (B + 1))
 * + 1) critical sections of the other side, Q being the threads ahead of it in its side's
 * FIFO queue: the other side runs at most B + 1 sections per turn of the waiter's side,
 * and one turn more when the turn store of the announcement lands after a handover
 * (verified with spin in test/models/cohort_mutex.pml, where the bound is tight; with
 * -DTRY for threads that mix lock() with try_lock() and try_lock_for()). A side that hands
 * over keeps its interest, so it stays announced; so does a try that announced and fails
 * with a lock() caller queued behind it: it leaves the top lock handed over to that one
 * (whose entry fences before its loads, as after a handover). A waiter that queues after
 * its side decided to release the top lock is not announced until it takes the local
 * lock and stores its interest; the other side is not held back meanwhile.
 *
 * Memory ordering: everything the holder did before `unlock()` is visible to the next
 * holder after its `lock()` returns. Within a side the local ticket lock's release/acquire
 * carries it (device scope on the GPU); across sides the top lock does: the releasing
 * side stores its flag with a system-scope release, the entering side reads it (or the
 * turn word, stored with release) with a system-scope acquire. Mutual exclusion between
 * the sides rests on system-scope seq_cst fences: an entering side stores its interest,
 * fences, stores the turn word, and fences again before it loads the other side's words;
 * a side that handed the top lock over fences before those loads (its interest was
 * fenced when announced, which happens before the handover's turn store). Whichever side
 * stores the turn word later in coherence order, the fence before its loads and the other
 * side's fence before its turn store are ordered ([atomics.order] p4.4 in C++20;
 * fence.sc's Fence-SC order in PTX), so it reads the other side's interest with the turn
 * word naming that side, and waits. With only the fence before the loads, the later side
 * could read the other side's interest as 0 although that side's turn store came first
 * (the "R" litmus shape, allowed by both models), and both sides would enter. PTX
 * releases and acquires are cumulative, so a chain of local and cross-side handoffs
 * orders every critical section before the next.
 *
 * Placement: construct it with `unisync::make_managed`, which advises each side's page for
 * that side; without the advice it is still correct, only slower.
 *
 * When to choose it (benchmark/results/h100, PCIe H100, 4 CPU threads and 132 GPU blocks):
 * the default lock for CPU and GPU threads together. It served 7.3e5 critical sections/s,
 * half to each side, longest wait 1.6 ms (8.0e5 and 1.1 ms with a pass bound of 256;
 * since the GPU's unlock() passes first, 8.3e5 against 7.5e5 in interleaved rounds,
 * benchmark/results/h100-cohort-pass-first);
 * `mutex` served 3.4e6/s but gave the CPU 98% and kept GPU waiters up to 123 ms;
 * `ticket_mutex` served 1.3e4/s (every FIFO handoff crosses the link). For GPU threads
 * alone take a device-scope lock instead. On a link with native host atomics (NVLink-C2C)
 * it should still win, without a mode switch: its passes within the GPU side stay
 * device-scope, where any single-word lock pays a system-scope atomic across the link per
 * handoff (not measured: no such machine here).
 *
 * @tparam Backoff waiting policy; `proportional_backoff` (default).
 */
template <class Backoff = proportional_backoff>
class basic_cohort_mutex {
 public:
  /// How many times in a row the lock may pass within one side while the other waits.
  static constexpr cuda::std::uint32_t pass_bound = Backoff::tuning::cohort_pass_bound;

  constexpr basic_cohort_mutex() noexcept = default;
  basic_cohort_mutex(basic_cohort_mutex const&) = delete;
  basic_cohort_mutex& operator=(basic_cohort_mutex const&) = delete;

  /// Blocks until the calling thread holds the lock. Cost: the local ticket lock (one
  /// fetch_add in the side's own memory) and, unless its side holds the top lock already,
  /// Peterson's entry at system scope (a store, a seq_cst fence, a store, a seq_cst fence,
  /// then loads; on the GPU they cross the link).
  UNISYNC_HOST_DEVICE void lock();

  /// Takes the lock if it is free for the calling side; never blocks or queues. A try that
  /// finds the side past its pass bound with the other side waiting fails and gives the
  /// top lock up (handed over to the thread queued behind, or released). A try that
  /// announced its side's interest and fails keeps it only for a thread queued behind.
  UNISYNC_HOST_DEVICE bool try_lock();

  /// Releases the lock: passes it to the next thread of the same side when one waits and
  /// the pass bound allows (or the other side does not wait), hands the top lock over when
  /// the bound is reached, else releases the top lock. On the GPU it passes first and
  /// looks after (the thread it passed to checks the bound when it enters): the next
  /// holder gets the lock an L2 round trip sooner, and an unlock() that found nobody to
  /// pass to takes the lock back to release the top lock, unless a thread has taken the
  /// pass meanwhile. So a GPU unlock() may still touch the mutex after the next holder has
  /// it: reuse its memory only after every unlock() has returned. Preconditions: the
  /// calling thread holds the lock (debug builds check that the local lock is held).
  UNISYNC_HOST_DEVICE void unlock();

  /// @{
  /// As lock(), but gives up after `timeout` and returns false; never queues. A timeout of
  /// zero or less tries exactly once, as try_lock(). try_lock_until gives up at `when`.
  template <class Rep, class Period>
  UNISYNC_HOST_DEVICE bool try_lock_for(cuda::std::chrono::duration<Rep, Period> const& timeout)
  {
    return try_lock_within(detail::to_nanoseconds(timeout));
  }
  template <class Clock, class Duration>
  UNISYNC_HOST_DEVICE bool try_lock_until(cuda::std::chrono::time_point<Clock, Duration> const& when)
  {
    return detail::try_until(when, [&](cuda::std::uint64_t left_ns) { return try_lock_within(left_ns); });
  }
  template <class Rep, class Period>
  bool try_lock_for(std::chrono::duration<Rep, Period> const& timeout)
  {
    return try_lock_within(detail::to_nanoseconds(timeout));
  }
  template <class Clock, class Duration>
  bool try_lock_until(std::chrono::time_point<Clock, Duration> const& when)
  {
    return detail::try_until(when, [&](cuda::std::uint64_t left_ns) { return try_lock_within(left_ns); });
  }
  /// @}

#if defined(__CUDACC__)
  /// @{
  /// Group overloads: the group's leader locks for the whole group (see basic_mutex).
  template <class Group>
  __device__ void lock(Group const& group);
  template <class Group>
  __device__ bool try_lock(Group const& group);
  template <class Group>
  __device__ void unlock(Group const& group);
  /// @}
#endif  // defined(__CUDACC__)

  /// make_managed's placement hook: the CPU's page and the top lock to the host, the GPU's
  /// page to the device.
  static void advise_placement(basic_cohort_mutex* object, int device);

 private:
  friend struct detail::test_access;
  template <cuda::thread_scope, class>
  friend class basic_shared_mutex;

  /// unlock(), which first calls `before_release(bool)` with whether the lock goes next to
  /// a thread of the holder's side (one that has queued: timed tries never queue), while
  /// the holder still holds it.
  template <class BeforeRelease>
  UNISYNC_HOST_DEVICE void unlock_after(BeforeRelease before_release);

  /// Which side of the link a thread is on; also its index in the top lock.
  enum side_id : cuda::std::uint32_t { cpu_side = 0, gpu_side = 1 };
  /// A side's hold on the top lock: none, held, or handed to the other side for one turn
  /// with this side's interest still announced.
  enum top_state_value : cuda::std::uint32_t { top_free = 0, top_held = 1, top_handed_over = 2 };

  /// What each local holder hands to the next, in the low bits of the local lock's served
  /// word: the side's hold on the top lock (top_state_value, 2 bits) and how many times in
  /// a row the lock has been passed within the side (above them). The next holder reads
  /// them with the poll that shows its turn and the holder changes them with the write that
  /// serves the next ticket: as separate words after and before those, they were three
  /// dependent L2 accesses per pass on the GPU (with GPU blocks alone 7.8e5 against 1.2e6
  /// sections/s for the ticket lock itself, H200).
  static constexpr unsigned pass_count_bits = 16;
  // A GPU holder counts its pass before it looks at the bound: up to the bound plus one.
  static_assert(Backoff::tuning::cohort_pass_bound < (1u << pass_count_bits) - 1,
                "cohort_mutex: the pass bound must fit the pass count's bits");
  static constexpr unsigned holder_state_bits = 2 + pass_count_bits;
  UNISYNC_HOST_DEVICE static constexpr cuda::std::uint64_t holder_state(cuda::std::uint32_t top,
                                                                        cuda::std::uint32_t passes) noexcept
  {
    return top | (static_cast<cuda::std::uint64_t>(passes) << 2);
  }
  UNISYNC_HOST_DEVICE static constexpr cuda::std::uint32_t top_of(cuda::std::uint64_t state) noexcept
  {
    return static_cast<cuda::std::uint32_t>(state & 3u);
  }
  UNISYNC_HOST_DEVICE static constexpr cuda::std::uint32_t passes_of(cuda::std::uint64_t state) noexcept
  {
    return static_cast<cuda::std::uint32_t>(state >> 2);
  }
  /// unlock()'s precondition as the local lock shows it: a ticket is held, and its side
  /// holds the top lock.
  UNISYNC_HOST_DEVICE static constexpr bool held_by_side(detail::ticket_holder_view view) noexcept
  {
    return top_of(view.state) == top_held && view.queued != 0;
  }

  /// One side's lock, on a page of its own.
  template <cuda::thread_scope LocalScope>
  struct alignas(detail::page_size) side_part {
    detail::ticket_lock<LocalScope, Backoff, holder_state_bits> local;
  };

  /// Peterson's words, in host memory: the CPU reaches them locally, the GPU across the link.
  struct alignas(detail::page_size) top_part {
    alignas(detail::cache_line_size) cuda::std::uint32_t cpu_interested = 0;  // written by CPU leaders
    alignas(detail::cache_line_size) cuda::std::uint32_t gpu_interested = 0;  // written by GPU leaders
    alignas(detail::cache_line_size) cuda::std::uint32_t turn = 0;            // written by both
  };

  template <class Side>
  UNISYNC_HOST_DEVICE void lock_on(Side& side, side_id me);
  // The local lock is held, the top lock not: takes it, waiting as long as it takes.
  template <class Side>
  UNISYNC_HOST_DEVICE void take_top(Side& side, side_id me, cuda::std::uint64_t state);
  // The local lock is held: keeps it if the side holds the top lock or `wait_for_top()`
  // gets it; else leaves both.
  template <class Side, class WaitForTop>
  UNISYNC_HOST_DEVICE bool try_top(Side& side, side_id me, cuda::std::uint64_t state, WaitForTop wait_for_top);
  template <class Side>
  UNISYNC_HOST_DEVICE bool try_lock_on(Side& side, side_id me);
  template <class Side, class BeforeRelease>
  UNISYNC_HOST_DEVICE void unlock_on(Side& side, side_id me, BeforeRelease before_release);
  // unlock() on the GPU: passes within the side first, then looks whether anyone was there
  // to pass to.
  template <class Side>
  UNISYNC_HOST_DEVICE void pass_then_look(Side& side, side_id me);
  template <class Side>
  UNISYNC_HOST_DEVICE bool try_lock_within_on(Side& side, side_id me, cuda::std::uint64_t timeout_ns);
  UNISYNC_HOST_DEVICE bool try_lock_within(cuda::std::uint64_t timeout_ns);
  UNISYNC_HOST_DEVICE void announce_interest(side_id me);
  UNISYNC_HOST_DEVICE cuda::std::uint32_t forecast_to_top(side_id me, cuda::std::memory_order order);
  UNISYNC_HOST_DEVICE void release_top(side_id me);
  UNISYNC_HOST_DEVICE bool other_side_waits(side_id me);
  UNISYNC_HOST_DEVICE void hand_over_top(side_id me);
  UNISYNC_HOST_DEVICE cuda::atomic_ref<cuda::std::uint32_t, cuda::thread_scope_system> interested(side_id side);

  side_part<cuda::thread_scope_system> cpu_;
  side_part<cuda::thread_scope_device> gpu_;
  top_part top_;
};

/// The platform-aware system-scope mutex shared by CPU and GPU threads.
using cohort_mutex = basic_cohort_mutex<>;

}  // namespace unisync

#include <unisync/detail/cohort_mutex.inl>
