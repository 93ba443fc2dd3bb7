#pragma once

#include <unisync/backoff.hpp>
#include <unisync/detail/atomic.hpp>
#include <unisync/detail/chrono.hpp>
#include <unisync/detail/config.hpp>
#include <unisync/detail/groups.hpp>
#include <unisync/detail/platform.hpp>

#include <cuda/atomic>
#include <cuda/std/chrono>
#include <cuda/std/cstddef>
#include <cuda/std/cstdint>
#include <cuda/std/type_traits>

#include <chrono>

namespace unisync {

/// The default completion function: does nothing, on either side.
struct empty_completion {
  UNISYNC_HOST_DEVICE void operator()() const noexcept {}
};

/**
 * @brief std::barrier that CPU threads and GPU threads share: a central phase counter with
 * hierarchical (block-count) arrival on the GPU.
 *
 * One 64-bit word holds the phase number (high half) and the arrivals still missing in
 * this phase (low half). Each arrival subtracts its weight with one fetch_sub; the arrival
 * that brings the count to zero is the last: it applies pending `arrive_and_drop()`s to the
 * expected count, runs the completion function, and publishes the next phase with the
 * count re-armed in one store. Waiters poll the word, pausing in proportion to the
 * arrivals still missing measured in their own arrival's weight (a block of 128 threads
 * waits in units of blocks, not threads).
 *
 * The completion function runs exactly once per phase, in the last arriving thread,
 * before anyone is released, on whichever side that thread is: when CPU and GPU threads
 * participate it must be callable on both (`__host__ __device__`).
 *
 * Memory ordering: everything any participant did before arriving in a phase is visible
 * to the completion function and to every participant after its wait for that phase
 * returns. Arrivals are release read-modify-writes at `Scope` and form one release
 * sequence; the last arriver then acquires the word, which synchronizes with every
 * earlier arrival. The phase store is a release at `Scope`; waiters poll with relaxed
 * loads and read the word once more with an acquire load once the phase has moved, which
 * synchronizes with that store (or with a later arrival in its release sequence). Group
 * arrivals rely on the group's barrier (bar.sync / __syncwarp), which orders the group's
 * writes before the leader's release and the leader's acquire before the group's later
 * reads: PTX releases and acquires are cumulative.
 *
 * @tparam Scope              every participant must be inside this scope.
 * @tparam CompletionFunction nothrow-invocable with no arguments, run once per phase.
 * @tparam Backoff            waiting policy; `proportional_backoff` (default).
 */
template <cuda::thread_scope Scope, class CompletionFunction = empty_completion,
          class Backoff = proportional_backoff>
class basic_barrier {
  static_assert(cuda::std::is_nothrow_invocable_v<CompletionFunction&>,
                "the barrier's CompletionFunction must be callable with no arguments and noexcept");

 public:
  /// Returned by arrive(); identifies the phase to wait for.
  class arrival_token {
   public:
    arrival_token() = default;

   private:
    friend class basic_barrier;
    UNISYNC_HOST_DEVICE arrival_token(cuda::std::uint32_t phase, cuda::std::uint32_t weight) noexcept
        : phase_(phase), weight_(weight)
    {
    }
    cuda::std::uint32_t phase_ = 0;
    cuda::std::uint32_t weight_ = 1;  // the arrival's update: the unit a waiter counts in
  };

  /// The largest expected count: 2^31 - 1.
  UNISYNC_HOST_DEVICE static constexpr cuda::std::ptrdiff_t max() noexcept { return 0x7fffffff; }

  /// Preconditions: 0 <= expected <= max(), checked in every build (a constant-expression
  /// construction with a bad value does not compile).
  UNISYNC_HOST_DEVICE constexpr explicit basic_barrier(cuda::std::ptrdiff_t expected,
                                                       CompletionFunction completion = CompletionFunction())
      : phase_and_missing_(static_cast<cuda::std::uint64_t>(expected)),
        expected_(static_cast<cuda::std::uint32_t>(expected)),
        completion_(completion)
  {
    UNISYNC_EXPECTS(expected >= 0 && expected <= max(), "barrier(expected) needs 0 <= expected <= max()");
  }
  basic_barrier(basic_barrier const&) = delete;
  basic_barrier& operator=(basic_barrier const&) = delete;

  /// Counts `update` arrivals in the current phase. Preconditions (checked in debug
  /// builds): update > 0 and at most the arrivals still missing. Cost: one release
  /// fetch_sub at `Scope`; the last arriver also runs the completion and one store.
  [[nodiscard]] UNISYNC_HOST_DEVICE arrival_token arrive(cuda::std::ptrdiff_t update = 1);

  /// Blocks until the phase of `token` has completed. Cost: one relaxed load per poll and
  /// one acquire fence.
  UNISYNC_HOST_DEVICE void wait(arrival_token&& token) const;

  /// True once the phase of `token` has completed; never blocks.
  UNISYNC_HOST_DEVICE bool try_wait(arrival_token const& token) const;

  /// Waits for the phase of `token` at most `timeout`; returns whether it completed.
  /// The token stays valid, so a timed-out wait can be retried.
  template <class Rep, class Period>
  UNISYNC_HOST_DEVICE bool try_wait_for(arrival_token const& token,
                                        cuda::std::chrono::duration<Rep, Period> const& timeout) const
  {
    return try_wait_within(token, detail::to_nanoseconds(timeout));
  }
  template <class Rep, class Period>
  bool try_wait_for(arrival_token const& token, std::chrono::duration<Rep, Period> const& timeout) const
  {
    return try_wait_within(token, detail::to_nanoseconds(timeout));
  }

  /// arrive() then wait(). Progress: blocks until every participant has arrived. On the
  /// device, the threads of a warp that call it together arrive with one atomic (a
  /// coalesced group): each still counts as one arrival.
  UNISYNC_HOST_DEVICE void arrive_and_wait();

  /// Arrives in the current phase and removes the calling participant from later phases.
  UNISYNC_HOST_DEVICE void arrive_and_drop();

#if defined(__CUDACC__)
  /// Block-collective arrival: every thread of `group` (a cooperative-groups thread_block
  /// or thread_block_tile) calls it; the group counts its threads (`__syncthreads_count`
  /// or a ballot), its leader adds them with ONE atomic and waits, then the group
  /// synchronizes. Every thread still counts as one arrival toward `expected`.
  template <class Group, class = detail::enable_if_group_t<Group>>
  __device__ void arrive_and_wait(Group const& group);
#endif  // defined(__CUDACC__)

 private:
  friend struct detail::test_access;

  static constexpr cuda::std::uint64_t missing_mask = 0xffffffffu;
  static constexpr int phase_shift = 32;

  UNISYNC_HOST_DEVICE void complete_phase(cuda::std::uint32_t phase);
  UNISYNC_HOST_DEVICE cuda::std::uint32_t forecast_to_release(arrival_token const& token,
                                                               cuda::std::memory_order order) const;
  UNISYNC_HOST_DEVICE bool try_wait_within(arrival_token const& token, cuda::std::uint64_t timeout_ns) const;

  // Phase number (bits 63..32) and arrivals still missing in it (bits 31..0). Written by
  // every arrival (fetch_sub) and by the last arriver of a phase (store).
  alignas(detail::cache_line_size) cuda::std::uint64_t phase_and_missing_;
  // Participants of the next phase. Written only by the last arriver of a phase. Shares
  // its line with drops_pending_: both are touched at most once per phase and never polled.
  alignas(detail::cache_line_size) cuda::std::uint32_t expected_;
  // arrive_and_drop()s of the current phase, applied by its last arriver. Written by droppers.
  cuda::std::uint32_t drops_pending_ = 0;
  CompletionFunction completion_;
};

/// std::barrier at system scope, shared by CPU and GPU threads.
template <class CompletionFunction = empty_completion>
using barrier = basic_barrier<cuda::thread_scope_system, CompletionFunction>;

}  // namespace unisync

#include <unisync/detail/barrier.inl>
