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
UNISYNC_HOST_DEVICE typename basic_partitioned_barrier<CompletionFunction, Backoff>::arrival_token
basic_partitioned_barrier<CompletionFunction, Backoff>::arrive(cuda::std::ptrdiff_t update)
{
  UNISYNC_ASSERT(update > 0 && update <= max(), "partitioned_barrier::arrive(update) needs 0 < update <= max()");
  auto const weight = static_cast<cuda::std::uint32_t>(update);
  side_part& side = my_side();
  // Relaxed: the first phase's last arriver sets the flag before it releases that phase,
  // and a later arrival comes after its wait for it.
  if (detail::own_side_word<cuda::std::uint32_t>(side.partitioned).load(detail::memory_order_relaxed) == 0) {
    return arrive_central(weight);
  }
  return arrive_on_side(side, weight, false);
}

template <class CompletionFunction, class Backoff>
UNISYNC_HOST_DEVICE typename basic_partitioned_barrier<CompletionFunction, Backoff>::arrival_token
basic_partitioned_barrier<CompletionFunction, Backoff>::arrive_on_side(side_part& side, cuda::std::uint32_t weight,
                                                                       bool drop)
{
  detail::own_side_word<cuda::std::uint64_t> const word(side.phase_and_missing);
  // A drop counts one arrival and one drop in the same operation: its leader reads every
  // drop of the phase from its own arrival's result, without another load.
  cuda::std::uint64_t const delta = drop ? (cuda::std::uint64_t{1} << side_drops_shift) - 1 : weight;
  // Release publishes the arrival; acquire makes the side's last arrival acquire every
  // earlier one without a fence or load after it.
  cuda::std::uint64_t const before = drop ? word.fetch_add(delta, detail::memory_order_acq_rel)
                                          : word.fetch_sub(delta, detail::memory_order_acq_rel);
  auto const missing = static_cast<cuda::std::uint32_t>(before & field_mask);
  auto const phase = static_cast<cuda::std::uint32_t>(before >> side_phase_shift);
  UNISYNC_EXPECTS(weight <= missing,
                  "partitioned_barrier: more arrivals on this side (CPU or GPU) than it had in the previous phase; "
                  "after the first phase participants must not move between the CPU and the GPU");
  if (missing == weight) {
    cuda::std::uint64_t const after = drop ? before + delta : before - delta;
    complete_side_phase(side, !detail::running_on_device(), phase,
                        static_cast<cuda::std::uint32_t>((after >> side_drops_shift) & field_mask));
    return arrival_token(phase, weight, false, false);
  }
  // The side's first arriver, on the GPU, fetches the CPU's report while the others gather
  // (in wait(), which may block; arrive() must not): the leader then finds it in device
  // memory instead of reading across the link after the gathering.
  bool const fetches_report = detail::running_on_device() && !drop && missing == side.share && side.other_share != 0;
  return arrival_token(phase, weight, false, fetches_report);
}

template <class CompletionFunction, class Backoff>
UNISYNC_HOST_DEVICE typename basic_partitioned_barrier<CompletionFunction, Backoff>::arrival_token
basic_partitioned_barrier<CompletionFunction, Backoff>::arrive_central(cuda::std::uint32_t weight)
{
  if (detail::atomic_at<detail::across_sides>(central_.flat).load(detail::memory_order_relaxed) == 0) {
    // The first phase: count the side's arrivals, to learn the split. Side-local RMW.
    detail::own_side_word<cuda::std::uint32_t>(my_side().first_phase_arrivals)
        .fetch_add(weight, detail::memory_order_relaxed);
  }
  auto word = detail::atomic_at<detail::across_sides>(central_.phase_and_missing);
  // Acquire as on a side: the last arrival acquires every earlier one.
  cuda::std::uint64_t const before = word.fetch_sub(weight, detail::memory_order_acq_rel);
  auto const missing = static_cast<cuda::std::uint32_t>(before & missing_mask);
  auto const phase = static_cast<cuda::std::uint32_t>(before >> phase_shift);
  UNISYNC_ASSERT(weight <= missing, "partitioned_barrier::arrive(update) with update above the arrivals missing");
  if (missing == weight) {
    complete_central_phase(phase);
  }
  return arrival_token(phase, weight, true, false);
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
    // The split is now known: arm each side's word for the next phase with its share. One
    // of these stores crosses the link (a page fault when it is the CPU's turn), once.
    cuda::std::uint32_t const cpu_share = cpu_.first_phase_arrivals - cpu_.first_phase_drops;
    cuda::std::uint32_t const gpu_share = gpu_.first_phase_arrivals - gpu_.first_phase_drops;
    cuda::std::uint64_t const side_phase = static_cast<cuda::std::uint64_t>((phase + 1) & side_phase_mask)
                                           << side_phase_shift;
    auto arm = [side_phase](side_part& side, cuda::std::uint32_t share, cuda::std::uint32_t other_share) {
      side.share = share;
      side.other_share = other_share;
      side.phase_and_missing = side_phase | share;
      atomic_at<across_sides>(side.partitioned).store(1, memory_order_relaxed);
    };
    arm(cpu_, cpu_share, gpu_share);
    arm(gpu_, gpu_share, cpu_share);
  }
  central_.completion();
  // Releases the central waiters, and with them everything written above.
  atomic_at<across_sides>(central_.phase_and_missing).store(next | central_.expected, detail::memory_order_release);
}

template <class CompletionFunction, class Backoff>
UNISYNC_HOST_DEVICE void basic_partitioned_barrier<CompletionFunction, Backoff>::complete_side_phase(
    side_part& side, bool on_cpu, cuda::std::uint32_t phase, cuda::std::uint32_t dropped)
{
  using detail::across_sides;
  using detail::atomic_at;
  cuda::std::uint32_t const next_share = side.share - dropped;
  cuda::std::uint32_t const other_share = side.other_share;
  cuda::std::uint32_t const next_phase = (phase + 1) & side_phase_mask;
  cuda::std::uint64_t const next_word = (static_cast<cuda::std::uint64_t>(next_phase) << side_phase_shift) | next_share;
  detail::own_side_word<cuda::std::uint64_t> const word(side.phase_and_missing);
  if (other_share == 0) {
    // The other side takes no part: this side completes the phase alone.
    central_.completion();
    side.share = next_share;
    side.other_share = 0;
    word.store(next_word, detail::memory_order_release);
    return;
  }
  cuda::std::uint64_t const my_report = (static_cast<cuda::std::uint64_t>(next_phase) << report_phase_shift) | next_share;
  // The GPU completes while GPU threads take part: it waits for the CPU's report, runs the
  // completion, releases its side, then reports. The CPU reports first and waits for the
  // GPU's report, which therefore also says the completion has run. The GPU side, which
  // gathers more arrivals over a slower path, is usually the last to arrive: then a phase
  // costs one crossing of the link on its critical path instead of a round trip (measured
  // on the H100 with the CPU completing: 6.7-9.4 us per mixed phase).
  if (on_cpu) {
    atomic_at<across_sides>(reports_.from_cpu).store(my_report, detail::memory_order_release);
    side.other_share = static_cast<cuda::std::uint32_t>(wait_for_report(reports_.from_gpu, next_phase) & missing_mask);
    side.share = next_share;
    word.store(next_word, detail::memory_order_release);
  } else {
    side.other_share = static_cast<cuda::std::uint32_t>(cpu_report_for(next_phase) & missing_mask);
    central_.completion();
    side.share = next_share;
    // Device scope releases this side's own waiters: the acquire of the CPU's report was
    // system-scope, and causality chains across scopes. The report goes out after, so the
    // GPU's waiters do not wait for the system-scope fence in front of it.
    word.store(next_word, detail::memory_order_release);
    atomic_at<across_sides>(reports_.from_gpu).store(my_report, detail::memory_order_release);
  }
}

template <class CompletionFunction, class Backoff>
UNISYNC_HOST_DEVICE cuda::std::uint64_t
basic_partitioned_barrier<CompletionFunction, Backoff>::cpu_report_for(cuda::std::uint32_t next_phase)
{
  // The phase's first GPU arriver has usually copied it into device memory already.
  cuda::std::uint64_t const copied =
      detail::own_side_word<cuda::std::uint64_t>(gpu_.cpu_report_copy).load(detail::memory_order_acquire);
  if (reported_at_least(copied, next_phase)) return copied;
  return wait_for_report(reports_.from_cpu, next_phase);
}

template <class CompletionFunction, class Backoff>
UNISYNC_HOST_DEVICE void basic_partitioned_barrier<CompletionFunction, Backoff>::copy_cpu_report(
    arrival_token const& token)
{
  // Polls the CPU's report across the link while this side's phase is open; once it shows
  // the next phase, copies it to device memory for the leader. Stops when the phase ends,
  // the leader then having read the report itself.
  auto const next_phase = (token.phase_ + 1) & side_phase_mask;
  auto report = detail::atomic_at<detail::across_sides>(reports_.from_cpu);
  detail::own_side_word<cuda::std::uint64_t> const word(gpu_.phase_and_missing);
  while (static_cast<cuda::std::uint32_t>(word.load(detail::memory_order_relaxed) >> side_phase_shift) ==
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
  // The handshake alternates, so a report is never ahead of the phase awaited (the model
  // in test/models checks it); comparing as a wrapping 20-bit counter rather than with ==
  // costs nothing, and an unsigned >= would accept the previous report once phases wrap.
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
  UNISYNC_ASSERT(static_cast<cuda::std::uint32_t>(seen >> report_phase_shift) == next_phase,
                 "partitioned_barrier: the other side reported a later phase than the one completing");
  return seen;
}

template <class CompletionFunction, class Backoff>
UNISYNC_HOST_DEVICE cuda::std::uint32_t basic_partitioned_barrier<CompletionFunction, Backoff>::forecast_to_release(
    arrival_token const& token, cuda::std::memory_order order) const
{
  auto& self = const_cast<basic_partitioned_barrier&>(*this);
  cuda::std::uint32_t phase = 0;
  cuda::std::uint32_t missing = 0;
  if (token.central_) {
    cuda::std::uint64_t const now = detail::atomic_at<detail::across_sides>(self.central_.phase_and_missing).load(order);
    phase = static_cast<cuda::std::uint32_t>(now >> phase_shift);
    missing = static_cast<cuda::std::uint32_t>(now & missing_mask);
  } else {
    cuda::std::uint64_t const now = detail::own_side_word<cuda::std::uint64_t>(my_side().phase_and_missing).load(order);
    phase = static_cast<cuda::std::uint32_t>(now >> side_phase_shift);
    missing = static_cast<cuda::std::uint32_t>(now & field_mask);
  }
  if (phase != token.phase_) return 0;
  // All of this side arrived and its leader is handshaking with the other side: poll
  // often, the words polled are in this side's own memory.
  if (missing == 0) return 1;
  cuda::std::uint32_t const units = missing / token.weight_ + (missing % token.weight_ != 0 ? 1u : 0u);
  return detail::forecast_ns(units, Backoff::tuning::barrier_arrival_ns);
}

template <class CompletionFunction, class Backoff>
UNISYNC_HOST_DEVICE void basic_partitioned_barrier<CompletionFunction, Backoff>::wait(arrival_token&& token) const
{
  if (token.fetches_report_) const_cast<basic_partitioned_barrier&>(*this).copy_cpu_report(token);
  auto forecast = [&](cuda::std::memory_order order) { return forecast_to_release(token, order); };
  detail::wait_for_turn<Backoff>(forecast);
}

template <class CompletionFunction, class Backoff>
UNISYNC_HOST_DEVICE bool basic_partitioned_barrier<CompletionFunction, Backoff>::try_wait(
    arrival_token const& token) const
{
  return forecast_to_release(token, detail::memory_order_acquire) == 0;
}

template <class CompletionFunction, class Backoff>
UNISYNC_HOST_DEVICE bool basic_partitioned_barrier<CompletionFunction, Backoff>::try_wait_within(
    arrival_token const& token, cuda::std::uint64_t timeout_ns) const
{
  // No report copy here: a timed wait must not spend its time across the link.
  return detail::wait_for_turn_until<Backoff>(
      detail::deadline::after(timeout_ns),
      [&](cuda::std::memory_order order) { return forecast_to_release(token, order); });
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
  using detail::across_sides;
  side_part& side = my_side();
  if (detail::own_side_word<cuda::std::uint32_t>(side.partitioned).load(detail::memory_order_relaxed) != 0) {
    static_cast<void>(arrive_on_side(side, 1, true));
    return;
  }
  // A central phase: counted before arriving, so its last arriver sees it, on the central
  // expected count and, while the split is being learned, on the side's.
  if (detail::atomic_at<across_sides>(central_.flat).load(detail::memory_order_relaxed) == 0) {
    detail::own_side_word<cuda::std::uint32_t>(side.first_phase_drops).fetch_add(1, detail::memory_order_relaxed);
  }
  detail::atomic_at<across_sides>(central_.drops).fetch_add(1, detail::memory_order_relaxed);
  static_cast<void>(arrive_central(1));
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
