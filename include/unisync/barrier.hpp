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
#include <cuda/std/utility>

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
 * One 64-bit word holds the open phase's number (bits 63..48, wrapping at 2^16), an arrival
 * count (bits 47..23) and the participants of the next phase to open (bits 22..0). Each
 * arrival adds its weight to the count with one fetch_add. A phase opens with a count of
 * zero; its first arrival, seeing the zero, arms it with a second addition of
 * `stop - participants` (the participants its own result shows), so that the phase's
 * additions reach `stop` exactly when its last arrival is in. With the default completion
 * `stop` is 2^25: the addition that reaches it carries out of the count into the phase
 * number, which completes the phase, releases the waiters and leaves the count at zero
 * for the next phase. With a completion function `stop` lies 2^23 below the carry: the
 * addition that reaches it runs the completion, then adds the rest, which carries. The
 * completing arrival does nothing more than acquire, unless arrivals beyond the phase
 * came in or every participant of the next phase dropped while the completion ran
 * (below), or, on the GPU, the phase takes few additions (at most
 * `tuning::barrier_arm_ahead_additions` of the completing one's weight: one block, a
 * few warps or blocks) or was completed by its arm (every arrival came before it):
 * then the completing thread arms the next phase as well, with a compare-and-swap from
 * the carried word whose result it does not wait for (it fails only where the next
 * phase's first arrival or drop found the zero and armed it). That write may come after
 * the waiters were released, as std allows: a barrier must outlive every call on it, so
 * free or reuse it only once every thread has returned from its calls, not when one wait
 * returns. No other state is shared.
 *
 * More arrivals than a phase still needs (more threads than `expected` using the barrier,
 * the 32 lanes of a warp on a barrier of 16) count in the next phases, in the order of
 * their additions, as std's arrivals do: an addition past `stop` carries its excess into
 * the next phase (with a completion function the excess waits below the carry while the
 * completion runs), and the thread whose addition left arrivals in a phase that nobody
 * armed arms it, which may complete it in turn. Each arrival's phase follows from the
 * count its addition found: within the room left in the open phase, or past it, a whole
 * number of phases of `participants` each (arrivals beyond the open phase must stay fewer
 * than 2^23 at any time: below the arm, and above the stop while a completion runs).
 * `arrive_and_drop()` takes one participant away with a compare-and-swap that never
 * waits: into an armed phase short of its stop it adds its arrival too (into a phase at
 * zero, the arm as well); into a phase whose arm is still to come, or above the stop
 * while the completion runs, it does not, since the arrivals placed there count against
 * the participants the word shows. Above the stop the drop's arrival is in the next
 * phase, which the carry then opens with one participant fewer to arm for: the drop's
 * place in it needs no count. A phase whose arm is still to come was counted by its
 * arm, read before the drop, with the dropper among its participants: the arm's result
 * shows it gone, and the arming thread adds the drop's arrival after the arm. A phase
 * whose every participant dropped while the completion of the phase before ran is
 * completed by the thread that ran it. The limit this leaves: until the arming thread
 * has added those arrivals the count shows the phase that many short, and an arrival
 * beyond the phase that comes in that moment is placed in it and released with it, a
 * phase early (or, where drops empty the phase that the arrivals beyond it spill into,
 * the arming thread's arm for no participant is refused, as an arrival at a barrier
 * without participants is); so arrivals beyond a phase (more threads than expected)
 * must not race an `arrive_and_drop()` of that phase (test/models/barrier.pml,
 * limit_over_drop_race). An
 * arrival at a barrier whose participants have all dropped (or of `expected` 0) is
 * refused in every build: the host throws `unisync::error`, the device traps (without
 * the message, see UNISYNC_EXPECTS_WITHOUT_CALL).
 *
 * Waiters poll the word, pausing in proportion to the arrivals still missing measured in
 * their own arrival's weight (a block of 128 threads waits in units of blocks, not
 * threads), and compare phase numbers as a wrapping counter: a waiter must look within
 * 2^15 phases of its own, which only a barrier used by more threads than it expects can
 * outrun. At system scope, host waiters of a barrier with many participants poll a hint
 * line that the completing thread stores after its carry, and read the word once it
 * changes (see open_phase_).
 *
 * The completion function runs exactly once per phase, in the thread whose addition
 * completed the phase, before anyone is released, on whichever side that thread is: when
 * CPU and GPU threads participate it must be callable on both (`__host__ __device__`).
 *
 * Memory ordering: everything any participant did before arriving in a phase is visible
 * to the completion function and to every participant after its wait for that phase
 * returns. Arrivals and drops are acquire-release read-modify-writes at `Scope`; with the
 * arm, the arm ahead (relaxed: it never completes a phase), the drops' arrivals added
 * after an arm and the completing carry, every one a read-modify-write, they form one
 * release sequence, so the addition that completes the phase (an arrival's, or an
 * arming thread's, which acquires too) acquires every earlier arrival and the previous
 * completion. Waiters poll with acquire loads; the one that finds the phase number moved
 * synchronizes with every arrival of the phase and, with a completion function, with the
 * release that follows it. Group arrivals rely on the
 * group's barrier (bar.sync / __syncwarp), which orders the group's writes before the
 * leader's release and the leader's acquire before the group's later reads: PTX releases
 * and acquires are cumulative.
 *
 * Why the completing arrival must do nothing more: the thread that completes a phase is
 * the likeliest to arrive last in the next one, so whatever it does after completing lies
 * on every phase's critical path. The previous design loaded the word, read a drop
 * counter and stored the next phase there: three more L2 round trips per phase (H100).
 * Even arming the next phase from it, with an addition it does not wait for, made 33-528
 * blocks at device scope 3-11% slower (H200 machine; one and 8 blocks, where the first
 * arrival's arm is on the critical path, 23% and 4% faster): the arm ahead is kept for
 * phases of few additions and phases that an arm completed, which with spread-out
 * arrivals practically never happens.
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
    // Flags in one word, not a bool each, so that a token travels in registers: on x86
    // separate bools are assembled on the stack and read back as one wider word, which
    // stalls store forwarding on every arrival.
    enum flag : cuda::std::uint32_t {
      completed_phase = 1,  // this arrival's additions completed and acquired the phase already
      polls_hint = 2,       // a host waiter among many: polls open_phase_ first
    };
    UNISYNC_HOST_DEVICE arrival_token(cuda::std::uint32_t phase, cuda::std::uint32_t weight,
                                      cuda::std::uint32_t flags) noexcept
        : phase_(phase), weight_(weight), flags_(flags)
    {
    }
    UNISYNC_HOST_DEVICE bool has(flag which) const noexcept { return (flags_ & which) != 0; }
    cuda::std::uint32_t phase_ = 0;   // the phase's number (16 bits, wrapping)
    cuda::std::uint32_t weight_ = 1;  // the arrival's update: the unit a waiter counts in
    cuda::std::uint32_t flags_ = 0;
  };

  /// The largest expected count: 2^23 - 1 (8 388 607: thirty times the threads an H100
  /// keeps resident). The word's other bits number the phases.
  UNISYNC_HOST_DEVICE static constexpr cuda::std::ptrdiff_t max() noexcept { return participants_mask; }

  /// Preconditions: 0 <= expected <= max(), checked in every build (a constant-expression
  /// construction with a bad value does not compile).
  UNISYNC_HOST_DEVICE constexpr explicit basic_barrier(cuda::std::ptrdiff_t expected,
                                                       CompletionFunction completion = CompletionFunction())
      : word_(static_cast<cuda::std::uint64_t>(expected)),  // count 0: the first arrival arms
        completion_(cuda::std::move(completion))
  {
    UNISYNC_EXPECTS(expected >= 0 && expected <= max(), "barrier(expected) needs 0 <= expected <= max()");
  }
  /// At block scope only, with a default-constructible CompletionFunction: no
  /// participants, as basic_barrier(0), so that a `__shared__` barrier can be declared for
  /// init() to construct (libcu++'s cuda::barrier has a default constructor for the same
  /// reason; std's barrier has none).
  template <cuda::thread_scope S = Scope, class Completion = CompletionFunction,
            cuda::std::enable_if_t<S == cuda::thread_scope_block && cuda::std::is_default_constructible_v<Completion>,
                                   int> = 0>
  UNISYNC_HOST_DEVICE constexpr basic_barrier() : basic_barrier(0)
  {
  }
  basic_barrier(basic_barrier const&) = delete;
  basic_barrier& operator=(basic_barrier const&) = delete;

  /// @{
  /// Constructs the barrier anew at `object`, as basic_barrier(expected, completion), for
  /// a `__shared__` variable, as libcu++'s init(cuda::barrier*, ...) does (README, "Objects
  /// in shared memory"). Preconditions: as the constructor's. (Two overloads, not a
  /// default argument: g++ 12 ignored a default argument of this friend.)
  friend UNISYNC_HOST_DEVICE void init(basic_barrier* object, cuda::std::ptrdiff_t expected,
                                       CompletionFunction completion)
  {
    detail::construct_in_place(object, expected, cuda::std::move(completion));
  }
  friend UNISYNC_HOST_DEVICE void init(basic_barrier* object, cuda::std::ptrdiff_t expected)
  {
    detail::construct_in_place(object, expected);
  }
  /// @}

  /// Counts `update` arrivals in the current phase. Preconditions (checked in debug
  /// builds): update > 0 and at most the arrivals still missing in the phase it lands in
  /// (more, and the excess counts in the next phases; the token is that of the last).
  /// Never waits. Cost: one acquire-release fetch_add at `Scope`; the phase's first arrival
  /// adds the arm with a second one, unless the thread that completed the previous phase
  /// armed it ahead (and the arrival that completes the phase runs the completion and adds
  /// the carry, with a completion function; on the GPU the thread that completes a phase
  /// of few additions arms the next one with a compare-and-swap it does not wait for; an
  /// arm that finds drops that came in before it is followed by the addition of their
  /// arrivals).
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
  /// As try_wait_for, until `when` (libcu++'s cuda::barrier has both forms).
  template <class Clock, class Duration>
  UNISYNC_HOST_DEVICE bool try_wait_until(arrival_token const& token,
                                          cuda::std::chrono::time_point<Clock, Duration> const& when) const
  {
    return detail::try_until(when, [&](cuda::std::uint64_t left_ns) { return try_wait_within(token, left_ns); });
  }
  template <class Clock, class Duration>
  bool try_wait_until(arrival_token const& token, std::chrono::time_point<Clock, Duration> const& when) const
  {
    return detail::try_until(when, [&](cuda::std::uint64_t left_ns) { return try_wait_within(token, left_ns); });
  }
  /// @}

  /// arrive() then wait(). Progress: blocks until every participant of its phase has
  /// arrived. On the device, the threads of a warp that call it together on this barrier
  /// arrive with one atomic: each still counts as one arrival, and each is released when
  /// its own phase completes.
  UNISYNC_HOST_DEVICE void arrive_and_wait();

  /// Arrives in the current phase and removes the calling participant from later phases.
  /// Never waits. Cost: a load and a compare-and-swap at `Scope`, more under contention
  /// (and, where it completes the phase, what completing costs; see the class comment).
  UNISYNC_HOST_DEVICE void arrive_and_drop();

#if defined(__CUDACC__)
  /// Block-collective arrival: every thread of `group` (a cooperative-groups thread_block
  /// or thread_block_tile) calls it; the group counts its threads (`__syncthreads_count`
  /// or a ballot), its leader adds them with ONE atomic and waits, then the group
  /// synchronizes. Every thread still counts as one arrival toward `expected`.
  /// Preconditions (checked in debug builds, as arrive(update)): the group's threads are
  /// at most the arrivals still missing in the phase; the group leaves together, so a
  /// larger one would wait for the phase of its last arrival.
  template <class Group, class = detail::enable_if_group_t<Group>>
  __device__ void arrive_and_wait(Group const& group);
#endif  // defined(__CUDACC__)

 private:
  friend struct detail::test_access;

  // The word's layout (see the class comment).
  static constexpr int count_shift = 23;
  static constexpr int phase_shift = 48;
  static constexpr cuda::std::uint64_t participants_mask = (cuda::std::uint64_t{1} << count_shift) - 1;
  static constexpr cuda::std::uint32_t count_mask = (1u << 25) - 1;
  static constexpr cuda::std::uint32_t phase_mask = 0xffffu;
  // The count carries into the phase number at carry_count; an armed count is at least
  // armed_min (participants < 2^23), below that the count holds the arrivals of a phase
  // whose first arrival has not armed it yet.
  static constexpr cuda::std::uint32_t carry_count = 1u << 25;
  static constexpr cuda::std::uint32_t armed_min = 1u << 24;
  // With the default completion the addition that completes a phase carries; with a
  // completion function the phase's arrivals reach stop_count, 2^23 below the carry, and
  // arrivals of the next phase may come in above it while the completion runs.
  static constexpr bool completes_in_arrival = cuda::std::is_same_v<CompletionFunction, empty_completion>;
  static constexpr cuda::std::uint32_t completion_headroom = completes_in_arrival ? 0u : 1u << 23;
  static constexpr cuda::std::uint32_t stop_count = carry_count - completion_headroom;

  UNISYNC_HOST_DEVICE static constexpr cuda::std::uint32_t count_of(cuda::std::uint64_t word) noexcept
  {
    return static_cast<cuda::std::uint32_t>(word >> count_shift) & count_mask;
  }
  UNISYNC_HOST_DEVICE static constexpr cuda::std::uint32_t participants_of(cuda::std::uint64_t word) noexcept
  {
    return static_cast<cuda::std::uint32_t>(word & participants_mask);
  }
  UNISYNC_HOST_DEVICE static constexpr cuda::std::uint32_t phase_of(cuda::std::uint64_t word) noexcept
  {
    return static_cast<cuda::std::uint32_t>(word >> phase_shift);
  }
  UNISYNC_HOST_DEVICE static constexpr bool is_armed(cuda::std::uint32_t count) noexcept { return count >= armed_min; }
  /// True when phase `phase` has completed in a word whose open phase is `open`: phase
  /// numbers wrap, so the difference decides (the open phase is at most 2^15 ahead).
  UNISYNC_HOST_DEVICE static constexpr bool has_completed(cuda::std::uint32_t open, cuda::std::uint32_t phase) noexcept
  {
    return ((open - phase - 1u) & phase_mask) < 0x8000u;
  }
  /// An addition from `before` of `added` count units reached the phase's stop.
  UNISYNC_HOST_DEVICE static constexpr bool completes(cuda::std::uint64_t before, cuda::std::uint32_t added) noexcept
  {
    return count_of(before) < stop_count && count_of(before) + added >= stop_count;
  }

  /// Where one addition of `weight` arrivals put each of them, rank 0 counted first: the
  /// ranks below `room` in `phase`, the others in the phases after it, `participants`
  /// each. What a warp's lanes share to learn their own phases (detail/groups.hpp).
  struct arrivals_placed {
    cuda::std::uint32_t phase = 0;
    cuda::std::uint32_t room = 0;
    cuda::std::uint32_t participants = 1;
    cuda::std::uint32_t open_phase = 0;  // the phase open after the adding thread's own additions
    cuda::std::uint32_t weight = 0;
    cuda::std::uint32_t polls_hint = 0;
    UNISYNC_HOST_DEVICE bool span_phases() const noexcept { return weight > room; }
    UNISYNC_HOST_DEVICE cuda::std::uint32_t phase_of(cuda::std::uint32_t rank) const noexcept
    {
      return rank < room ? phase : (phase + 1u + (rank - room) / participants) & phase_mask;
    }
    UNISYNC_HOST_DEVICE arrival_token token_of(cuda::std::uint32_t rank) const noexcept
    {
      cuda::std::uint32_t const its_phase = phase_of(rank);
      return arrival_token(its_phase, weight,
                           (has_completed(open_phase, its_phase) ? arrival_token::completed_phase : 0u) |
                               (polls_hint != 0 ? arrival_token::polls_hint : 0u));
    }
  };

  UNISYNC_HOST_DEVICE arrivals_placed arrive_placed(cuda::std::uint32_t weight);
  UNISYNC_HOST_DEVICE arrivals_placed finish_arrival(cuda::std::uint64_t before, cuda::std::uint32_t weight);
  UNISYNC_HOST_DEVICE static arrivals_placed place(cuda::std::uint64_t before, cuda::std::uint32_t open_phase,
                                                   cuda::std::uint32_t weight);
  UNISYNC_HOST_DEVICE static void place_beyond(arrivals_placed& placed, cuda::std::uint32_t count);
  UNISYNC_HOST_DEVICE static cuda::std::uint32_t arm_for(cuda::std::uint32_t participants);
  UNISYNC_HOST_DEVICE cuda::std::uint32_t arm_open_phase(cuda::std::uint32_t participants);
  UNISYNC_HOST_DEVICE cuda::std::uint32_t complete_phase(cuda::std::uint64_t before, cuda::std::uint32_t added);
  UNISYNC_HOST_DEVICE cuda::std::uint32_t settle_rest(cuda::std::uint64_t before, cuda::std::uint32_t added,
                                                      cuda::std::uint32_t owed, bool was_carried,
                                                      cuda::std::uint64_t carried);
  UNISYNC_HOST_DEVICE static bool arms_ahead(cuda::std::uint64_t after, cuda::std::uint32_t added);
  UNISYNC_HOST_DEVICE void arm_ahead(cuda::std::uint64_t after);
  UNISYNC_HOST_DEVICE cuda::std::uint64_t carry_out(cuda::std::uint64_t before, cuda::std::uint32_t added);
  UNISYNC_HOST_DEVICE cuda::std::uint32_t forecast_to_release(arrival_token const& token, cuda::std::memory_order order,
                                                              bool trust_hint) const;
  UNISYNC_HOST_DEVICE bool try_wait_within(arrival_token const& token, cuda::std::uint64_t timeout_ns) const;

  // Phase | arrival count | participants. Written by every arrival, arm and carry
  // (fetch_add), and by drops (compare-and-swap).
  alignas(detail::cache_line_size) cuda::std::uint64_t word_;
  // Run only by the threads that complete phases, one after another, on a line of its own.
  alignas(detail::cache_line_size) CompletionFunction completion_;
  // System scope: the number of the open phase, stored (relaxed) by the thread that
  // completes a phase, after its carry. Host waiters of a barrier with many participants
  // (tuning::host_hint_min_participants) poll this line and look at the word only once it
  // changes (and at every 64th poll, detail::hint_polls): every poll of the word takes a
  // shared copy of its line, which the next arrival's read-modify-write must take back
  // from every waiter. It is a hint; the waiters decide and synchronize on the word.
  alignas(detail::cache_line_size) cuda::std::uint32_t open_phase_ = 0;
};

/// std::barrier at system scope, shared by CPU and GPU threads.
template <class CompletionFunction = empty_completion>
using barrier = basic_barrier<cuda::thread_scope_system, CompletionFunction>;

}  // namespace unisync

#include <unisync/detail/barrier.inl>
