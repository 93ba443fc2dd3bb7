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
UNISYNC_HOST_DEVICE typename basic_partitioned_barrier<CompletionFunction, Backoff>::side_part&
basic_partitioned_barrier<CompletionFunction, Backoff>::my_side() const
{
  auto& self = const_cast<basic_partitioned_barrier&>(*this);
  return detail::running_on_device() ? self.gpu_ : self.cpu_;
}

template <class CompletionFunction, class Backoff>
UNISYNC_FORCE_INLINE UNISYNC_HOST_DEVICE typename basic_partitioned_barrier<CompletionFunction, Backoff>::arrival_token
basic_partitioned_barrier<CompletionFunction, Backoff>::arrive(cuda::std::ptrdiff_t update)
{
  UNISYNC_ASSERT(update > 0 && update <= max(), "partitioned_barrier::arrive(update) needs 0 < update <= max()");
  return arrive_counting(static_cast<cuda::std::uint32_t>(update), false);
}

template <class CompletionFunction, class Backoff>
UNISYNC_FORCE_INLINE UNISYNC_HOST_DEVICE typename basic_partitioned_barrier<CompletionFunction, Backoff>::arrival_token
basic_partitioned_barrier<CompletionFunction, Backoff>::arrive_counting(cuda::std::uint32_t weight, bool drop)
{
  side_part& side = my_side();
  // Every arrival adds to its side's word first: one atomic, in the side's own memory,
  // that both counts the arrival and tells (learning flag) whether the side counts on
  // its own yet. Release publishes the arrival; acquire makes the side's last arrival
  // acquire every earlier one without a fence or load after it. A drop takes one
  // participant away in the same addition (no borrow: the dropper is one of them).
  cuda::std::uint64_t const delta = (static_cast<cuda::std::uint64_t>(weight) << side_count_shift) - (drop ? 1u : 0u);
  cuda::std::uint64_t const before =
      detail::own_side_word<cuda::std::uint64_t>(side.word).fetch_add(delta, detail::memory_order_acq_rel);
  if ((before & learning_flag) == 0) return arrive_on_side(side, before, weight, drop);
  // The first phase, or flat mode: the addition only counted this side's arrival (and
  // drop) for learning the split; the phase itself runs on the central word. A drop is
  // counted there before arriving, so that the phase's last arriver sees it.
  if (drop) detail::atomic_at<detail::across_sides>(central_.drops).fetch_add(1, detail::memory_order_relaxed);
  return arrive_central(weight);
}

template <class CompletionFunction, class Backoff>
UNISYNC_HOST_DEVICE constexpr cuda::std::uint32_t basic_partitioned_barrier<CompletionFunction, Backoff>::side_step(
    cuda::std::uint64_t word) noexcept
{
  // 1: the phase's additions stop one short of the carry, which the leader adds after the
  // handshake or the completion. The mixed flag changes only with a carry, so every
  // addition of a phase reads the same flag.
  return (word & mixed_flag) != 0 || !completes_in_arrival ? 1u : 0u;
}

template <class CompletionFunction, class Backoff>
UNISYNC_FORCE_INLINE UNISYNC_HOST_DEVICE typename basic_partitioned_barrier<CompletionFunction, Backoff>::arrival_token
basic_partitioned_barrier<CompletionFunction, Backoff>::arrive_on_side(side_part& side, cuda::std::uint64_t before,
                                                                       cuda::std::uint32_t weight, bool drop)
{
  // basic_barrier's carry scheme (see barrier.hpp) on the side's word, with a step that
  // depends on the mixed flag.
  detail::own_side_word<cuda::std::uint64_t> const word(side.word);
  cuda::std::uint32_t const step = side_step(before);
  cuda::std::uint64_t const target = (cuda::std::uint64_t{1} << 32) - step;
  auto const count = static_cast<cuda::std::uint32_t>(before >> side_count_shift);
  auto const participants = static_cast<cuda::std::uint32_t>(before & side_participants_mask);
  // An armed count is at least 2^31 (shares are below 2^22); below that the count holds
  // the arrivals that came before the phase's first arrival armed it.
  bool const armed = count >= 0x80000000u;
  char const* const too_many =
      "partitioned_barrier: more arrivals on this side (CPU or GPU) than it had in the previous phase; "
      "after the first phase participants must not move between the CPU and the GPU";
  UNISYNC_EXPECTS(weight <= (armed ? target - count : participants), too_many);
  auto const parity = static_cast<cuda::std::uint32_t>(before >> side_parity_shift);
  cuda::std::uint64_t reached = static_cast<cuda::std::uint64_t>(count) + weight;
  // The participants after this phase's drops, as the addition that completes it reads them.
  cuda::std::uint32_t next_share = participants - (drop ? 1u : 0u);
  bool const first = count == 0;
  if (first) {
    // Arms the phase for the participants its own result shows (every drop of the previous
    // phase came before, and no one else's of this one). Acquire: if every arrival came
    // before it, it completes the phase.
    cuda::std::uint64_t const arm = target - participants;
    cuda::std::uint64_t const before_arm = word.fetch_add(arm << side_count_shift, detail::memory_order_acquire);
    reached = static_cast<cuda::std::uint64_t>(static_cast<cuda::std::uint32_t>(before_arm >> side_count_shift)) + arm;
    next_share = static_cast<cuda::std::uint32_t>(before_arm & side_participants_mask);
    // Cheap here, and it catches arrivals that slipped in before the arm.
    UNISYNC_EXPECTS(reached <= target, too_many);
  }
  if (reached == (cuda::std::uint64_t{1} << 32)) {
    open_next_phase(side, before);
    return arrival_token(parity, weight, arrival_token::completed_phase);
  }
  if (reached == target && step == 1) {
    complete_side_phase(side, next_share, (before & mixed_flag) != 0);
    return arrival_token(parity, weight, arrival_token::completed_phase);
  }
  // With a completion function, the side's first arriver on the GPU fetches the CPU's
  // report while the others gather (in wait(), which may block; arrive() must not): the
  // leader then finds it in device memory instead of reading across the link after the
  // gathering. (With the default completion the leader reads it while its own report's
  // fence drains, which costs no more.)
  bool const fetches_report =
      !completes_in_arrival && detail::running_on_device() && first && (before & mixed_flag) != 0;
  bool const polls_open_parity =
      !detail::running_on_device() && participants >= Backoff::tuning::host_hint_min_participants;
  return arrival_token(parity, weight,
                       (fetches_report ? arrival_token::fetches_report : 0u) |
                           (polls_open_parity ? arrival_token::polls_open_parity : 0u));
}

template <class CompletionFunction, class Backoff>
UNISYNC_HOST_DEVICE typename basic_partitioned_barrier<CompletionFunction, Backoff>::arrival_token
basic_partitioned_barrier<CompletionFunction, Backoff>::arrive_central(cuda::std::uint32_t weight)
{
  auto word = detail::atomic_at<detail::across_sides>(central_.phase_and_missing);
  // Acquire as on a side: the last arrival acquires every earlier one.
  cuda::std::uint64_t const before = word.fetch_sub(weight, detail::memory_order_acq_rel);
  auto const missing = static_cast<cuda::std::uint32_t>(before & missing_mask);
  auto const phase = static_cast<cuda::std::uint32_t>(before >> phase_shift);
  UNISYNC_ASSERT(weight <= missing, "partitioned_barrier::arrive(update) with update above the arrivals missing");
  if (missing == weight) complete_central_phase(phase);
  return arrival_token(phase, weight, arrival_token::central);
}

template <class CompletionFunction, class Backoff>
UNISYNC_HOST_DEVICE void basic_partitioned_barrier<CompletionFunction, Backoff>::complete_central_phase(
    cuda::std::uint32_t phase)
{
  using detail::across_sides;
  using detail::atomic_at;
  using detail::memory_order_relaxed;
  // Every arrival of the phase happened before this point, and each dropper counted its
  // drop before arriving, so every drop is counted here.
  auto drops = atomic_at<across_sides>(central_.drops);
  if (drops.load(memory_order_relaxed) != 0) central_.expected -= drops.exchange(0, memory_order_relaxed);
  auto const next = static_cast<cuda::std::uint64_t>(phase + 1) << phase_shift;
  if (atomic_at<across_sides>(central_.flat).load(memory_order_relaxed) == 0) {
    // The split is now known from the side words, which every arrival of this phase (all
    // acquired above) counted on: arrivals in the count, drops down from learning_base.
    // Arm each side for the next phase with its share; no one touches a side word until
    // the release below. One of these stores crosses the link, once.
    auto share_of = [](side_part const& side) {
      auto const arrivals = static_cast<cuda::std::uint32_t>(side.word >> side_count_shift);
      auto const dropped = learning_base - static_cast<cuda::std::uint32_t>(side.word & side_participants_mask);
      return arrivals - dropped;
    };
    cuda::std::uint32_t const cpu_share = share_of(cpu_);
    cuda::std::uint32_t const gpu_share = share_of(gpu_);
    auto const side_phase = static_cast<cuda::std::uint32_t>((phase + 1) & side_phase_mask);
    cpu_.handshake_phase = gpu_.handshake_phase = side_phase;
    cpu_.word = (gpu_share != 0 ? mixed_flag : 0) | cpu_share;
    gpu_.word = (cpu_share != 0 ? mixed_flag : 0) | gpu_share;
  }
  central_.completion();
  // Releases the central waiters, and with them everything written above.
  atomic_at<across_sides>(central_.phase_and_missing).store(next | central_.expected, detail::memory_order_release);
}

template <class CompletionFunction, class Backoff>
UNISYNC_HOST_DEVICE void basic_partitioned_barrier<CompletionFunction, Backoff>::complete_side_phase(
    side_part& side, cuda::std::uint32_t next_share, bool mixed)
{
  using detail::across_sides;
  using detail::atomic_at;
  detail::own_side_word<cuda::std::uint64_t> const word(side.word);
  // One more in the count: the step the phase's additions stopped short of.
  cuda::std::uint64_t const carry = cuda::std::uint64_t{1} << side_count_shift;
  if (!mixed) {
    // The other side takes no part: this side completes alone, with its completion.
    central_.completion();
    open_next_phase(side, word.fetch_add(carry, detail::memory_order_release));
    return;
  }
  detail::own_side_word<cuda::std::uint32_t> const handshakes(side.handshake_phase);
  cuda::std::uint32_t const next_phase = (handshakes.load(detail::memory_order_relaxed) + 1) & side_phase_mask;
  handshakes.store(next_phase, detail::memory_order_relaxed);
  cuda::std::uint64_t const my_report = (static_cast<cuda::std::uint64_t>(next_phase) << report_phase_shift) | next_share;
  // The carry releases the side; when the other side reports no participants left, the
  // same addition clears the mixed flag, and the side completes alone from then on.
  // A report of a later phase (the other side already went on, see below) shows that the
  // other side has participants in it: only a report of this phase can say it has none.
  auto release_side = [&](cuda::std::uint64_t other_report) {
    bool const other_left = static_cast<cuda::std::uint32_t>(other_report >> report_phase_shift) == next_phase &&
                            (other_report & missing_mask) == 0;
    open_next_phase(side, word.fetch_add(carry - (other_left ? mixed_flag : 0), detail::memory_order_release));
  };
  // The CPU reports first and waits for the GPU's report.
  if (!detail::running_on_device()) {
    atomic_at<across_sides>(reports_.from_cpu).store(my_report, detail::memory_order_release);
    release_side(wait_for_report(reports_.from_gpu, next_phase));
  } else if constexpr (completes_in_arrival) {
    // Nothing to run once per phase: the GPU reports first too, and each side releases
    // itself once it sees the other's report, so that a phase costs one crossing of the
    // link in each direction, in parallel, instead of a round trip (H100 traces, one CPU
    // thread and 132 blocks: 4.2 us between GPU leaders that read before they reported,
    // 2.0 of them waiting for the CPU's report; 3.7-3.9 us reporting first). A side may
    // then see the other's report of the phase after; release_side reads it as such.
    release_side(report_gpu_then_read_cpu(my_report, next_phase));
  } else {
    // The GPU runs the completion while GPU threads take part: it waits for the CPU's
    // report, runs the completion, releases its side, then reports, so that the GPU's
    // report also says the completion has run. The GPU side, which gathers more arrivals
    // over a slower path, is usually the last to arrive: then a phase costs one crossing
    // on its critical path instead of a round trip (measured on the H100 with the CPU
    // completing: 6.7-9.4 us per mixed phase).
    cuda::std::uint64_t const cpu_report = cpu_report_for(next_phase);
    central_.completion();
    // Device scope releases this side's own waiters: the acquire of the CPU's report was
    // system-scope, and causality chains across scopes. The report goes out after, so the
    // GPU's waiters do not wait for the system-scope fence in front of it.
    release_side(cpu_report);
    atomic_at<across_sides>(reports_.from_gpu).store(my_report, detail::memory_order_release);
  }
}

template <class CompletionFunction, class Backoff>
UNISYNC_HOST_DEVICE void basic_partitioned_barrier<CompletionFunction, Backoff>::open_next_phase(
    side_part& side, cuda::std::uint64_t word_in_closed_phase)
{
  // A hint (see side_part::open_parity): the waiters decide and synchronize on the word.
  NV_IF_TARGET(NV_IS_HOST, (detail::own_side_word<cuda::std::uint32_t>(side.open_parity)
                                .store(static_cast<cuda::std::uint32_t>(word_in_closed_phase >> side_parity_shift) ^ 1u,
                                       detail::memory_order_relaxed);))
}

template <class CompletionFunction, class Backoff>
UNISYNC_HOST_DEVICE cuda::std::uint64_t basic_partitioned_barrier<CompletionFunction, Backoff>::report_gpu_then_read_cpu(
    cuda::std::uint64_t my_report, cuda::std::uint32_t next_phase)
{
  using detail::across_sides;
  using detail::atomic_at;
  // The read of the CPU's report crosses the link (about 1 us) while the fence that
  // releases this side's arrivals to the CPU drains (0.7-1 us on the H100): the one
  // system-scope fence is the acquire of what it read and the release of the report.
  cuda::std::uint64_t const seen = atomic_at<across_sides>(reports_.from_cpu).load(detail::memory_order_relaxed);
  cuda::atomic_thread_fence(detail::memory_order_acq_rel, across_sides);
  atomic_at<across_sides>(reports_.from_gpu).store(my_report, detail::memory_order_relaxed);
  return reported_at_least(seen, next_phase) ? seen : wait_for_report(reports_.from_cpu, next_phase);
}

template <class CompletionFunction, class Backoff>
UNISYNC_HOST_DEVICE cuda::std::uint64_t
basic_partitioned_barrier<CompletionFunction, Backoff>::cpu_report_for(cuda::std::uint32_t next_phase)
{
  // The phase's first GPU arriver has usually copied it into device memory already. Taking
  // the copy (not just reading it) keeps a copy from outliving its phase: a copy left
  // untouched for 2^19 handshakes (one GPU arrival per phase never copies) would pass the
  // wrapping comparison for a later phase.
  cuda::std::uint64_t const copied =
      detail::own_side_word<cuda::std::uint64_t>(gpu_.cpu_report_copy).exchange(no_report, detail::memory_order_acquire);
  if ((copied & no_report) == 0 && reported_at_least(copied, next_phase)) {
    UNISYNC_ASSERT(static_cast<cuda::std::uint32_t>(copied >> report_phase_shift) == next_phase,
                   "partitioned_barrier: the copied report is of a later phase than the one completing");
    return copied;
  }
  return wait_for_report(reports_.from_cpu, next_phase);
}

template <class CompletionFunction, class Backoff>
UNISYNC_HOST_DEVICE void basic_partitioned_barrier<CompletionFunction, Backoff>::copy_cpu_report(
    arrival_token const& token)
{
  // Polls the CPU's report across the link while this side's phase is open; once it shows
  // the next phase, copies it to device memory for the leader. Stops when the phase ends,
  // the leader then having read the report itself.
  auto const next_phase =
      (detail::own_side_word<cuda::std::uint32_t>(gpu_.handshake_phase).load(detail::memory_order_relaxed) + 1) &
      side_phase_mask;
  auto report = detail::atomic_at<detail::across_sides>(reports_.from_cpu);
  detail::own_side_word<cuda::std::uint64_t> const word(gpu_.word);
  while (static_cast<cuda::std::uint32_t>(word.load(detail::memory_order_relaxed) >> side_parity_shift) ==
         token.phase_) {
    // Acquire what the CPU released with its report (an acquire load costs about what a
    // relaxed one does; a fence after it would not), and pass it on to the leader.
    cuda::std::uint64_t const seen = report.load(detail::memory_order_acquire);
    if (reported_at_least(seen, next_phase)) {
      detail::own_side_word<cuda::std::uint64_t>(gpu_.cpu_report_copy).store(seen, detail::memory_order_release);
      return;
    }
  }
}

template <class CompletionFunction, class Backoff>
UNISYNC_HOST_DEVICE constexpr bool basic_partitioned_barrier<CompletionFunction, Backoff>::reported_at_least(
    cuda::std::uint64_t report, cuda::std::uint32_t next_phase) noexcept
{
  // A report is the awaited phase's or, when both sides report before they wait (the
  // default completion), the next one's (the model in test/models checks it): compared as
  // a wrapping 20-bit counter; an unsigned >= would accept the previous report once
  // phases wrap.
  auto const reported = static_cast<cuda::std::uint32_t>(report >> report_phase_shift);
  return static_cast<cuda::std::int32_t>((reported - next_phase) << (32 - 20)) >= 0;
}

template <class CompletionFunction, class Backoff>
UNISYNC_HOST_DEVICE cuda::std::uint64_t basic_partitioned_barrier<CompletionFunction, Backoff>::wait_for_report(
    cuda::std::uint64_t const& report, cuda::std::uint32_t next_phase) const
{
  auto word = detail::atomic_at<detail::across_sides>(const_cast<cuda::std::uint64_t&>(report));
  cuda::std::uint64_t seen = 0;
  detail::wait_for_turn<Backoff>(
      [&](cuda::std::memory_order order) {
        seen = word.load(order);
        // Poll at once again: on the GPU each poll is itself a read across the link (~1 us).
        return reported_at_least(seen, next_phase) ? 0u : 1u;
      });
  UNISYNC_ASSERT(static_cast<cuda::std::uint32_t>(seen >> report_phase_shift) == next_phase ||
                     (completes_in_arrival &&
                      static_cast<cuda::std::uint32_t>(seen >> report_phase_shift) == ((next_phase + 1) & side_phase_mask)),
                 "partitioned_barrier: the other side reported a phase beyond the one completing and the next");
  return seen;
}

template <class CompletionFunction, class Backoff>
UNISYNC_HOST_DEVICE cuda::std::uint32_t basic_partitioned_barrier<CompletionFunction, Backoff>::forecast_to_release(
    arrival_token const& token, cuda::std::memory_order order, bool trust_hint) const
{
  auto& self = const_cast<basic_partitioned_barrier&>(*this);
  cuda::std::uint32_t missing = 0;
  if (token.has(arrival_token::central)) {
    cuda::std::uint64_t const now = detail::atomic_at<detail::across_sides>(self.central_.phase_and_missing).load(order);
    if (static_cast<cuda::std::uint32_t>(now >> phase_shift) != token.phase_) return 0;
    missing = static_cast<cuda::std::uint32_t>(now & missing_mask);
  } else if (trust_hint && token.has(arrival_token::polls_open_parity) &&
             detail::own_side_word<cuda::std::uint32_t>(self.cpu_.open_parity).load(detail::memory_order_relaxed) ==
                 token.phase_) {
    // A CPU waiter among many polls the hint (see side_part::open_parity) until it shows
    // another phase, then the word. On the host every forecast below some 500 missing
    // arrivals spins anyway.
    return 1;
  } else {
    cuda::std::uint64_t const now = detail::own_side_word<cuda::std::uint64_t>(my_side().word).load(order);
    if (static_cast<cuda::std::uint32_t>(now >> side_parity_shift) != token.phase_) return 0;
    auto const count = static_cast<cuda::std::uint32_t>(now >> side_count_shift);
    // Not armed yet: poll again soon. Armed: the arrivals missing before the side's
    // additions reach the step short of the carry.
    if (count < 0x80000000u) return 1;
    missing = 0u - side_step(now) - count;
  }
  // All of this side arrived and its leader is handshaking with the other side: poll
  // often, the words polled are in this side's own memory.
  if (missing == 0) return 1;
  cuda::std::uint32_t const units = missing / token.weight_ + (missing % token.weight_ != 0 ? 1u : 0u);
  return detail::forecast_ns(units, Backoff::tuning::barrier_arrival_ns);
}

template <class CompletionFunction, class Backoff>
UNISYNC_HOST_DEVICE void basic_partitioned_barrier<CompletionFunction, Backoff>::wait(arrival_token&& token) const
{
  // Its addition completed and acquired the phase.
  if (token.has(arrival_token::completed_phase)) return;
  if (token.has(arrival_token::fetches_report)) const_cast<basic_partitioned_barrier&>(*this).copy_cpu_report(token);
  detail::hint_polls hint;
  auto forecast = [&](cuda::std::memory_order order) { return forecast_to_release(token, order, hint.trust_next()); };
  detail::wait_for_turn<Backoff>(forecast);
}

template <class CompletionFunction, class Backoff>
UNISYNC_HOST_DEVICE bool basic_partitioned_barrier<CompletionFunction, Backoff>::try_wait(
    arrival_token const& token) const
{
  // The word, not the hint: the phase has completed once the word says so.
  return token.has(arrival_token::completed_phase) ||
         forecast_to_release(token, detail::memory_order_acquire, false) == 0;
}

template <class CompletionFunction, class Backoff>
UNISYNC_HOST_DEVICE bool basic_partitioned_barrier<CompletionFunction, Backoff>::try_wait_within(
    arrival_token const& token, cuda::std::uint64_t timeout_ns) const
{
  if (token.has(arrival_token::completed_phase)) return true;
  // No report copy here: a timed wait must not spend its time across the link.
  detail::hint_polls hint;
  return detail::wait_for_turn_until<Backoff>(
      detail::deadline::after(timeout_ns),
      [&](cuda::std::memory_order order) { return forecast_to_release(token, order, hint.trust_next()); });
}

template <class CompletionFunction, class Backoff>
UNISYNC_HOST_DEVICE void basic_partitioned_barrier<CompletionFunction, Backoff>::arrive_and_wait()
{
  NV_IF_ELSE_TARGET(NV_IS_DEVICE, (detail::group_arrive_and_wait(cooperative_groups::coalesced_threads(), *this);),
                    (wait(arrive());))
}

template <class CompletionFunction, class Backoff>
UNISYNC_HOST_DEVICE void basic_partitioned_barrier<CompletionFunction, Backoff>::arrive_and_drop()
{
  // One arrival and one participant fewer in the same addition on the side's word (and,
  // in a central phase, a drop counted on the central word).
  static_cast<void>(arrive_counting(1, true));
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
