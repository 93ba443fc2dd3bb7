#pragma once
// Definitions of basic_partitioned_barrier; the contract is in unisync/partitioned_barrier.hpp.

#include <unisync/capabilities.hpp>
#include <unisync/detail/managed_memory.hpp>
#include <unisync/detail/wait.hpp>

namespace unisync {

namespace detail {
/// Every word of a partitioned barrier is reached from both sides of the link.
inline constexpr cuda::thread_scope across_sides = cuda::thread_scope_system;
}  // namespace detail

template <class CompletionFunction, class Backoff>
UNISYNC_HOST_DEVICE typename basic_partitioned_barrier<CompletionFunction, Backoff>::side_kind
basic_partitioned_barrier<CompletionFunction, Backoff>::running_side() noexcept
{
  return detail::running_on_device() ? side_kind::gpu : side_kind::cpu;
}

template <class CompletionFunction, class Backoff>
UNISYNC_HOST_DEVICE typename basic_partitioned_barrier<CompletionFunction, Backoff>::side_part&
basic_partitioned_barrier<CompletionFunction, Backoff>::part_of(side_kind side) const noexcept
{
  auto& self = const_cast<basic_partitioned_barrier&>(*this);
  return side == side_kind::gpu ? self.gpu_ : self.cpu_;
}

template <class CompletionFunction, class Backoff>
UNISYNC_HOST_DEVICE cuda::std::uint64_t& basic_partitioned_barrier<CompletionFunction, Backoff>::report_of(
    side_kind side) const noexcept
{
  auto& self = const_cast<basic_partitioned_barrier&>(*this);
  return side == side_kind::gpu ? self.reports_.from_gpu : self.reports_.from_cpu;
}

template <class CompletionFunction, class Backoff>
UNISYNC_HOST_DEVICE constexpr cuda::std::uint32_t basic_partitioned_barrier<CompletionFunction, Backoff>::phase_of(
    cuda::std::uint64_t word) noexcept
{
  return static_cast<cuda::std::uint32_t>(word >> side_phase_shift) & side_phase_mask;
}

template <class CompletionFunction, class Backoff>
UNISYNC_HOST_DEVICE constexpr cuda::std::uint32_t basic_partitioned_barrier<CompletionFunction, Backoff>::count_of(
    cuda::std::uint64_t word) noexcept
{
  return static_cast<cuda::std::uint32_t>(word >> side_count_shift) & (side_carry - 1);
}

template <class CompletionFunction, class Backoff>
UNISYNC_HOST_DEVICE constexpr cuda::std::uint32_t basic_partitioned_barrier<CompletionFunction, Backoff>::participants_of(
    cuda::std::uint64_t word) noexcept
{
  return static_cast<cuda::std::uint32_t>(word & side_participants_mask);
}

template <class CompletionFunction, class Backoff>
UNISYNC_HOST_DEVICE constexpr cuda::std::uint32_t basic_partitioned_barrier<CompletionFunction, Backoff>::side_stop(
    cuda::std::uint64_t word) noexcept
{
  // Where the phase's additions stop (see alone_stop). The mixed flag changes only with a
  // carry, so every addition of a phase reads the same flag.
  return (word & mixed_flag) != 0 ? mixed_stop : alone_stop;
}

template <class CompletionFunction, class Backoff>
UNISYNC_HOST_DEVICE constexpr cuda::std::uint32_t basic_partitioned_barrier<CompletionFunction, Backoff>::alone_flags(
    side_kind side, cuda::std::uint32_t participants) noexcept
{
  // The token flags of an arrival on a side alone: a CPU waiter among many polls the hint.
  return (side == side_kind::gpu ? arrival_token::on_gpu_side : 0u) |
         (side == side_kind::cpu && participants >= Backoff::tuning::host_hint_min_participants
              ? arrival_token::polls_open_parity
              : 0u);
}

template <class CompletionFunction, class Backoff>
UNISYNC_HOST_DEVICE constexpr bool basic_partitioned_barrier<CompletionFunction, Backoff>::side_phase_passed(
    cuda::std::uint32_t open_phase, cuda::std::uint32_t phase) noexcept
{
  // Phase numbers wrap at 2^15: `phase` has completed when the open phase is less than
  // 2^14 phases past it. A token may name a phase after the open one (an addition that
  // counted arrivals beyond the open phase).
  cuda::std::uint32_t const ahead = (open_phase - phase) & side_phase_mask;
  return ahead != 0 && ahead <= (side_phase_mask >> 1);
}

template <class CompletionFunction, class Backoff>
UNISYNC_HOST_DEVICE constexpr bool basic_partitioned_barrier<CompletionFunction, Backoff>::awaits_carry(
    cuda::std::uint64_t word) noexcept
{
  // Every arrival of a mixed phase is in; it ends through the reports. (Alone, a side's
  // leader adds its carry itself, in arrive(), before anyone can arrive in the next phase.)
  return (word & mixed_flag) != 0 && count_of(word) == side_carry - 1;
}

template <class CompletionFunction, class Backoff>
UNISYNC_HOST_DEVICE constexpr cuda::std::uint64_t basic_partitioned_barrier<CompletionFunction, Backoff>::awaiting_word(
    cuda::std::uint32_t phase, cuda::std::uint32_t next_share) noexcept
{
  // The word of a mixed phase whose arrivals are all in: nothing else changes it until the
  // carry, so its leader knows it without reading it.
  return (static_cast<cuda::std::uint64_t>(phase) << side_phase_shift) |
         (static_cast<cuda::std::uint64_t>(side_carry - 1) << side_count_shift) | mixed_flag | next_share;
}

template <class CompletionFunction, class Backoff>
UNISYNC_HOST_DEVICE constexpr bool basic_partitioned_barrier<CompletionFunction, Backoff>::reported_at_least(
    cuda::std::uint64_t report, cuda::std::uint32_t next_phase) noexcept
{
  // Phase numbers wrap at 15 bits; a report is at most a phase or two away from the one
  // awaited, so the wrapping difference decides (an unsigned >= would accept the previous
  // report once phases wrap).
  auto const reported = static_cast<cuda::std::uint32_t>(report >> report_phase_shift);
  return ((reported - next_phase) & side_phase_mask) <= (side_phase_mask >> 1);
}

template <class CompletionFunction, class Backoff>
UNISYNC_HOST_DEVICE constexpr typename basic_partitioned_barrier<CompletionFunction, Backoff>::other_side
basic_partitioned_barrier<CompletionFunction, Backoff>::classify(cuda::std::uint64_t report,
                                                                 cuda::std::uint32_t phase) noexcept
{
  // A report is "this side's share of phase N": phase + 1 or later, the side has arrived
  // in `phase`; a share of zero, the side has left for good (participants never come
  // back), whatever phase it names: a side's last report may fall behind by any number
  // of phases once the other side goes on alone.
  if (reported_at_least(report, (phase + 1) & side_phase_mask)) return other_side::arrived;
  return (report & missing_mask) == 0 ? other_side::absent : other_side::pending;
}

template <class CompletionFunction, class Backoff>
UNISYNC_FORCE_INLINE UNISYNC_HOST_DEVICE typename basic_partitioned_barrier<CompletionFunction, Backoff>::arrival_token
basic_partitioned_barrier<CompletionFunction, Backoff>::arrive(cuda::std::ptrdiff_t update)
{
  UNISYNC_ASSERT(update > 0 && update <= max(), "partitioned_barrier::arrive(update) needs 0 < update <= max()");
  // No placement asked for: an addition placed beyond the open phase returns its last
  // arrival's token.
  return arrive_as(running_side(), static_cast<cuda::std::uint32_t>(update), false, nullptr);
}

template <class CompletionFunction, class Backoff>
UNISYNC_FORCE_INLINE UNISYNC_HOST_DEVICE typename basic_partitioned_barrier<CompletionFunction, Backoff>::arrivals_placed
basic_partitioned_barrier<CompletionFunction, Backoff>::arrive_placed(side_kind side, cuda::std::uint32_t weight)
{
  arrivals_placed beyond;
  arrival_token const token = arrive_as(side, weight, false, &beyond);
  return token.has(arrival_token::placed_beyond) ? beyond : arrivals_placed::one_phase(token);
}

template <class CompletionFunction, class Backoff>
UNISYNC_FORCE_INLINE UNISYNC_HOST_DEVICE typename basic_partitioned_barrier<CompletionFunction, Backoff>::arrival_token
basic_partitioned_barrier<CompletionFunction, Backoff>::arrive_as(side_kind side, cuda::std::uint32_t weight, bool drop,
                                                                  arrivals_placed* beyond)
{
  // Every arrival adds to its side's word first: one atomic, in the side's own memory,
  // that both counts the arrival and tells (learning flag) whether the side counts on
  // its own yet. Release publishes the arrival; acquire makes the side's last arrival
  // acquire every earlier one without a fence or load after it. A drop takes one
  // participant away in the same addition (no borrow: the dropper is one of them), except
  // on a side alone, which drops with basic_barrier's rule (see drop_alone): a drop adds
  // only to a word that it has seen learning or mixed, so that a side that became alone
  // meanwhile (the first phase's arm, or the other side leaving) never takes it.
  detail::own_side_word<cuda::std::uint64_t> const word(part_of(side).word);
  cuda::std::uint64_t const delta = (static_cast<cuda::std::uint64_t>(weight) << side_count_shift) - (drop ? 1u : 0u);
  cuda::std::uint64_t before = 0;
  if (drop) {
    before = word.load(detail::memory_order_relaxed);
    do {
      if ((before & (learning_flag | mixed_flag)) == 0) return drop_alone(side);
    } while (!word.compare_exchange_strong(before, before + delta, detail::memory_order_acq_rel,
                                           detail::memory_order_relaxed));
  } else {
    before = word.fetch_add(delta, detail::memory_order_acq_rel);
  }
  if ((before & learning_flag) == 0) return arrive_on_side(side, before, weight, drop, beyond);
  // The first phase, or flat mode: the addition only counted this side's arrival (and
  // drop) for learning the split; the phase itself runs on the central word. A drop is
  // counted there before arriving, so that the phase's last arriver sees it.
  if (drop) detail::atomic_at<detail::across_sides>(central_.drops).fetch_add(1, detail::memory_order_relaxed);
  return arrive_central(side, weight, drop, beyond);
}

template <class CompletionFunction, class Backoff>
UNISYNC_FORCE_INLINE UNISYNC_HOST_DEVICE typename basic_partitioned_barrier<CompletionFunction, Backoff>::arrival_token
basic_partitioned_barrier<CompletionFunction, Backoff>::arrive_on_side(side_kind side, cuda::std::uint64_t before,
                                                                       cuda::std::uint32_t weight, bool drop,
                                                                       arrivals_placed* beyond)
{
  if ((before & mixed_flag) == 0) return arrive_alone(side, before, weight, beyond);
  if (awaits_carry(before)) return arrive_after_carry(side, before, weight, drop);
  // A mixed phase: basic_barrier's carry scheme (see barrier.hpp) on the side's word,
  // stopping one short of the carry, which the reports decide.
  cuda::std::uint32_t const count = count_of(before);
  cuda::std::uint32_t const participants = participants_of(before);
  // Shares are below 2^22: an armed count is at least 2^23, below that the count holds the
  // arrivals that came before the phase's first arrival armed it.
  bool const armed = count >= side_armed_min;
  char const* const too_many =
      "partitioned_barrier: more arrivals on this side (CPU or GPU) than it had in the previous phase; "
      "after the first phase participants must not move between the CPU and the GPU";
  UNISYNC_EXPECTS(weight <= (armed ? mixed_stop - count : participants), too_many);
  cuda::std::uint64_t reached = static_cast<cuda::std::uint64_t>(count) + weight;
  // The participants after this phase's drops, as the addition that completes it reads them.
  cuda::std::uint32_t next_share = participants - (drop ? 1u : 0u);
  if (count == 0) {
    // Arms the phase for the participants its own result shows (every drop of the previous
    // phase came before, and no one else's of this one). Acquire: if every arrival came
    // before it, it completes the phase.
    cuda::std::uint32_t const arm = mixed_stop - participants;
    cuda::std::uint64_t const before_arm =
        detail::own_side_word<cuda::std::uint64_t>(part_of(side).word)
            .fetch_add(static_cast<cuda::std::uint64_t>(arm) << side_count_shift, detail::memory_order_acquire);
    reached = static_cast<cuda::std::uint64_t>(count_of(before_arm)) + arm;
    next_share = participants_of(before_arm);
    // Cheap here, and it catches arrivals that slipped in before the arm.
    UNISYNC_EXPECTS(reached <= mixed_stop, too_many);
  }
  return settle_arrival(side, before, phase_of(before), reached, weight, next_share);
}

template <class CompletionFunction, class Backoff>
UNISYNC_FORCE_INLINE UNISYNC_HOST_DEVICE typename basic_partitioned_barrier<CompletionFunction, Backoff>::arrival_token
basic_partitioned_barrier<CompletionFunction, Backoff>::arrive_alone(side_kind side, cuda::std::uint64_t before,
                                                                     cuda::std::uint32_t weight, arrivals_placed* beyond)
{
  // The side has the barrier to itself: basic_barrier's scheme on the side's word (see
  // barrier.hpp), arrivals beyond the open phase included. The phase's first arrival arms
  // it for the participants its own result shows (every drop of the previous phase came
  // before); the addition that reaches the stop completes the phase. Acquire on the arm:
  // if every arrival came before it, it completes the phase. A drop that came in before
  // the arm took only its participant: the arm's result shows it, and the rare path adds
  // its arrival.
  // The common outcomes (every arrival of the addition in the open phase) make their token
  // here; place_alone places the others.
  cuda::std::uint32_t const count = count_of(before);
  cuda::std::uint32_t const phase = phase_of(before);
  cuda::std::uint32_t const participants = participants_of(before);
  cuda::std::uint32_t const flags = alone_flags(side, participants);
  if (count >= side_armed_min && count < alone_stop) {
    if (alone_stop - count > weight) return arrival_token(phase, weight, flags);
    cuda::std::uint32_t const open_phase = complete_alone_phase(side, before, weight);
    if (alone_stop - count == weight) {
      return arrival_token(phase, weight, flags | arrival_token::completed_phase);
    }
    return place_alone(side, before, weight, open_phase, beyond);
  }
  if (count == 0) {
    UNISYNC_EXPECTS(participants != 0, "partitioned_barrier: an arrival on a side (CPU or GPU) that has no participant");
    cuda::std::uint64_t const arm = static_cast<cuda::std::uint64_t>(alone_stop - participants) << side_count_shift;
    cuda::std::uint64_t const before_arm =
        detail::own_side_word<cuda::std::uint64_t>(part_of(side).word).fetch_add(arm, detail::memory_order_acquire);
    if (participants_of(before_arm) != participants) {
      // Drops came in before the arm and left their arrivals to it (see drop_alone).
      cuda::std::uint32_t const open_phase = settle_alone_rest(side, before_arm, alone_stop - participants,
                                                               participants - participants_of(before_arm), false, 0);
      return place_alone(side, before, weight, open_phase, beyond);
    }
    cuda::std::uint32_t const counted = count_of(before_arm);
    if (counted < participants) return arrival_token(phase, weight, flags);
    cuda::std::uint32_t const open_phase = complete_alone_phase(side, before_arm, alone_stop - participants);
    if (weight <= participants) {
      return arrival_token(phase, weight, flags | arrival_token::completed_phase);
    }
    return place_alone(side, before, weight, open_phase, beyond);
  }
  // Counted before the phase's arm: the phase's first arrival arms (and completes) it.
  return place_alone(side, before, weight, phase, beyond);
}

template <class CompletionFunction, class Backoff>
UNISYNC_FORCE_INLINE UNISYNC_HOST_DEVICE typename basic_partitioned_barrier<CompletionFunction, Backoff>::arrival_token
basic_partitioned_barrier<CompletionFunction, Backoff>::place_alone(side_kind side, cuda::std::uint64_t before,
                                                                    cuda::std::uint32_t weight,
                                                                    cuda::std::uint32_t open_phase,
                                                                    arrivals_placed* into) const
{
  // Where an addition to an alone side's word landed, from the word it found: within the
  // open phase's room, or whole phases past it, counted before the phase's arm with more
  // arrivals in than it takes, or above the stop while the completion runs. Drops add no
  // arrival there, so the participants are those of every phase counted into, unless a
  // drop races such an arrival (see basic_barrier's limit in barrier.hpp). Inlined, as
  // complete_alone_phase and arrive_beyond_first_phase are: as calls they slowed the
  // common GPU arrival that never takes them (H200, GPU threads alone, 8 blocks: 1.03
  // against 0.91 us per phase, per thread on one block 1.12 against 0.96).
  cuda::std::uint32_t const count = count_of(before);
  arrivals_placed placed;
  placed.weight = weight;
  placed.open_phase = open_phase;
  placed.participants = participants_of(before);
  placed.later_flags = alone_flags(side, placed.participants);
  cuda::std::uint32_t phase = phase_of(before);
  if (count >= side_armed_min && count < alone_stop) {
    placed.room = alone_stop - count;
  } else if (count < placed.participants) {
    placed.room = placed.participants - count;
  } else {
    UNISYNC_EXPECTS(placed.participants != 0,
                    "partitioned_barrier: an arrival on a side (CPU or GPU) that has no participant");
    bool const above_stop = count >= alone_stop;
    cuda::std::uint32_t const position = above_stop ? count - alone_stop : count;
    phase = (phase + (above_stop ? 1u : 0u) + position / placed.participants) & side_phase_mask;
    placed.room = placed.participants - position % placed.participants;
  }
  placed.first = arrival_token(
      phase, weight, placed.later_flags | (side_phase_passed(open_phase, phase) ? arrival_token::completed_phase : 0u));
  return deliver(placed, into);
}

template <class CompletionFunction, class Backoff>
UNISYNC_HOST_DEVICE typename basic_partitioned_barrier<CompletionFunction, Backoff>::arrival_token
basic_partitioned_barrier<CompletionFunction, Backoff>::deliver(arrivals_placed const& placed, arrivals_placed* into)
{
  // Asked for (a warp's lanes): the whole placement, and a token that says so; else the
  // token of the addition's last arrival (a thread's arrive(), whose update must not span
  // phases).
  if (into == nullptr) {
    // (Captured arrivals are placed later, a rank at a time.)
    UNISYNC_ASSERT(!placed.span_phases() || (placed.is_captured() && placed.central_ranks == 0),
                   "partitioned_barrier::arrive(update) with update above the arrivals missing in this phase");
    return placed.last_token();
  }
  *into = placed;
  return arrival_token(placed.first.phase_, placed.weight, arrival_token::placed_beyond);
}

template <class CompletionFunction, class Backoff>
UNISYNC_FORCE_INLINE UNISYNC_HOST_DEVICE cuda::std::uint64_t
basic_partitioned_barrier<CompletionFunction, Backoff>::carry_alone(side_kind side, cuda::std::uint64_t after)
{
  // `after`: the word as the addition that reached an alone side's stop left it, which
  // acquired every arrival of the phase. With the default completion that addition
  // carried; with a completion function this thread runs it, then adds the carry, which
  // releases the waiters and what the completion wrote. Returns the word after the carry.
  if constexpr (!completes_in_arrival) {
    UNISYNC_EXPECTS(count_of(after) >= alone_stop,
                    "partitioned_barrier: 2^22 or more arrivals beyond a phase while its completion ran");
    central_.completion();
    cuda::std::uint64_t const carry = static_cast<cuda::std::uint64_t>(completion_headroom) << side_count_shift;
    detail::own_side_word<cuda::std::uint64_t> const word(part_of(side).word);
    after = word.fetch_add(carry, detail::memory_order_release) + carry;
  }
  open_next_phase(side, after);
  return after;
}

template <class CompletionFunction, class Backoff>
UNISYNC_FORCE_INLINE UNISYNC_HOST_DEVICE cuda::std::uint32_t
basic_partitioned_barrier<CompletionFunction, Backoff>::complete_alone_phase(side_kind side, cuda::std::uint64_t before,
                                                                             cuda::std::uint32_t added)
{
  // This thread's addition of `added` to an alone side's word (from `before`) reached the
  // stop: it completes the phase. Straight-line for the common case, as basic_barrier's
  // complete_phase; settle_alone_rest takes the rest: arrivals of the next phase that came
  // in above the stop (more threads than the side's share), which this thread then arms,
  // and a phase that every participant dropped out of while the completion ran. Returns
  // the phase open after this thread's additions.
  cuda::std::uint64_t const after =
      carry_alone(side, before + (static_cast<cuda::std::uint64_t>(added) << side_count_shift));
  if (count_of(after) != 0) return settle_alone_rest(side, before, added, 0, true, after);
  if constexpr (!completes_in_arrival) {
    if (participants_of(after) == 0 && participants_of(before) != 0) {
      return settle_alone_rest(side, before, added, 0, true, after);
    }
  }
  return phase_of(after);
}

template <class CompletionFunction, class Backoff>
UNISYNC_NOINLINE UNISYNC_HOST_DEVICE cuda::std::uint32_t
basic_partitioned_barrier<CompletionFunction, Backoff>::settle_alone_rest(side_kind side, cuda::std::uint64_t before,
                                                                          cuda::std::uint32_t added,
                                                                          cuda::std::uint32_t owed, bool was_carried,
                                                                          cuda::std::uint64_t carried)
{
  // basic_barrier's settle_rest on an alone side's word: this thread's addition of `added`
  // (from `before`) was an arm that found drops (`owed`: their arrivals, which this thread
  // adds after it), or it reached the stop and was carried (`carried`, when `was_carried`)
  // and left arrivals in the next phase, which this thread then arms, or left a phase
  // that every participant dropped out of while the completion ran. Each addition may in
  // turn complete a phase, open one with arrivals in it, or find drops. Returns the phase
  // open after this thread's additions.
  detail::own_side_word<cuda::std::uint64_t> const word(part_of(side).word);
  auto const completes = [](cuda::std::uint64_t from, cuda::std::uint32_t units) {
    return count_of(from) < alone_stop && count_of(from) + units >= alone_stop;
  };
  for (;;) {
    bool arms = count_of(before) == 0;
    cuda::std::uint64_t after = before + (static_cast<cuda::std::uint64_t>(added) << side_count_shift);
    if (!arms && completes(before, added)) {
      after = was_carried ? carried : carry_alone(side, after);
      arms = count_of(after) != 0;
      if (!arms && owed == 0) {
        if constexpr (!completes_in_arrival) {
          if (participants_of(after) == 0 && participants_of(before) != 0) {
            // Every participant of the phase just opened dropped while the completion ran
            // (each leaving its arrival out of the count): that phase has completed as
            // well, and no arrival can come into it. Acquire: the carry read the drops
            // but only releases.
            cuda::std::uint64_t const stop = static_cast<cuda::std::uint64_t>(alone_stop) << side_count_shift;
            return phase_of(carry_alone(side, word.fetch_add(stop, detail::memory_order_acquire) + stop));
          }
        }
        return phase_of(after);
      }
    }
    was_carried = false;
    if (arms) {
      cuda::std::uint32_t const participants = participants_of(after);
      UNISYNC_EXPECTS(participants != 0,
                      "partitioned_barrier: an arrival on a side (CPU or GPU) that has no participant");
      added = alone_stop - participants;
      before =
          word.fetch_add(static_cast<cuda::std::uint64_t>(added) << side_count_shift, detail::memory_order_acquire);
      owed += participants - participants_of(before);
      continue;
    }
    if (owed == 0) return phase_of(after);
    added = owed;
    owed = 0;
    before = word.fetch_add(static_cast<cuda::std::uint64_t>(added) << side_count_shift, detail::memory_order_acquire);
    if (count_of(before) != 0 && !completes(before, added)) return phase_of(before);
  }
}

template <class CompletionFunction, class Backoff>
UNISYNC_NOINLINE UNISYNC_HOST_DEVICE typename basic_partitioned_barrier<CompletionFunction, Backoff>::arrival_token
basic_partitioned_barrier<CompletionFunction, Backoff>::drop_alone(side_kind side)
{
  // basic_barrier's drop (see arrive_and_drop in barrier.inl): one participant fewer and,
  // where the open phase's arm is in, one arrival, in one compare-and-swap that never
  // waits. A phase at zero takes the arm with it (for the participants before the drop);
  // an armed phase short of its stop takes the arrival. A phase whose arm is still to
  // come (its first arrival's, or that of the thread whose carry left arrivals in it) gets
  // the participant only: the arm reads the participants before the drop, the arming
  // thread's result then shows the drop, and that thread adds the arrival
  // (settle_alone_rest). Above the stop (the completion of the phase before runs) the
  // drop gets the participant only as well: the carry opens this phase with one
  // participant fewer to arm for.
  detail::own_side_word<cuda::std::uint64_t> const word(part_of(side).word);
  cuda::std::uint64_t before = word.load(detail::memory_order_relaxed);
  for (;;) {
    cuda::std::uint32_t const count = count_of(before);
    cuda::std::uint32_t const participants = participants_of(before);
    UNISYNC_EXPECTS(participants != 0,
                    "partitioned_barrier::arrive_and_drop() on a side (CPU or GPU) that has no participant");
    bool const first = count == 0;
    cuda::std::uint32_t const added =
        first ? alone_stop - participants + 1 : count >= side_armed_min && count < alone_stop ? 1u : 0u;
    cuda::std::uint64_t const desired = before + (static_cast<cuda::std::uint64_t>(added) << side_count_shift) - 1u;
    // Acquire-release as an arrival's addition.
    if (word.compare_exchange_strong(before, desired, detail::memory_order_acq_rel, detail::memory_order_relaxed)) {
      // arrive_and_drop() returns nothing: no one waits on this token.
      arrival_token const left(phase_of(before), 1, arrival_token::completed_phase);
      if (added == 0) return left;
      // As if the arm had come first: the armed count, then this arrival, with its drop.
      cuda::std::uint64_t const armed = first ? desired - (cuda::std::uint64_t{1} << side_count_shift) : before - 1u;
      if (count_of(armed) + 1 >= alone_stop) static_cast<void>(complete_alone_phase(side, armed, 1));
      return left;
    }
  }
}

template <class CompletionFunction, class Backoff>
UNISYNC_FORCE_INLINE UNISYNC_HOST_DEVICE typename basic_partitioned_barrier<CompletionFunction, Backoff>::arrival_token
basic_partitioned_barrier<CompletionFunction, Backoff>::settle_arrival(side_kind side, cuda::std::uint64_t before,
                                                                       cuda::std::uint32_t phase,
                                                                       cuda::std::uint64_t reached,
                                                                       cuda::std::uint32_t weight,
                                                                       cuda::std::uint32_t next_share)
{
  // A mixed phase: the addition that reaches one short of the carry leads the side.
  cuda::std::uint32_t const flags = (side == side_kind::gpu ? arrival_token::on_gpu_side : 0u) | arrival_token::mixed;
  if (reached == mixed_stop) {
    bool const ended = lead_mixed_phase(side, phase, next_share);
    return arrival_token(phase, weight,
                         flags | arrival_token::leads_side | (ended ? arrival_token::completed_phase : 0u), next_share);
  }
  bool const polls_open_parity =
      side == side_kind::cpu && participants_of(before) >= Backoff::tuning::host_hint_min_participants;
  return arrival_token(phase, weight, flags | (polls_open_parity ? arrival_token::polls_open_parity : 0u));
}

template <class CompletionFunction, class Backoff>
UNISYNC_NOINLINE UNISYNC_HOST_DEVICE typename basic_partitioned_barrier<CompletionFunction, Backoff>::arrival_token
basic_partitioned_barrier<CompletionFunction, Backoff>::arrive_after_carry(side_kind side, cuda::std::uint64_t before,
                                                                           cuda::std::uint32_t weight, bool drop)
{
  // Every arrival of the side's phase was in and the phase had ended on both sides (this
  // participant learned that from a waiter that saw the reports), but no one had added the
  // carry yet: this arrival's addition added it, and weight - 1 arrivals of the next phase.
  cuda::std::uint32_t const phase = phase_of(before);
  cuda::std::uint32_t const next_phase = (phase + 1) & side_phase_mask;
  open_next_phase(side, static_cast<cuda::std::uint64_t>(next_phase) << side_phase_shift);
  // The participants of the next phase, the dropper still among them.
  cuda::std::uint32_t const participants = participants_of(before);
  if (weight == 1 && drop && participants > 1) {
    // A drop: the addition already took the dropper out of the next phase's participants,
    // so that a sibling released by this carry arms the next phase without it. That is
    // the dropper's arrival there: the phase ends when the others have arrived, as it
    // would with the dropper counted and arrived first. (Not checked against the reports:
    // the others need nothing more of the dropper, and may be phases ahead by then.)
    return arrival_token(next_phase, weight, arrival_token::completed_phase);
  }
  cuda::std::uint64_t their_report = 0;
  UNISYNC_EXPECTS(phase_ended_across(phase, detail::memory_order_acquire, side, false, their_report),
                  "partitioned_barrier: more arrivals on this side (CPU or GPU) than the phase expects");
  detail::own_side_word<cuda::std::uint64_t> const word(part_of(side).word);
  if (weight == 1) {
    // Nothing of this arrival is in the next phase yet: it arrives there as any arrival
    // does (a sole participant that drops, as if its drop were part of that addition).
    cuda::std::uint64_t const again =
        word.fetch_add(cuda::std::uint64_t{1} << side_count_shift, detail::memory_order_acq_rel);
    return arrive_on_side(side, again + (drop ? 1u : 0u), 1, drop, nullptr);
  }
  // weight - 1 of it is in the next phase, which nobody armed (nobody saw its count at
  // zero): this arrival is its first and arms it, adding back the unit the carry took.
  cuda::std::uint32_t const arm = mixed_stop - participants + 1;
  cuda::std::uint64_t const before_arm =
      word.fetch_add(static_cast<cuda::std::uint64_t>(arm) << side_count_shift, detail::memory_order_acquire);
  cuda::std::uint64_t const reached = static_cast<cuda::std::uint64_t>(count_of(before_arm)) + arm;
  UNISYNC_EXPECTS(reached < side_carry,
                  "partitioned_barrier: more arrivals on this side (CPU or GPU) than the phase expects");
  return settle_arrival(side, before, next_phase, reached, weight, participants_of(before_arm));
}

template <class CompletionFunction, class Backoff>
UNISYNC_FORCE_INLINE UNISYNC_HOST_DEVICE typename basic_partitioned_barrier<CompletionFunction, Backoff>::arrival_token
basic_partitioned_barrier<CompletionFunction, Backoff>::arrive_central(side_kind side, cuda::std::uint32_t weight,
                                                                       bool drop, arrivals_placed* beyond)
{
  auto word = detail::atomic_at<detail::across_sides>(central_.phase_and_missing);
  // Acquire as on a side: the last arrival acquires every earlier one.
  cuda::std::uint64_t const before = word.fetch_sub(weight, detail::memory_order_acq_rel);
  auto const missing = static_cast<cuda::std::uint32_t>(before & missing_mask);
  // Below the bias: arrivals beyond the phase came first; after the first phase (not in
  // flat mode) the count holds the bias alone.
  if (missing < central_bias + weight) return arrive_beyond_first_phase(side, before, weight, drop, beyond);
  auto const phase = static_cast<cuda::std::uint32_t>(before >> phase_shift);
  if (missing == central_bias + weight) complete_central_phase(side, phase);
  return arrival_token(phase, weight, arrival_token::central);
}

template <class CompletionFunction, class Backoff>
UNISYNC_FORCE_INLINE UNISYNC_HOST_DEVICE typename basic_partitioned_barrier<CompletionFunction, Backoff>::arrival_token
basic_partitioned_barrier<CompletionFunction, Backoff>::arrive_beyond_first_phase(side_kind side,
                                                                                  cuda::std::uint64_t before,
                                                                                  cuda::std::uint32_t weight, bool drop,
                                                                                  arrivals_placed* into)
{
  // More arrivals than the first phase expects (a warp's lanes, threads racing in): the
  // ones beyond it are arrivals of the next phase, which runs on the side words. Their
  // addition to the side word while learning was, or will be, overwritten by the first
  // phase's last arriver, which arms the sides. Those that subtract here before its
  // release are counted on the side by that arriver, after the arm (count_captured), so
  // that none of them waits for it; those that come after the release count there again
  // themselves.
  using detail::across_sides;
  using detail::atomic_at;
  UNISYNC_EXPECTS(atomic_at<across_sides>(central_.flat).load(detail::memory_order_relaxed) == 0,
                  "partitioned_barrier: more arrivals in a phase than it expects, in flat mode (a link with native "
                  "host atomics); unisync::barrier counts arrivals beyond a phase in the next one");
  UNISYNC_EXPECTS(!drop, "partitioned_barrier: arrive_and_drop() beyond the arrivals the first phase expects");
  auto const missing = static_cast<cuda::std::uint32_t>(before & missing_mask);
  auto const phase = static_cast<cuda::std::uint32_t>(before >> phase_shift);
  if (phase == 0) {
    // Those of this addition still in the first phase complete it; the rest are the first
    // captured ones (ranks 0 ..), which this thread then counts itself.
    cuda::std::uint32_t const in_first = missing > central_bias ? missing - central_bias : 0u;
    arrivals_placed placed = arrivals_placed::captured_beyond(in_first != 0 ? 0u : central_bias - missing, weight,
                                                              side == side_kind::gpu ? arrival_token::on_gpu_side : 0u);
    if (in_first != 0) {
      // This thread completed the phase and counted the captured arrivals: its own rest
      // are their first ranks, placed where it published.
      complete_central_phase(side, phase);
      cuda::std::uint64_t const published =
          atomic_at<across_sides>(central_.captured).load(detail::memory_order_relaxed);
      placed.participants = static_cast<cuda::std::uint32_t>(published & side_participants_mask);
      placed.room = static_cast<cuda::std::uint32_t>(published >> captured_room_shift) & captured_room_mask;
      placed.open_phase = static_cast<cuda::std::uint32_t>(published >> captured_phase_shift) & side_phase_mask;
      placed.later_flags = alone_flags(side, placed.participants);
      placed.first = arrival_token(placed.open_phase, weight, placed.later_flags);
    }
    placed.central_ranks = in_first;
    return deliver(placed, into);
  }
  cuda::std::uint64_t const on_side =
      detail::own_side_word<cuda::std::uint64_t>(part_of(side).word)
          .fetch_add(static_cast<cuda::std::uint64_t>(weight) << side_count_shift, detail::memory_order_acq_rel);
  arrivals_placed placed;
  arrival_token const token = arrive_on_side(side, on_side, weight, false, &placed);
  if (!token.has(arrival_token::placed_beyond)) placed = arrivals_placed::one_phase(token);
  placed.weight = weight;
  return deliver(placed, into);
}

template <class CompletionFunction, class Backoff>
UNISYNC_HOST_DEVICE void basic_partitioned_barrier<CompletionFunction, Backoff>::complete_central_phase(
    side_kind side, cuda::std::uint32_t phase)
{
  using detail::across_sides;
  using detail::atomic_at;
  using detail::memory_order_relaxed;
  // Every arrival of the phase happened before this point, and each dropper counted its
  // drop before arriving, so every drop is counted here.
  auto drops = atomic_at<across_sides>(central_.drops);
  if (drops.load(memory_order_relaxed) != 0) central_.expected -= drops.exchange(0, memory_order_relaxed);
  auto const next = static_cast<cuda::std::uint64_t>(phase + 1) << phase_shift;
  bool const flat = atomic_at<across_sides>(central_.flat).load(memory_order_relaxed) != 0;
  if (flat) {
    central_.completion();
    // Releases the central waiters, and with them what the completion wrote.
    atomic_at<across_sides>(central_.phase_and_missing)
        .store(next | (central_bias + central_.expected), detail::memory_order_release);
    return;
  }
  // The split is now known from the side words, which every arrival of this phase (all
  // acquired above) counted on: arrivals in the count, drops down from learning_base.
  // Arrivals beyond the phase may have counted there too: then the participants are all
  // on the side that has a share (a refusal when both have: the split is unknown).
  cuda::std::uint64_t const cpu_learned = atomic_at<across_sides>(cpu_.word).load(memory_order_relaxed);
  cuda::std::uint64_t const gpu_learned = atomic_at<across_sides>(gpu_.word).load(memory_order_relaxed);
  auto share_of = [](cuda::std::uint64_t learned) {
    return count_of(learned) - (learning_base - participants_of(learned));
  };
  cuda::std::uint32_t cpu_share = share_of(cpu_learned);
  cuda::std::uint32_t gpu_share = share_of(gpu_learned);
  if (cpu_share + gpu_share != central_.expected) {
    UNISYNC_EXPECTS(cpu_share == 0 || gpu_share == 0,
                    "partitioned_barrier: more arrivals in the first phase than it expects, with participants on "
                    "both the CPU and the GPU; participants must not move between the CPU and the GPU");
    (cpu_share == 0 ? gpu_share : cpu_share) = central_.expected;
    (cpu_share == 0 ? cpu_share : gpu_share) = 0;
  }
  // The completion first: an arrival beyond this phase that finds its side armed goes on
  // there at once, and may complete the next phase, whose completion must come after
  // this one and see what it wrote.
  central_.completion();
  // Each side's share of the next phase in its report (a share of zero: the side takes no
  // part), then each side armed for it. The reports and the side words are touched by no
  // one else before these stores: an arrival's learning addition that lands before a side
  // word's store is overwritten by it, and that arrival counts on its side again after
  // the central release. Release: an arrival that finds its side armed acquires the
  // completion and the reports. Some of these stores cross the link, once.
  reports_.from_cpu = cpu_share;
  reports_.from_gpu = gpu_share;
  atomic_at<across_sides>(cpu_.word).store((gpu_share != 0 ? mixed_flag : 0) | cpu_share, detail::memory_order_release);
  atomic_at<across_sides>(gpu_.word).store((cpu_share != 0 ? mixed_flag : 0) | gpu_share, detail::memory_order_release);
  // Releases the central waiters. The count is the bias alone from now on: an arrival
  // beyond the first phase that comes later sees it and counts on its side. An exchange:
  // the count it replaces says how many arrivals beyond the phase came before it, which
  // this thread counts (acquire: their arrivals' writes, for the release it counts them
  // with).
  cuda::std::uint64_t const before_release =
      atomic_at<across_sides>(central_.phase_and_missing).exchange(next | central_bias, detail::memory_order_acq_rel);
  cuda::std::uint32_t const captured = central_bias - static_cast<cuda::std::uint32_t>(before_release & missing_mask);
  if (captured != 0) count_captured(side, captured, cpu_share, gpu_share);
}

template <class CompletionFunction, class Backoff>
UNISYNC_NOINLINE UNISYNC_HOST_DEVICE void basic_partitioned_barrier<CompletionFunction, Backoff>::count_captured(
    side_kind side, cuda::std::uint32_t captured, cuda::std::uint32_t cpu_share, cuda::std::uint32_t gpu_share)
{
  // The arrivals beyond the first phase that came before its release (their rank: the
  // order of their subtractions from the central word), counted by its last arriver
  // (`side`: its side) on the side of the participants, as one addition, after the arm.
  // It publishes where that addition landed, and each captured arrival's wait finds its
  // own phase there by its rank (resolve_captured). Only the side's own threads add to
  // its word (at its scope): with participants on both sides in the first phase (the
  // last arriver among them, or one side's dropping out), arrivals beyond it are refused,
  // in their waits as well, as they are when the last arriver sees them while learning.
  // Out of line, and returning nothing (the last arriver's own captured arrivals find
  // their phases as the others do): a call that returned the placement cost the common GPU
  // arrival, into whose code complete_central_phase is inlined, 10-22 more registers.
  using detail::across_sides;
  using detail::atomic_at;
  side_kind const participants_side = cpu_share != 0 ? side_kind::cpu : side_kind::gpu;
  bool const one_side = (cpu_share == 0) != (gpu_share == 0) && participants_side == side;
  if (!one_side) atomic_at<across_sides>(central_.captured).store(captured_published, detail::memory_order_release);
  UNISYNC_EXPECTS(one_side,
                  "partitioned_barrier: more arrivals in the first phase than it expects, with participants on "
                  "both the CPU and the GPU; participants must not move between the CPU and the GPU");
  cuda::std::uint64_t const on_side =
      detail::own_side_word<cuda::std::uint64_t>(part_of(side).word)
          .fetch_add(static_cast<cuda::std::uint64_t>(captured) << side_count_shift, detail::memory_order_acq_rel);
  arrivals_placed placed;
  arrival_token const token = arrive_on_side(side, on_side, captured, false, &placed);
  if (!token.has(arrival_token::placed_beyond)) placed = arrivals_placed::one_phase(token);
  // Release: a captured arrival's waiter that reads it acquires the arm and the reports.
  atomic_at<across_sides>(central_.captured)
      .store(captured_published | (side == side_kind::gpu ? captured_on_gpu : 0u) |
                 (static_cast<cuda::std::uint64_t>(placed.first.phase_) << captured_phase_shift) |
                 (static_cast<cuda::std::uint64_t>(placed.room) << captured_room_shift) | placed.participants,
             detail::memory_order_release);
}

template <class CompletionFunction, class Backoff>
UNISYNC_HOST_DEVICE bool basic_partitioned_barrier<CompletionFunction, Backoff>::resolve_captured(
    arrival_token& token, cuda::std::memory_order order) const
{
  // A captured arrival's token (see count_captured): false until its placement is
  // published; then the token of its rank's phase on the side, as place_alone's.
  auto& self = const_cast<basic_partitioned_barrier&>(*this);
  cuda::std::uint64_t const placement = detail::atomic_at<detail::across_sides>(self.central_.captured).load(order);
  if (placement == 0) return false;
  auto const participants = static_cast<cuda::std::uint32_t>(placement & side_participants_mask);
  side_kind const side = (placement & captured_on_gpu) != 0 ? side_kind::gpu : side_kind::cpu;
  UNISYNC_EXPECTS(participants != 0 && (side == side_kind::gpu) == token.has(arrival_token::on_gpu_side),
                  "partitioned_barrier: more arrivals in the first phase than it expects, with participants on "
                  "both the CPU and the GPU; participants must not move between the CPU and the GPU");
  auto const first = static_cast<cuda::std::uint32_t>(placement >> captured_phase_shift) & side_phase_mask;
  auto const room = static_cast<cuda::std::uint32_t>(placement >> captured_room_shift) & captured_room_mask;
  cuda::std::uint32_t const rank = token.phase_;
  cuda::std::uint32_t const phase = rank < room ? first : (first + 1u + (rank - room) / participants) & side_phase_mask;
  token = arrival_token(phase, token.weight_, alone_flags(side, participants));
  return true;
}

template <class CompletionFunction, class Backoff>
UNISYNC_NOINLINE UNISYNC_HOST_DEVICE bool basic_partitioned_barrier<CompletionFunction, Backoff>::lead_mixed_phase(
    side_kind side, cuda::std::uint32_t phase, cuda::std::uint32_t next_share)
{
  using detail::across_sides;
  using detail::atomic_at;
  side_kind const other = side == side_kind::gpu ? side_kind::cpu : side_kind::gpu;
  cuda::std::uint32_t const next_phase = (phase + 1) & side_phase_mask;
  cuda::std::uint64_t const my_report =
      (static_cast<cuda::std::uint64_t>(next_phase) << report_phase_shift) | next_share;
  auto mine = atomic_at<across_sides>(report_of(side));
  auto theirs = atomic_at<across_sides>(report_of(other));
  if constexpr (completes_in_arrival) {
    // Report, then look once at the other side's report: if it shows the other side
    // arrived (or absent), this side's phase has ended and this leader adds the carry;
    // if not, a waiter or the next arrival will. The GPU issues its read of the CPU's
    // report (about 1 us across the link) before the system-scope fence that releases its
    // report, so that the two overlap: the one fence is the acquire of what it read and
    // the release of the report (H100, one CPU thread and 132 blocks: 3.7-3.9 us per phase
    // reporting first, 4.2 us reading first).
    cuda::std::uint64_t seen = 0;
    if (side == side_kind::gpu) {
      seen = theirs.load(detail::memory_order_relaxed);
      cuda::atomic_thread_fence(detail::memory_order_acq_rel, across_sides);
      mine.store(my_report, detail::memory_order_relaxed);
    } else {
      mine.store(my_report, detail::memory_order_release);
      seen = theirs.load(detail::memory_order_acquire);
    }
    if (classify(seen, phase) == other_side::pending) return false;
    carry_as_leader(side, phase, seen, next_share);
    return true;
  } else {
    // Exactly one of the two leaders runs the completion. Each stores its report, then a
    // sequentially consistent fence, then reads the other's: at least one of them sees the
    // other's report (store buffering is forbidden with SC fences on both sides). The GPU
    // leader runs it if it saw the CPU's report (or the CPU takes no part), and says which
    // in its verdict; the CPU leader runs it if the GPU leader did not, which it learns
    // from that verdict when it saw the GPU's report (when it did not, the GPU leader
    // sees the CPU's and runs it).
    mine.store(my_report, detail::memory_order_release);
    cuda::atomic_thread_fence(detail::memory_order_seq_cst, across_sides);
    cuda::std::uint64_t const their_report = theirs.load(detail::memory_order_acquire);
    other_side const seen = classify(their_report, phase);
    auto verdict = atomic_at<across_sides>(reports_.gpu_verdict);
    bool runs = false;
    if (side == side_kind::gpu) {
      runs = seen != other_side::pending;
      verdict.store(
          (static_cast<cuda::std::uint64_t>(next_phase) << report_phase_shift) | (runs ? gpu_runs_completion : 0u),
          detail::memory_order_release);
    } else if (seen == other_side::absent) {
      runs = true;
    } else if (seen == other_side::arrived) {
      // The GPU leader has stored its report and is one read away from its verdict.
      cuda::std::uint64_t said = 0;
      detail::wait_for_turn<Backoff>([&](cuda::std::memory_order order) {
        said = verdict.load(order);
        return reported_at_least(said, next_phase) ? 0u : 1u;
      });
      // A later phase's verdict: the GPU ran this one, the phase has ended since.
      runs = static_cast<cuda::std::uint32_t>(said >> report_phase_shift) == next_phase &&
             (said & gpu_runs_completion) == 0;
    }
    if (!runs) return false;
    central_.completion();
    atomic_at<across_sides>(reports_.completed)
        .store(static_cast<cuda::std::uint64_t>(next_phase) << report_phase_shift, detail::memory_order_release);
    carry_as_leader(side, phase, their_report, next_share);
    return true;
  }
}

template <class CompletionFunction, class Backoff>
UNISYNC_NOINLINE UNISYNC_HOST_DEVICE bool basic_partitioned_barrier<CompletionFunction, Backoff>::phase_ended_across(
    cuda::std::uint32_t phase, cuda::std::memory_order order, side_kind side, bool reported,
    cuda::std::uint64_t& their_report) const
{
  // From either side, with loads only: the reports are in host memory. `their_report` is
  // what the side other than `side` reported, for try_carry; `reported`: `side`'s own
  // report is known to be stored (its leader asks), so only the other's is read.
  auto read = [&](side_kind whose) { return detail::atomic_at<detail::across_sides>(report_of(whose)).load(order); };
  side_kind const other = side == side_kind::gpu ? side_kind::cpu : side_kind::gpu;
  if constexpr (completes_in_arrival) {
    their_report = read(other);
    return classify(their_report, phase) != other_side::pending &&
           (reported || classify(read(side), phase) != other_side::pending);
  } else {
    auto& self = const_cast<basic_partitioned_barrier&>(*this);
    bool const ended = reported_at_least(detail::atomic_at<detail::across_sides>(self.reports_.completed).load(order),
                                         (phase + 1) & side_phase_mask);
    if (ended) their_report = read(other);
    return ended;
  }
}

template <class CompletionFunction, class Backoff>
UNISYNC_NOINLINE UNISYNC_HOST_DEVICE bool basic_partitioned_barrier<CompletionFunction, Backoff>::try_carry(
    side_kind side, cuda::std::uint32_t phase, cuda::std::uint64_t their_report, cuda::std::uint64_t awaiting) const
{
  // Called once the phase has ended on both sides, with what the other side reported and
  // the caller's view of the word awaiting the carry (not a fresh load: a failed exchange
  // loads it). Adds the carry unless someone of the side already did (a leader, a waiter,
  // or the next phase's first arrival): only the carry changes a word that awaits it, so
  // the exchange succeeds for exactly one of them. When the other side has left (a share
  // of zero), the carry also clears the mixed flag, and the side completes alone from then
  // on; a carry added by an arrival leaves the flag, and the next phase reads the report
  // as absent.
  detail::own_side_word<cuda::std::uint64_t> const word(part_of(side).word);
  cuda::std::uint64_t now = awaiting;
  while (phase_of(now) == phase && awaits_carry(now)) {
    cuda::std::uint64_t const carried = carried_word(now, their_report);
    // Release: the side's waiters acquire the reports' chain through this word.
    if (word.compare_exchange_strong(now, carried, detail::memory_order_acq_rel, detail::memory_order_acquire)) {
      open_next_phase(side, carried);
      return true;
    }
  }
  return phase_of(now) != phase;
}

template <class CompletionFunction, class Backoff>
UNISYNC_HOST_DEVICE void basic_partitioned_barrier<CompletionFunction, Backoff>::carry_as_leader(
    side_kind side, cuda::std::uint32_t phase, cuda::std::uint64_t their_report, cuda::std::uint32_t next_share) const
{
  // The side's leader, once the phase has ended on both sides: it knows the word that
  // awaits the carry (nothing else changes it before the carry), so one exchange either
  // adds the carry or finds that someone of the side (a waiter, the next phase's first
  // arrival) did. Either way the phase has ended for the leader, which has acquired its
  // side's arrivals (its own addition) and the other side's (the report): it needs neither
  // the exchange's result nor its acquire, so on the GPU it goes on without waiting for
  // that round trip to L2. Release: the side's waiters acquire the chain through the word.
  cuda::std::uint64_t expected = awaiting_word(phase, next_share);
  cuda::std::uint64_t const carried = carried_word(expected, their_report);
  detail::own_side_word<cuda::std::uint64_t> const word(part_of(side).word);
  if (side == side_kind::cpu) {
    if (word.compare_exchange_strong(expected, carried, detail::memory_order_release, detail::memory_order_relaxed)) {
      open_next_phase(side, carried);
    }
  } else {
    static_cast<void>(
        word.compare_exchange_strong(expected, carried, detail::memory_order_release, detail::memory_order_relaxed));
  }
}

template <class CompletionFunction, class Backoff>
UNISYNC_HOST_DEVICE constexpr cuda::std::uint64_t basic_partitioned_barrier<CompletionFunction, Backoff>::carried_word(
    cuda::std::uint64_t awaiting, cuda::std::uint64_t their_report) noexcept
{
  // When the other side has left (a share of zero), the carry also clears the mixed flag.
  bool const other_left = (their_report & missing_mask) == 0;
  return awaiting + (cuda::std::uint64_t{1} << side_count_shift) - (other_left ? mixed_flag : 0);
}

template <class CompletionFunction, class Backoff>
UNISYNC_HOST_DEVICE void basic_partitioned_barrier<CompletionFunction, Backoff>::open_next_phase(
    side_kind side, cuda::std::uint64_t word_after_carry) const
{
  // A hint (see side_part::open_parity), CPU side only: the waiters decide and synchronize
  // on the word.
  if (side != side_kind::cpu) return;
  detail::own_side_word<cuda::std::uint32_t>(part_of(side).open_parity)
      .store(phase_of(word_after_carry), detail::memory_order_relaxed);
}

template <class CompletionFunction, class Backoff>
UNISYNC_HOST_DEVICE cuda::std::uint32_t basic_partitioned_barrier<CompletionFunction, Backoff>::forecast_to_release(
    side_kind waiter, arrival_token const& token, cuda::std::memory_order order, cuda::std::uint32_t poll) const
{
  auto& self = const_cast<basic_partitioned_barrier&>(*this);
  if (token.has(arrival_token::central)) {
    cuda::std::uint64_t const now =
        detail::atomic_at<detail::across_sides>(self.central_.phase_and_missing).load(order);
    if (static_cast<cuda::std::uint32_t>(now >> phase_shift) != token.phase_) return 0;
    auto const biased = static_cast<cuda::std::uint32_t>(now & missing_mask);
    // None missing: the last arriver is completing the phase.
    if (biased <= central_bias) return 1;
    cuda::std::uint32_t const missing = biased - central_bias;
    return detail::forecast_ns(missing / token.weight_ + (missing % token.weight_ != 0 ? 1u : 0u),
                               Backoff::tuning::barrier_arrival_ns);
  }
  side_kind const side = token.has(arrival_token::on_gpu_side) ? side_kind::gpu : side_kind::cpu;
  if (side != waiter) {
    // A token of the other side's arrival: loads only, never a read-modify-write on the
    // other side's word. A mixed phase ends through the reports; a phase of that side
    // alone when its word shows a later phase.
    cuda::std::uint64_t their_report = 0;
    bool const ended = token.has(arrival_token::mixed)
                           ? phase_ended_across(token.phase_, order, side, false, their_report)
                           : side_phase_passed(
                                 phase_of(detail::atomic_at<detail::across_sides>(part_of(side).word).load(order)),
                                 token.phase_);
    return ended ? 0u : Backoff::tuning::link_handoff_ns;
  }
  if (token.has(arrival_token::leads_side)) {
    // The side's leader: every arrival of its side is in, and its report stored. It reads
    // the other side's report, not its own word (on the GPU a read across the link per
    // poll is the wait; a word read before it would lengthen every poll), and adds the
    // carry once the phase has ended; a failed exchange means someone of the side did.
    cuda::std::uint64_t their_report = 0;
    if (!phase_ended_across(token.phase_, order, side, true, their_report)) return 1;
    carry_as_leader(side, token.phase_, their_report, token.next_share_);
    return 0;
  }
  // A CPU waiter among many polls the hint (see side_part::open_parity) until it shows
  // another phase, then the word; every 64th poll looks at the word whatever the hint says.
  if (token.has(arrival_token::polls_open_parity) && (poll & 63u) != 0 &&
      detail::own_side_word<cuda::std::uint32_t>(self.cpu_.open_parity).load(detail::memory_order_relaxed) ==
          token.phase_) {
    return 1;
  }
  cuda::std::uint64_t const now = detail::own_side_word<cuda::std::uint64_t>(part_of(side).word).load(order);
  if (phase_of(now) != token.phase_) {
    // Released once its phase has completed. A token of a phase after the open one (an
    // addition that counted arrivals beyond it) waits at least that phase out.
    return side_phase_passed(phase_of(now), token.phase_) ? 0u : 1u;
  }
  cuda::std::uint32_t const count = count_of(now);
  // Not armed yet: poll again soon.
  if (count < side_armed_min) return 1;
  if (awaits_carry(now)) {
    // All of this side arrived; the phase ends through the reports, which its leader
    // reads. The others read them only once it seems not to wait, and then rarely: on the
    // GPU each read crosses the link, and the CPU's reads take the lines the GPU reads.
    bool const reads_reports = poll % Backoff::tuning::report_poll_interval == 0;
    cuda::std::uint64_t their_report = 0;
    if (reads_reports && phase_ended_across(token.phase_, order, side, false, their_report) &&
        try_carry(side, token.phase_, their_report, now)) {
      return 0;
    }
    return 1;
  }
  // Missing arrivals in units of the waiter's own arrival (a block waits for blocks);
  // none missing: the side's leader is running the completion.
  cuda::std::uint32_t const stop = side_stop(now);
  if (count >= stop) return 1;
  cuda::std::uint32_t const missing = stop - count;
  cuda::std::uint32_t const units = missing / token.weight_ + (missing % token.weight_ != 0 ? 1u : 0u);
  return detail::forecast_ns(units, Backoff::tuning::barrier_arrival_ns);
}

template <class CompletionFunction, class Backoff>
UNISYNC_HOST_DEVICE void basic_partitioned_barrier<CompletionFunction, Backoff>::wait(arrival_token&& token) const
{
  wait_as(running_side(), static_cast<arrival_token&&>(token));
}

template <class CompletionFunction, class Backoff>
UNISYNC_HOST_DEVICE void basic_partitioned_barrier<CompletionFunction, Backoff>::wait_as(side_kind waiter,
                                                                                         arrival_token&& token) const
{
  // Its addition (or its leader's carry) completed and acquired the phase.
  if (token.has(arrival_token::completed_phase)) return;
  if (token.has(arrival_token::captured)) {
    detail::wait_for_turn<Backoff>(
        [&](cuda::std::memory_order order) { return resolve_captured(token, order) ? 0u : 1u; });
  }
  cuda::std::uint32_t polls = 0;
  detail::wait_for_turn<Backoff>(
      [&](cuda::std::memory_order order) { return forecast_to_release(waiter, token, order, ++polls); });
}

template <class CompletionFunction, class Backoff>
UNISYNC_HOST_DEVICE bool basic_partitioned_barrier<CompletionFunction, Backoff>::try_wait(
    arrival_token const& token) const
{
  // Poll number 0: the word, not the hint, and the reports if the phase awaits them (a
  // try_wait loop must end the phase even when the side's leader never waits).
  if (token.has(arrival_token::completed_phase)) return true;
  arrival_token placed = token;
  if (placed.has(arrival_token::captured) && !resolve_captured(placed, detail::memory_order_acquire)) return false;
  return forecast_to_release(running_side(), placed, detail::memory_order_acquire, 0) == 0;
}

template <class CompletionFunction, class Backoff>
UNISYNC_HOST_DEVICE bool basic_partitioned_barrier<CompletionFunction, Backoff>::try_wait_within(
    side_kind waiter, arrival_token const& token, cuda::std::uint64_t timeout_ns) const
{
  if (token.has(arrival_token::completed_phase)) return true;
  arrival_token placed = token;
  cuda::std::uint32_t polls = 0;
  return detail::wait_for_turn_until<Backoff>(detail::deadline::after(timeout_ns), [&](cuda::std::memory_order order) {
    if (placed.has(arrival_token::captured) && !resolve_captured(placed, order)) return 1u;
    return forecast_to_release(waiter, placed, order, polls++);
  });
}

template <class CompletionFunction, class Backoff>
UNISYNC_HOST_DEVICE void basic_partitioned_barrier<CompletionFunction, Backoff>::arrive_and_wait()
{
  // On the device, the threads of a warp that call this together on this barrier arrive
  // as one addition; on a side alone, lanes beyond the open phase count in the next ones,
  // and each lane is released when its own phase completes.
  NV_IF_ELSE_TARGET(NV_IS_DEVICE,
                    (detail::lanes_arrive_and_wait(
                         this, [this](cuda::std::uint32_t lanes) { return arrive_placed(side_kind::gpu, lanes); },
                         [this](arrival_token&& token) { wait(static_cast<arrival_token&&>(token)); });),
                    (wait(arrive());))
}

template <class CompletionFunction, class Backoff>
UNISYNC_HOST_DEVICE void basic_partitioned_barrier<CompletionFunction, Backoff>::arrive_and_drop()
{
  // One arrival and one participant fewer (see arrive_as and drop_alone).
  static_cast<void>(arrive_as(running_side(), 1, true, nullptr));
}

#if defined(__CUDACC__)
template <class CompletionFunction, class Backoff>
template <class Group, class>
__device__ void basic_partitioned_barrier<CompletionFunction, Backoff>::arrive_and_wait(Group const& group)
{
  detail::group_arrive_and_wait(group, *this);
}
#endif  // defined(__CUDACC__)

template <class CompletionFunction, class Backoff>
void basic_partitioned_barrier<CompletionFunction, Backoff>::advise_placement(basic_partitioned_barrier* barrier,
                                                                              int device)
{
  if (device_capabilities(device).host_native_atomic_supported) {
    barrier->central_.flat = 1;
    return;  // one coherent system-wide word: no side prefers any memory
  }
  detail::advise_managed(&barrier->cpu_, sizeof(side_part), memory_advice::prefer_host, device);
  detail::advise_managed(&barrier->reports_, sizeof(report_part), memory_advice::prefer_host, device);
  detail::advise_managed(&barrier->gpu_, sizeof(side_part), memory_advice::prefer_device, device);
}

}  // namespace unisync
