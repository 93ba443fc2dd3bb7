#pragma once

#include <unisync/backoff.hpp>
#include <unisync/detail/atomic.hpp>
#include <unisync/detail/chrono.hpp>
#include <unisync/detail/config.hpp>
#include <unisync/detail/groups.hpp>
#include <unisync/detail/in_place.hpp>
#include <unisync/detail/platform.hpp>

#include <cuda/atomic>
#include <cuda/std/chrono>
#include <cuda/std/cstddef>
#include <cuda/std/cstdint>
#include <cuda/std/type_traits>

#include <chrono>

namespace unisync {

/// The largest count any unisync semaphore supports: 2^31 - 1, so that a count and a
/// number of tickets ahead fit the 32-bit forecasts.
inline constexpr cuda::std::ptrdiff_t semaphore_max = 0x7fffffff;

/**
 * @brief std::counting_semaphore that CPU threads and GPU threads share: a FIFO
 * fetch-and-add ("sleeping") semaphore.
 *
 * Two wrapping 64-bit counters on separate 128-byte lines: tickets_taken and
 * permits_granted (the initial count plus every release). `acquire()` takes a ticket with
 * one `fetch_add` and proceeds once its ticket is below permits_granted, pausing in
 * proportion to the tickets still to be served before it; `release(n)` adds n to
 * permits_granted with one `fetch_add`. The count is permits_granted - tickets_taken
 * (negative while threads wait). Permits go to waiters in ticket order. A waiter's
 * forecast divides the tickets ahead of it by the initial count, the number of permits
 * that circulate side by side: forecasting a full handoff per ticket made the waiters of
 * an 8-permit semaphore oversleep (H100, 132 blocks: 2.2e6 acquire/release pairs/s).
 *
 * The counters are 64-bit so that they never wrap in practice: try_acquire() reads the two
 * one after the other, and a waiter compares its ticket with permits_granted; with 32-bit
 * counters, 2^31 operations by others while a thread is preempted between two reads could
 * admit a ticket without a permit or strand an admitted one (found by the model in
 * test/models).
 *
 * `try_acquire()` and the timed acquires never take a ticket they might not use (an
 * abandoned ticket would swallow a permit): they compare-exchange tickets_taken only when
 * a permit is free for the next ticket, so they do not queue.
 *
 * Memory ordering: everything a thread did before `release()` is visible to a thread
 * whose `acquire()` was admitted by that release. `release` is a release fetch_add at
 * `Scope`; the acquirer polls permits_granted with acquire loads, and the poll that admits
 * it synchronizes with the releases it observed.
 * Later releases continue the release sequence of earlier ones, so observing any later
 * value also synchronizes with the earlier releasers. Taking a ticket is relaxed: it
 * publishes nothing.
 *
 * @tparam Scope         every thread that uses the object must be inside this scope.
 * @tparam LeastMaxValue the largest count the program needs; max() returns it. At most
 *                       `semaphore_max`.
 * @tparam Backoff       waiting policy; `proportional_backoff` (default) uses the
 *                       number of tickets ahead as the forecast.
 */
template <cuda::thread_scope Scope, cuda::std::ptrdiff_t LeastMaxValue = semaphore_max,
          class Backoff = proportional_backoff>
class basic_counting_semaphore {
  static_assert(LeastMaxValue >= 0 && LeastMaxValue <= semaphore_max,
                "unisync::counting_semaphore supports LeastMaxValue in [0, unisync::semaphore_max]");

 public:
  /// The largest count: `LeastMaxValue`.
  UNISYNC_HOST_DEVICE static constexpr cuda::std::ptrdiff_t max() noexcept { return LeastMaxValue; }

  /// Preconditions: 0 <= desired <= max(), checked in every build. In a constant
  /// expression (a `__managed__`, `__device__` or `constexpr` object) a violation does
  /// not compile; at run time the host throws unisync::error and the device traps.
  UNISYNC_HOST_DEVICE constexpr explicit basic_counting_semaphore(cuda::std::ptrdiff_t desired)
      : permits_granted_(static_cast<cuda::std::uint64_t>(desired)),
        initial_count_(static_cast<cuda::std::uint32_t>(desired))
  {
    UNISYNC_EXPECTS(desired >= 0 && desired <= max(), "counting_semaphore(desired) needs 0 <= desired <= max()");
  }
  /// At block scope only: no permits, as basic_counting_semaphore(0), so that a
  /// `__shared__` semaphore can be declared for init() to construct (README, "Objects in
  /// shared memory"). std's semaphore has no default constructor.
  template <cuda::thread_scope S = Scope, cuda::std::enable_if_t<S == cuda::thread_scope_block, int> = 0>
  UNISYNC_HOST_DEVICE constexpr basic_counting_semaphore() : basic_counting_semaphore(0)
  {
  }
  basic_counting_semaphore(basic_counting_semaphore const&) = delete;
  basic_counting_semaphore& operator=(basic_counting_semaphore const&) = delete;

  /// Constructs the semaphore anew at `object`, as basic_counting_semaphore(desired), for a
  /// `__shared__` variable (README, "Objects in shared memory"). Preconditions: as the
  /// constructor's.
  friend UNISYNC_HOST_DEVICE void init(basic_counting_semaphore* object, cuda::std::ptrdiff_t desired)
  {
    detail::construct_in_place(object, desired);
  }

  /// Adds `update` permits, waking up to `update` waiters in ticket order.
  /// Preconditions (checked in debug builds): update >= 0 and the count stays <= max().
  /// Cost: one release fetch_add at `Scope`.
  UNISYNC_HOST_DEVICE void release(cuda::std::ptrdiff_t update = 1);

  /// Takes a ticket and blocks until a permit is granted to it. Progress:
  /// starvation-free while permits keep being released; FIFO. Cost: one fetch_add at
  /// `Scope`, then one acquire load per poll.
  UNISYNC_HOST_DEVICE void acquire();

  /// Takes a permit if one is free for the next ticket; never blocks and never takes a
  /// ticket it does not use. Cost: two loads and at most one compare-exchange.
  UNISYNC_HOST_DEVICE bool try_acquire() noexcept;

  /// @{
  /// Retries try_acquire() until it succeeds or `timeout` passes (try_acquire_until:
  /// until `when`); never takes a ticket. The clock is the calling side's monotonic
  /// clock; a timeout of zero or less tries exactly once.
  template <class Rep, class Period>
  UNISYNC_HOST_DEVICE bool try_acquire_for(cuda::std::chrono::duration<Rep, Period> const& timeout)
  {
    return try_acquire_within(detail::to_nanoseconds(timeout));
  }
  template <class Clock, class Duration>
  UNISYNC_HOST_DEVICE bool try_acquire_until(cuda::std::chrono::time_point<Clock, Duration> const& when)
  {
    return detail::try_until(when, [&](cuda::std::uint64_t left_ns) { return try_acquire_within(left_ns); });
  }
  template <class Rep, class Period>
  bool try_acquire_for(std::chrono::duration<Rep, Period> const& timeout)
  {
    return try_acquire_within(detail::to_nanoseconds(timeout));
  }
  template <class Clock, class Duration>
  bool try_acquire_until(std::chrono::time_point<Clock, Duration> const& when)
  {
    return detail::try_until(when, [&](cuda::std::uint64_t left_ns) { return try_acquire_within(left_ns); });
  }
  /// @}

#if defined(__CUDACC__)
  /// @{
  /// Group overloads: every thread of `group` calls them together; the leader acquires
  /// (or releases) one permit for the whole group and the group synchronizes.
  template <class Group, class = detail::enable_if_group_t<Group>>
  __device__ void acquire(Group const& group);
  template <class Group, class = detail::enable_if_group_t<Group>>
  __device__ void release(Group const& group, cuda::std::ptrdiff_t update = 1);
  /// @}
#endif  // defined(__CUDACC__)

 private:
  friend struct detail::test_access;

  UNISYNC_HOST_DEVICE bool try_acquire_within(cuda::std::uint64_t timeout_ns);
  UNISYNC_HOST_DEVICE cuda::std::uint32_t forecast_for_timed_wait();
  /// The wait for `tickets_to_go` tickets with `initial_count` permits circulating.
  UNISYNC_HOST_DEVICE static cuda::std::uint32_t forecast_for(cuda::std::uint32_t tickets_to_go,
                                                              cuda::std::uint32_t initial_count) noexcept;

  // The next ticket to hand out. Written by every acquire() (fetch_add) and by a
  // successful try_acquire() (compare-exchange).
  alignas(detail::cache_line_size) cuda::std::uint64_t tickets_taken_ = 0;
  // Tickets below this value hold (or held) a permit. Written by every release().
  alignas(detail::cache_line_size) cuda::std::uint64_t permits_granted_ = 0;
  // The count at construction: how many permits circulate side by side, for the waiters'
  // forecast (each acquire() loads it once). Never written after construction.
  cuda::std::uint32_t initial_count_ = 0;
};

/// std::counting_semaphore at system scope, shared by CPU and GPU threads.
template <cuda::std::ptrdiff_t LeastMaxValue = semaphore_max>
using counting_semaphore = basic_counting_semaphore<cuda::thread_scope_system, LeastMaxValue>;
/// std::binary_semaphore at system scope.
using binary_semaphore = counting_semaphore<1>;

}  // namespace unisync

#include <unisync/detail/counting_semaphore.inl>
