#pragma once
// Definitions of basic_barrier; the contract is in unisync/barrier.hpp.

#include <unisync/detail/wait.hpp>

namespace unisync {

template <cuda::thread_scope Scope, class CompletionFunction, class Backoff>
UNISYNC_FORCE_INLINE UNISYNC_HOST_DEVICE typename basic_barrier<Scope, CompletionFunction, Backoff>::arrival_token
basic_barrier<Scope, CompletionFunction, Backoff>::arrive(cuda::std::ptrdiff_t update)
{
  UNISYNC_ASSERT(update > 0 && update <= max(), "barrier::arrive(update) needs 0 < update <= max()");
  arrivals_placed const placed = arrive_placed(static_cast<cuda::std::uint32_t>(update));
  UNISYNC_ASSERT(!placed.span_phases(), "barrier::arrive(update) with update above the arrivals missing in this phase");
  return placed.token_of(placed.weight - 1);
}

template <cuda::thread_scope Scope, class CompletionFunction, class Backoff>
UNISYNC_FORCE_INLINE UNISYNC_HOST_DEVICE typename basic_barrier<Scope, CompletionFunction, Backoff>::arrivals_placed
basic_barrier<Scope, CompletionFunction, Backoff>::arrive_placed(cuda::std::uint32_t weight)
{
  // Release publishes the arrival; acquire lets the addition that completes the phase
  // acquire every earlier one (and the previous completion) without a fence after it,
  // which on the GPU costs far more than an acquiring atomic.
  cuda::std::uint64_t const added = static_cast<cuda::std::uint64_t>(weight) << count_shift;
  return finish_arrival(detail::atomic_at<Scope>(word_).fetch_add(added, detail::memory_order_acq_rel), weight);
}

template <cuda::thread_scope Scope, class CompletionFunction, class Backoff>
UNISYNC_FORCE_INLINE UNISYNC_HOST_DEVICE typename basic_barrier<Scope, CompletionFunction, Backoff>::arrivals_placed
basic_barrier<Scope, CompletionFunction, Backoff>::finish_arrival(cuda::std::uint64_t before, cuda::std::uint32_t weight)
{
  cuda::std::uint32_t open_phase = phase_of(before);
  // The phase's first arrival arms it (for the participants its own result shows: every
  // drop of the previous phase came before); the arrival that reaches the stop completes it.
  if (count_of(before) == 0) {
    open_phase = arm_open_phase(participants_of(before));
  } else if (completes(before, weight)) {
    open_phase = complete_phase(before, weight);
  }
  return place(before, open_phase, weight);
}

template <cuda::thread_scope Scope, class CompletionFunction, class Backoff>
UNISYNC_FORCE_INLINE UNISYNC_HOST_DEVICE typename basic_barrier<Scope, CompletionFunction, Backoff>::arrivals_placed
basic_barrier<Scope, CompletionFunction, Backoff>::place(cuda::std::uint64_t before, cuda::std::uint32_t open_phase,
                                                         cuda::std::uint32_t weight)
{
  arrivals_placed placed;
  placed.weight = weight;
  placed.open_phase = open_phase;
  cuda::std::uint32_t const count = count_of(before);
  cuda::std::uint32_t const participants = participants_of(before);
  if constexpr (Scope == cuda::thread_scope_system) {
    NV_IF_TARGET(NV_IS_HOST, (placed.polls_hint = participants >= Backoff::tuning::host_hint_min_participants;))
  }
  placed.phase = phase_of(before);
  placed.participants = participants;  // an armed phase's drops are all in before its last arrival
  if (is_armed(count) && count < stop_count) {
    placed.room = stop_count - count;  // the open phase takes this many more
  } else if (count < participants) {
    placed.room = participants - count;  // counted before the open phase's arm
  } else {
    place_beyond(placed, count);
  }
  return placed;
}

template <cuda::thread_scope Scope, class CompletionFunction, class Backoff>
UNISYNC_FORCE_INLINE UNISYNC_HOST_DEVICE void basic_barrier<Scope, CompletionFunction, Backoff>::place_beyond(
    arrivals_placed& placed, cuda::std::uint32_t count)
{
  // Counted beyond the open phase: before its arm with more arrivals in already than it
  // takes, or, with a completion function, while it runs (above the stop: arrivals of the
  // next phase). Drops never add there, so the participants are those of the phases
  // counted into, each of them whole.
  bool const above_stop = count >= stop_count;
  cuda::std::uint32_t const position = above_stop ? count - stop_count : count;
  UNISYNC_EXPECTS_WITHOUT_CALL(placed.participants != 0, "barrier: an arrival at a barrier that expects no participant");
  placed.phase = (placed.phase + (above_stop ? 1u : 0u) + position / placed.participants) & phase_mask;
  placed.room = placed.participants - position % placed.participants;
}

template <cuda::thread_scope Scope, class CompletionFunction, class Backoff>
UNISYNC_FORCE_INLINE UNISYNC_HOST_DEVICE cuda::std::uint32_t basic_barrier<Scope, CompletionFunction, Backoff>::arm_for(
    cuda::std::uint32_t participants)
{
  // Without participants the arm would complete a phase that its own arrival then
  // overflows, over and over.
  UNISYNC_EXPECTS_WITHOUT_CALL(participants != 0, "barrier: an arrival at a barrier that expects no participant");
  return stop_count - participants;
}

template <cuda::thread_scope Scope, class CompletionFunction, class Backoff>
UNISYNC_FORCE_INLINE UNISYNC_HOST_DEVICE cuda::std::uint32_t basic_barrier<Scope, CompletionFunction, Backoff>::arm_open_phase(
    cuda::std::uint32_t participants)
{
  // This thread's addition found the open phase's count at zero: it arms the phase for
  // `participants`, read in that addition's result. A drop that came in since left its
  // arrival out of the count (see arrive_and_drop); the arm's result shows it, and the
  // rare path adds those arrivals. Acquire: if every arrival came before it, the arm
  // completes the phase.
  cuda::std::uint32_t const arm = arm_for(participants);
  cuda::std::uint64_t const before_arm =
      detail::atomic_at<Scope>(word_).fetch_add(static_cast<cuda::std::uint64_t>(arm) << count_shift,
                                                detail::memory_order_acquire);
  cuda::std::uint32_t const dropped = participants - participants_of(before_arm);
  if (dropped != 0) return settle_rest(before_arm, arm, dropped, false, 0);
  if (completes(before_arm, arm)) return complete_phase(before_arm, arm);
  return phase_of(before_arm);
}

template <cuda::thread_scope Scope, class CompletionFunction, class Backoff>
UNISYNC_FORCE_INLINE UNISYNC_HOST_DEVICE cuda::std::uint32_t basic_barrier<Scope, CompletionFunction, Backoff>::complete_phase(
    cuda::std::uint64_t before, cuda::std::uint32_t added)
{
  // Straight-line on purpose: with few additions a phase the arm ahead races the next
  // phase's first arrival, and every instruction before it lets that arrival arm the phase
  // on its critical path (a loop here, with the same atomics, made one block per thread
  // 1.18x slower, H100).
  cuda::std::uint64_t const after = carry_out(before, added);
  // Arrivals beyond the completed phase opened the next one, which nobody saw at zero.
  if (count_of(after) != 0) return settle_rest(before, added, 0, true, after);
  if constexpr (!completes_in_arrival) {
    if (participants_of(after) == 0 && participants_of(before) != 0) return settle_rest(before, added, 0, true, after);
  }
  if (arms_ahead(after, added)) arm_ahead(after);
  return phase_of(after);
}

template <cuda::thread_scope Scope, class CompletionFunction, class Backoff>
UNISYNC_NOINLINE UNISYNC_HOST_DEVICE cuda::std::uint32_t basic_barrier<Scope, CompletionFunction, Backoff>::settle_rest(
    cuda::std::uint64_t before, cuda::std::uint32_t added, cuda::std::uint32_t owed, bool was_carried,
    cuda::std::uint64_t carried)
{
  // The rare rest of an arrival: this thread's addition of `added` (from `before`) was an
  // arm that found drops (`owed`: their arrivals, which this thread adds after it), or it
  // reached the stop and was carried (`carried`, when `was_carried`: the word after the
  // carry) and left arrivals in the next phase (more threads than expected), which this
  // thread then arms, or left a phase that every participant dropped out of while the
  // completion ran. Each addition may in turn complete a phase, open one with arrivals in
  // it, or find drops. Returns the phase open after this thread's additions.
  auto word = detail::atomic_at<Scope>(word_);
  for (;;) {
    bool arms = count_of(before) == 0;
    cuda::std::uint64_t after = before + (static_cast<cuda::std::uint64_t>(added) << count_shift);
    if (!arms && completes(before, added)) {
      after = was_carried ? carried : carry_out(before, added);
      arms = count_of(after) != 0;
      if (!arms && owed == 0) {
        if (participants_of(after) == 0 && participants_of(before) != 0) {
          // Every participant of the phase just opened dropped while the completion ran
          // (each leaving its arrival out of the count): that phase has completed as
          // well, and no arrival can come into it. Acquire: the carry read the drops but
          // only releases.
          added = stop_count;
          before = word.fetch_add(static_cast<cuda::std::uint64_t>(added) << count_shift, detail::memory_order_acquire);
          return phase_of(carry_out(before, added));
        }
        if (arms_ahead(after, added)) arm_ahead(after);
        return phase_of(after);
      }
    }
    was_carried = false;
    if (arms) {
      cuda::std::uint32_t const participants = participants_of(after);
      added = arm_for(participants);
      before = word.fetch_add(static_cast<cuda::std::uint64_t>(added) << count_shift, detail::memory_order_acquire);
      owed += participants - participants_of(before);
      continue;
    }
    if (owed == 0) return phase_of(after);
    added = owed;
    owed = 0;
    before = word.fetch_add(static_cast<cuda::std::uint64_t>(added) << count_shift, detail::memory_order_acquire);
    if (count_of(before) != 0 && !completes(before, added)) return phase_of(before);
  }
}

template <cuda::thread_scope Scope, class CompletionFunction, class Backoff>
UNISYNC_FORCE_INLINE UNISYNC_HOST_DEVICE bool basic_barrier<Scope, CompletionFunction, Backoff>::arms_ahead(
    cuda::std::uint64_t after, cuda::std::uint32_t added)
{
  // Few additions a phase (or an arm that completed it: all came before it) come together,
  // and the next phase's first arrival would arm it on that phase's critical path. An arm
  // is above 2^24: with a nonzero limit it always arms ahead.
  cuda::std::uint64_t limit = Backoff::tuning::host_barrier_arm_ahead_additions;
  NV_IF_TARGET(NV_IS_DEVICE, (limit = Backoff::tuning::barrier_arm_ahead_additions;))
  return participants_of(after) <= static_cast<cuda::std::uint64_t>(added) * limit;
}

template <cuda::thread_scope Scope, class CompletionFunction, class Backoff>
UNISYNC_FORCE_INLINE UNISYNC_HOST_DEVICE void basic_barrier<Scope, CompletionFunction, Backoff>::arm_ahead(
    cuda::std::uint64_t after)
{
  // Arms the phase the carry opened (`after`: count zero) for its first arrival, with a
  // compare-and-swap whose result nobody waits for: it fails only where an arrival or a
  // drop of that phase found the zero first, and that one armed it. Relaxed: it
  // publishes nothing, and as a read-modify-write it continues the word's release
  // sequence. Only where arms_ahead() says so: with many additions a phase, an addition
  // at the phase's turn made 33-528 blocks 3-11% slower.
  // Every participant left: the next arrival's own arm refuses it.
  if (participants_of(after) == 0) return;
  cuda::std::uint64_t const arm = arm_for(participants_of(after));
  cuda::std::uint64_t expected = after;
  cuda::std::uint64_t const armed = after + (arm << count_shift);
  static_cast<void>(detail::atomic_at<Scope>(word_).compare_exchange_strong(
      expected, armed, detail::memory_order_relaxed, detail::memory_order_relaxed));
}

template <cuda::thread_scope Scope, class CompletionFunction, class Backoff>
UNISYNC_FORCE_INLINE UNISYNC_HOST_DEVICE cuda::std::uint64_t basic_barrier<Scope, CompletionFunction, Backoff>::carry_out(
    cuda::std::uint64_t before, cuda::std::uint32_t added)
{
  // This thread's addition of `added` (from `before`) reached the stop and acquired every
  // arrival of the phase and the previous phase's completion: all releases in the word's
  // release sequence that it read. With the default completion that addition carried.
  cuda::std::uint64_t after = before + (static_cast<cuda::std::uint64_t>(added) << count_shift);
  if constexpr (!completes_in_arrival) {
    completion_();
    // The addition that carries releases the waiters, and with them what the completion
    // wrote; arrivals of the next phase that came in above the stop stay in the count.
    cuda::std::uint64_t const carry = static_cast<cuda::std::uint64_t>(completion_headroom) << count_shift;
    after = detail::atomic_at<Scope>(word_).fetch_add(carry, detail::memory_order_release) + carry;
  }
  // After the carry, so that a waiter that sees the hint finds the word's new phase (or
  // polls the word until it does). Relaxed: on the GPU a release store would put a
  // system-scope fence in front of this thread's next arrival.
  if constexpr (Scope == cuda::thread_scope_system) {
    detail::atomic_at<Scope>(open_phase_).store(phase_of(after), detail::memory_order_relaxed);
  }
  return after;
}

template <cuda::thread_scope Scope, class CompletionFunction, class Backoff>
UNISYNC_HOST_DEVICE cuda::std::uint32_t basic_barrier<Scope, CompletionFunction, Backoff>::forecast_to_release(
    arrival_token const& token, cuda::std::memory_order order, bool trust_hint) const
{
  // A host waiter among many polls the hint (see open_phase_) until it shows another
  // phase, and only then the word, whose acquire load decides and synchronizes. On the
  // host a forecast spins below some 500 missing arrivals anyway.
  if (trust_hint && token.has(arrival_token::polls_hint) &&
      detail::atomic_at<Scope>(const_cast<cuda::std::uint32_t&>(open_phase_)).load(detail::memory_order_relaxed) ==
          token.phase_) {
    return 1;
  }
  // The word is only read here; atomic_ref needs a non-const reference.
  auto word = detail::atomic_at<Scope>(const_cast<cuda::std::uint64_t&>(word_));
  cuda::std::uint64_t const now = word.load(order);
  if (has_completed(phase_of(now), token.phase_)) return 0;
  cuda::std::uint32_t const count = count_of(now);
  // Not armed yet, or running the completion: poll again soon.
  if (!is_armed(count) || count >= stop_count) return 1;
  // Missing arrivals in units of the waiter's own arrival (a block waits for blocks); a
  // token of a later phase (more arrivals than a phase takes) waits at least as long.
  cuda::std::uint32_t const missing = stop_count - count;
  // A device waiter polls again at once up to a longer forecast than other waits do,
  // decided without the division below, which would lengthen each of those polls.
  NV_IF_TARGET(NV_IS_DEVICE, (constexpr cuda::std::uint64_t spin_units =
                                  Backoff::tuning::barrier_arrival_ns == 0
                                      ? ~cuda::std::uint32_t{0}
                                      : Backoff::tuning::device_barrier_spin_ns / Backoff::tuning::barrier_arrival_ns;
                              if (missing <= spin_units * token.weight_) return 1u;))
  cuda::std::uint32_t const units = missing / token.weight_ + (missing % token.weight_ != 0 ? 1u : 0u);
  return detail::forecast_ns(units, Backoff::tuning::barrier_arrival_ns);
}

template <cuda::thread_scope Scope, class CompletionFunction, class Backoff>
UNISYNC_HOST_DEVICE void basic_barrier<Scope, CompletionFunction, Backoff>::wait(arrival_token&& token) const
{
  if (token.has(arrival_token::completed_phase)) return;  // its addition completed and acquired the phase
  detail::hint_polls hint;
  auto forecast = [&](cuda::std::memory_order order) { return forecast_to_release(token, order, hint.trust_next()); };
  detail::wait_for_turn<Backoff>(forecast);
}

template <cuda::thread_scope Scope, class CompletionFunction, class Backoff>
UNISYNC_HOST_DEVICE bool basic_barrier<Scope, CompletionFunction, Backoff>::try_wait(arrival_token const& token) const
{
  // The word, not the hint: the phase has completed once the word says so.
  return token.has(arrival_token::completed_phase) || forecast_to_release(token, detail::memory_order_acquire, false) == 0;
}

template <cuda::thread_scope Scope, class CompletionFunction, class Backoff>
UNISYNC_HOST_DEVICE bool basic_barrier<Scope, CompletionFunction, Backoff>::try_wait_within(
    arrival_token const& token, cuda::std::uint64_t timeout_ns) const
{
  if (token.has(arrival_token::completed_phase)) return true;
  detail::hint_polls hint;
  return detail::wait_for_turn_until<Backoff>(detail::deadline::after(timeout_ns), [&](cuda::std::memory_order order) {
    return forecast_to_release(token, order, hint.trust_next());
  });
}

template <cuda::thread_scope Scope, class CompletionFunction, class Backoff>
UNISYNC_HOST_DEVICE void basic_barrier<Scope, CompletionFunction, Backoff>::arrive_and_wait()
{
  // On the device, the threads of a warp that call this together on this barrier arrive
  // as one group: one atomic for up to 32 arrivals, and a waiter that counts missing
  // warps, not threads; each lane is released when its own arrival's phase completes.
  NV_IF_ELSE_TARGET(NV_IS_DEVICE,
                    (detail::lanes_arrive_and_wait(
                         this, [this](cuda::std::uint32_t lanes) { return arrive_placed(lanes); },
                         [this](arrival_token&& token) { wait(static_cast<arrival_token&&>(token)); });),
                    (wait(arrive());))
}

template <cuda::thread_scope Scope, class CompletionFunction, class Backoff>
UNISYNC_HOST_DEVICE void basic_barrier<Scope, CompletionFunction, Backoff>::arrive_and_drop()
{
  // One participant fewer and, where the open phase's arm is in, one arrival, in one
  // compare-and-swap that never waits. A phase at zero takes the arm with it (for the
  // participants before the drop: the dropper is one of them); an armed phase short of
  // its stop takes the arrival. A phase whose arm is still to come (its first arrival's,
  // or that of the thread whose carry left arrivals in it) gets the participant only: its
  // arm reads the participants before the drop, the arming thread's result then shows
  // the drop, and that thread adds the arrival (settle_rest). Above the stop (the
  // completion of the phase before runs; arrivals there are this phase's) the drop gets
  // the participant only as well: the carry opens this phase with one participant fewer
  // to arm for, which leaves the drop's place in it without count. Adding the arrival in
  // either window would place that window's arrivals against one participant too few.
  auto word = detail::atomic_at<Scope>(word_);
  cuda::std::uint64_t before = word.load(detail::memory_order_relaxed);
  for (;;) {
    cuda::std::uint32_t const count = count_of(before);
    cuda::std::uint32_t const participants = participants_of(before);
    UNISYNC_EXPECTS_WITHOUT_CALL(participants != 0,
                                 "barrier::arrive_and_drop() at a barrier that expects no participant");
    bool const first = count == 0;
    cuda::std::uint32_t const added = first ? stop_count - participants + 1 : is_armed(count) && count < stop_count ? 1u : 0u;
    cuda::std::uint64_t const desired = before + (static_cast<cuda::std::uint64_t>(added) << count_shift) - 1u;
    // Acquire-release as an arrival's addition.
    if (word.compare_exchange_strong(before, desired, detail::memory_order_acq_rel, detail::memory_order_relaxed)) {
      if (added == 0) return;
      // As if the arm had come first: the armed count, then this arrival, with its drop.
      cuda::std::uint64_t const armed = first ? desired - (cuda::std::uint64_t{1} << count_shift) : before - 1u;
      if (completes(armed, 1)) static_cast<void>(complete_phase(armed, 1));
      return;
    }
  }
}

#if defined(__CUDACC__)
template <cuda::thread_scope Scope, class CompletionFunction, class Backoff>
template <class Group, class>
__device__ void basic_barrier<Scope, CompletionFunction, Backoff>::arrive_and_wait(Group const& group)
{
  detail::group_arrive_and_wait(group, *this);
}
#endif  // defined(__CUDACC__)

}  // namespace unisync
