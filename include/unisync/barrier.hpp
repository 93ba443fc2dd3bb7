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
  /// Does nothing.
  UNISYNC_HOST_DEVICE void operator()() const noexcept {}
};

/**
 * @brief std::barrier that CPU threads and GPU threads share: a central phase counter with
 * hierarchical (block-count) arrival on the GPU.
 *
 * One 64-bit word holds the phase's parity (bit 63), an arrival count (bits 62..31) and
 * the participants of the current phase (bits 30..0). Each arrival adds its weight to
 * the count with one fetch_add; `arrive_and_drop()` also takes one from the participants
 * in the same addition. A phase starts with a count of zero; its first arrival, seeing
 * the zero, arms it with a second addition of 2^32 minus the participants its own result
 * shows, so that the phase's additions sum to exactly 2^32 and the last of them carries
 * out of the count into the parity: that atomic completes the phase, releases the
 * waiters, and leaves the count at zero for the next phase. No thread re-arms after a
 * phase, so the completing arrival does nothing more than acquire. With a completion
 * function the arm is one lower: the last addition stops one short of the carry, and
 * its thread runs the completion and then adds the carry. No other state is shared.
 * Waiters poll the word, pausing in proportion to the arrivals still missing measured in
 * their own arrival's weight (a block of 128 threads waits in units of blocks, not
 * threads). At system scope, host waiters of a barrier with many participants poll a hint
 * line that the completing thread stores after its carry, and read the word once it
 * changes (see open_parity_).
 *
 * The completion function runs exactly once per phase, in the last arriving thread,
 * before anyone is released, on whichever side that thread is: when CPU and GPU threads
 * participate it must be callable on both (`__host__ __device__`).
 *
 * Memory ordering: everything any participant did before arriving in a phase is visible
 * to the completion function and to every participant after its wait for that phase
 * returns. Arrivals are acquire-release read-modify-writes at `Scope`; with the arm and
 * the completing carry they form one release sequence, so the addition that completes
 * the phase (an arrival's, or the arm's, which acquires too) acquires every earlier
 * arrival and the previous completion. Waiters poll with acquire loads; the one that
 * finds the parity moved synchronizes with every arrival of the phase and, with a
 * completion function, with the release that follows it. Group arrivals rely on the
 * group's barrier (bar.sync / __syncwarp), which orders the group's writes before the leader's release and
 * the leader's acquire before the group's later reads: PTX releases and acquires are
 * cumulative.
 *
 * Why the completing arrival must do nothing more (benchmark/results/h100): the thread
 * that completes a phase is the likeliest to arrive last in the next one, so whatever it
 * does after completing lies on every phase's critical path. The previous design loaded
 * the word, read a drop counter and stored the next phase there: three more L2 round
 * trips per phase.
 *
 * @tparam Scope              every participant must be inside this scope.
 * @tparam CompletionFunction nothrow-invocable with no arguments, run once per phase.
 * @tparam Backoff            waiting policy; `proportional_backoff` (default).
 */
template <cuda::thread_scope Scope, class CompletionFunction = empty_completion, class Backoff = proportional_backoff>
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
    UNISYNC_HOST_DEVICE arrival_token(cuda::std::uint32_t parity, cuda::std::uint32_t weight, bool completed_phase,
                                      bool polls_hint) noexcept
        : parity_(parity), weight_(weight), completed_phase_(completed_phase), polls_hint_(polls_hint)
    {
    }
    cuda::std::uint32_t parity_ = 0;  // the phase's parity: a waiter is at most one phase behind
    cuda::std::uint32_t weight_ = 1;  // the arrival's update: the unit a waiter counts in
    bool completed_phase_ = false;    // this arrival completed and acquired the phase already
    bool polls_hint_ = false;         // a host waiter among many: polls open_parity_ first
  };

  /// The largest expected count: 2^31 - 1.
  UNISYNC_HOST_DEVICE static constexpr cuda::std::ptrdiff_t max() noexcept { return 0x7fffffff; }

  /// Preconditions: 0 <= expected <= max(), checked in every build (a constant-expression
  /// construction with a bad value does not compile).
  UNISYNC_HOST_DEVICE constexpr explicit basic_barrier(cuda::std::ptrdiff_t expected,
                                                       CompletionFunction completion = CompletionFunction())
      : word_(static_cast<cuda::std::uint64_t>(expected)),  // count 0: the first arrival arms
        completion_(completion)
  {
    UNISYNC_EXPECTS(expected >= 0 && expected <= max(), "barrier(expected) needs 0 <= expected <= max()");
  }
  basic_barrier(basic_barrier const&) = delete;
  basic_barrier& operator=(basic_barrier const&) = delete;

  /// Counts `update` arrivals in the current phase. Preconditions (checked in debug
  /// builds): update > 0 and at most the arrivals still missing. Cost: one acquire-release
  /// fetch_add at `Scope`; the phase's first arrival adds the arm with a second one (and
  /// the arrival that completes the phase runs the completion and adds the carry, with a
  /// completion function).
  [[nodiscard]] UNISYNC_HOST_DEVICE arrival_token arrive(cuda::std::ptrdiff_t update = 1);

  /// Blocks until the phase of `token` has completed. Cost: one acquire load per poll;
  /// nothing when the token's arrival completed the phase.
  UNISYNC_HOST_DEVICE void wait(arrival_token&& token) const;

  /// True once the phase of `token` has completed; never blocks.
  UNISYNC_HOST_DEVICE bool try_wait(arrival_token const& token) const;

  /// @{
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
  /// @}

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

  // The word's layout (see the class comment).
  static constexpr int count_shift = 31;
  static constexpr int parity_shift = 63;
  static constexpr cuda::std::uint64_t participants_mask = (cuda::std::uint64_t{1} << count_shift) - 1;
  // With the default completion the last addition of a phase (arm or arrival) carries into
  // the parity; with a completion function arm + arrivals stop one short of the carry,
  // which the completing thread adds after running the completion.
  static constexpr bool completes_in_arrival = cuda::std::is_same_v<CompletionFunction, empty_completion>;
  static constexpr cuda::std::uint32_t completion_step = completes_in_arrival ? 0u : 1u;

  UNISYNC_HOST_DEVICE static constexpr cuda::std::uint32_t count_of(cuda::std::uint64_t word) noexcept
  {
    return static_cast<cuda::std::uint32_t>(word >> count_shift);
  }
  UNISYNC_HOST_DEVICE static constexpr cuda::std::uint32_t participants_of(cuda::std::uint64_t word) noexcept
  {
    return static_cast<cuda::std::uint32_t>(word & participants_mask);
  }
  /// An armed count is at least 2^31 (participants <= max()); below that the count holds
  /// the arrivals of a phase whose first arrival has not armed it yet.
  UNISYNC_HOST_DEVICE static constexpr bool is_armed(cuda::std::uint32_t count) noexcept
  {
    return count >= 0x80000000u;
  }
  UNISYNC_HOST_DEVICE static constexpr cuda::std::uint32_t missing_of(cuda::std::uint32_t count) noexcept
  {
    return 0u - completion_step - count;
  }

  UNISYNC_HOST_DEVICE arrival_token arrive_counting(cuda::std::uint32_t weight, bool drops);
  UNISYNC_HOST_DEVICE void complete_phase(cuda::std::uint32_t parity);
  UNISYNC_HOST_DEVICE cuda::std::uint32_t forecast_to_release(arrival_token const& token, cuda::std::memory_order order,
                                                              bool trust_hint) const;
  UNISYNC_HOST_DEVICE bool try_wait_within(arrival_token const& token, cuda::std::uint64_t timeout_ns) const;

  // Parity | arrival count | participants. Written by every arrival, arm and carry (fetch_add).
  alignas(detail::cache_line_size) cuda::std::uint64_t word_;
  // Run only by the threads that complete phases, one after another, on a line of its own.
  alignas(detail::cache_line_size) CompletionFunction completion_;
  // System scope: the parity of the open phase, stored (relaxed) by the thread that
  // completes a phase, after its carry. Host waiters of a barrier with many participants
  // (tuning::host_hint_min_participants) poll this line and look at the word only once it
  // changes (and at every 64th poll, detail::hint_polls): every poll of the word takes a
  // shared copy of its line, which the next arrival's read-modify-write must take back
  // from every waiter. It is a hint; the waiters decide and synchronize on the word.
  alignas(detail::cache_line_size) cuda::std::uint32_t open_parity_ = 0;
};

/// std::barrier at system scope, shared by CPU and GPU threads.
template <class CompletionFunction = empty_completion>
using barrier = basic_barrier<cuda::thread_scope_system, CompletionFunction>;

}  // namespace unisync

#include <unisync/detail/barrier.inl>
