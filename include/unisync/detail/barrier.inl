#pragma once
// Definitions of basic_barrier; the contract is in unisync/barrier.hpp.

#include <unisync/detail/wait.hpp>

namespace unisync {

template <cuda::thread_scope Scope, class CompletionFunction, class Backoff>
UNISYNC_HOST_DEVICE typename basic_barrier<Scope, CompletionFunction, Backoff>::arrival_token
basic_barrier<Scope, CompletionFunction, Backoff>::arrive(cuda::std::ptrdiff_t update)
{
  UNISYNC_ASSERT(update > 0 && update <= max(), "barrier::arrive(update) needs 0 < update <= max()");
  return arrive_counting(static_cast<cuda::std::uint32_t>(update), false);
}

template <cuda::thread_scope Scope, class CompletionFunction, class Backoff>
UNISYNC_HOST_DEVICE typename basic_barrier<Scope, CompletionFunction, Backoff>::arrival_token
basic_barrier<Scope, CompletionFunction, Backoff>::arrive_counting(cuda::std::uint32_t weight, bool drops)
{
  auto word = detail::atomic_at<Scope>(word_);
  // Release publishes the arrival; acquire lets the addition that completes the phase
  // acquire every earlier one (and the previous completion) without a fence after it,
  // which on the GPU costs far more than an acquiring atomic. A drop takes one participant
  // away in the same addition (no borrow: the dropper is one of them).
  cuda::std::uint64_t const delta = (static_cast<cuda::std::uint64_t>(weight) << count_shift) - (drops ? 1u : 0u);
  cuda::std::uint64_t const before = word.fetch_add(delta, detail::memory_order_acq_rel);
  cuda::std::uint32_t const count = count_of(before);
  // Before the arm lands only a weaker check is cheap: no arrival outweighs the
  // participants left (over-arrivals split over several threads can pass it).
  UNISYNC_ASSERT(weight <= (is_armed(count) ? missing_of(count) : participants_of(before)),
                 "barrier::arrive(update) with update above the arrivals missing in this phase");
  auto const parity = static_cast<cuda::std::uint32_t>(before >> parity_shift);
  cuda::std::uint64_t reached = static_cast<cuda::std::uint64_t>(count) + weight;
  if (count == 0) {
    // The phase's first arrival arms it, for the participants its own result shows: every
    // drop of the previous phase came before, and no one else's of this one. It publishes
    // nothing; acquire, because if every arrival came before it, it completes the phase.
    cuda::std::uint64_t const arm = (cuda::std::uint64_t{1} << 32) - completion_step - participants_of(before);
    cuda::std::uint64_t const before_arm = word.fetch_add(arm << count_shift, detail::memory_order_acquire);
    reached = count_of(before_arm) + arm;
  }
  if (reached == (cuda::std::uint64_t{1} << 32) - completion_step) {
    complete_phase(parity);
    return arrival_token(parity, weight, true, false);
  }
  bool polls_hint = false;
  if constexpr (Scope == cuda::thread_scope_system) {
    NV_IF_TARGET(NV_IS_HOST, (polls_hint = participants_of(before) >= Backoff::tuning::host_hint_min_participants;))
  }
  return arrival_token(parity, weight, false, polls_hint);
}

template <cuda::thread_scope Scope, class CompletionFunction, class Backoff>
UNISYNC_HOST_DEVICE void basic_barrier<Scope, CompletionFunction, Backoff>::complete_phase(cuda::std::uint32_t parity)
{
  // This thread's last addition acquired every arrival of the phase and the previous
  // phase's completion: all releases in the word's release sequence that it read.
  if constexpr (!completes_in_arrival) {
    completion_();
    // The count stood one short of the carry: this addition completes the phase and
    // releases the waiters, and with them what the completion wrote.
    detail::atomic_at<Scope>(word_).fetch_add(cuda::std::uint64_t{1} << count_shift, detail::memory_order_release);
  }
  // After the carry, so that a waiter that sees the hint finds the word's new parity (or
  // polls the word until it does). Relaxed: on the GPU a release store would put a
  // system-scope fence in front of this thread's next arrival.
  if constexpr (Scope == cuda::thread_scope_system) {
    detail::atomic_at<Scope>(open_parity_).store(parity ^ 1u, detail::memory_order_relaxed);
  }
}

template <cuda::thread_scope Scope, class CompletionFunction, class Backoff>
UNISYNC_HOST_DEVICE cuda::std::uint32_t basic_barrier<Scope, CompletionFunction, Backoff>::forecast_to_release(
    arrival_token const& token, cuda::std::memory_order order, bool trust_hint) const
{
  // A host waiter among many polls the hint (see open_parity_) until it shows another
  // phase, and only then the word, whose acquire load decides and synchronizes. On the
  // host a forecast spins below some 500 missing arrivals anyway.
  if (trust_hint && token.polls_hint_ &&
      detail::atomic_at<Scope>(const_cast<cuda::std::uint32_t&>(open_parity_)).load(detail::memory_order_relaxed) ==
          token.parity_) {
    return 1;
  }
  // The word is only read here; atomic_ref needs a non-const reference.
  auto word = detail::atomic_at<Scope>(const_cast<cuda::std::uint64_t&>(word_));
  cuda::std::uint64_t const now = word.load(order);
  if (static_cast<cuda::std::uint32_t>(now >> parity_shift) != token.parity_) return 0;
  cuda::std::uint32_t const count = count_of(now);
  // The phase's first arrival has not armed it yet: poll again soon.
  if (!is_armed(count)) return 1;
  // Missing arrivals in units of the waiter's own arrival (a block waits for blocks).
  cuda::std::uint32_t const missing = missing_of(count);
  cuda::std::uint32_t const units = missing / token.weight_ + (missing % token.weight_ != 0 ? 1u : 0u);
  return detail::forecast_ns(units, Backoff::tuning::barrier_arrival_ns);
}

template <cuda::thread_scope Scope, class CompletionFunction, class Backoff>
UNISYNC_HOST_DEVICE void basic_barrier<Scope, CompletionFunction, Backoff>::wait(arrival_token&& token) const
{
  if (token.completed_phase_) return;  // its addition completed and acquired the phase
  detail::hint_polls hint;
  auto forecast = [&](cuda::std::memory_order order) { return forecast_to_release(token, order, hint.trust_next()); };
  detail::wait_for_turn<Backoff>(forecast);
}

template <cuda::thread_scope Scope, class CompletionFunction, class Backoff>
UNISYNC_HOST_DEVICE bool basic_barrier<Scope, CompletionFunction, Backoff>::try_wait(arrival_token const& token) const
{
  // The word, not the hint: the phase has completed once the word says so.
  return token.completed_phase_ || forecast_to_release(token, detail::memory_order_acquire, false) == 0;
}

template <cuda::thread_scope Scope, class CompletionFunction, class Backoff>
UNISYNC_HOST_DEVICE bool basic_barrier<Scope, CompletionFunction, Backoff>::try_wait_within(
    arrival_token const& token, cuda::std::uint64_t timeout_ns) const
{
  if (token.completed_phase_) return true;
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
  // warps, not threads.
  NV_IF_ELSE_TARGET(NV_IS_DEVICE, (detail::group_arrive_and_wait_per_object(*this);), (wait(arrive());))
}

template <cuda::thread_scope Scope, class CompletionFunction, class Backoff>
UNISYNC_HOST_DEVICE void basic_barrier<Scope, CompletionFunction, Backoff>::arrive_and_drop()
{
  // One arrival and one participant fewer in the same addition: the last arriver reads
  // the next phase's participants in its own arrival's result.
  static_cast<void>(arrive_counting(1, true));
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
