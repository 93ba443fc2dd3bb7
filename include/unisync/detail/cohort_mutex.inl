#pragma once
// Definitions of basic_cohort_mutex; the contract is in unisync/cohort_mutex.hpp.

#include <unisync/detail/managed_memory.hpp>
#include <unisync/detail/wait.hpp>

namespace unisync {

template <class Backoff>
UNISYNC_HOST_DEVICE void basic_cohort_mutex<Backoff>::lock()
{
  if (detail::running_on_device()) {
    lock_on(gpu_, gpu_side);
  } else {
    lock_on(cpu_, cpu_side);
  }
}

template <class Backoff>
UNISYNC_HOST_DEVICE bool basic_cohort_mutex<Backoff>::try_lock()
{
  return detail::running_on_device() ? try_lock_on(gpu_, gpu_side) : try_lock_on(cpu_, cpu_side);
}

template <class Backoff>
UNISYNC_HOST_DEVICE void basic_cohort_mutex<Backoff>::unlock()
{
  if (detail::running_on_device()) {
    pass_then_look(gpu_, gpu_side);
  } else {
    unlock_on(cpu_, cpu_side, [](bool) {});
  }
}

template <class Backoff>
template <class BeforeRelease>
UNISYNC_HOST_DEVICE void basic_cohort_mutex<Backoff>::unlock_after(BeforeRelease before_release)
{
  if (detail::running_on_device()) {
    unlock_on(gpu_, gpu_side, before_release);
  } else {
    unlock_on(cpu_, cpu_side, before_release);
  }
}

template <class Backoff>
UNISYNC_HOST_DEVICE bool basic_cohort_mutex<Backoff>::try_lock_within(cuda::std::uint64_t timeout_ns)
{
  return detail::running_on_device() ? try_lock_within_on(gpu_, gpu_side, timeout_ns)
                                     : try_lock_within_on(cpu_, cpu_side, timeout_ns);
}

template <class Backoff>
template <class Side>
UNISYNC_HOST_DEVICE void basic_cohort_mutex<Backoff>::lock_on(Side& side, side_id me)
{
  // The state the previous local holder left, read with the poll that showed the turn.
  cuda::std::uint64_t const state = side.local.lock();
  if (top_of(state) == top_held && passes_of(state) <= pass_bound) return;
  take_top(side, me, state);
}

template <class Backoff>
template <class Side>
UNISYNC_HOST_DEVICE void basic_cohort_mutex<Backoff>::take_top(Side& side, side_id me, cuda::std::uint64_t state)
{
  if (top_of(state) == top_free) {
    announce_interest(me);
  } else {
    if (top_of(state) == top_held) {
      // Passed beyond the bound by a holder that passes before it looks (pass_then_look):
      // the bound's decision is this holder's.
      if (!other_side_waits(me)) {
        side.local.change_state(state, holder_state(top_held, 0));
        return;
      }
      hand_over_top(me);
    }
    // Handed over with this side's interest kept: order the handover's turn store before
    // this holder's reads of the other side's words, as announcing would.
    cuda::atomic_thread_fence(detail::memory_order_seq_cst, cuda::thread_scope_system);
  }
  detail::wait_for_turn<Backoff>([&](cuda::std::memory_order order) { return forecast_to_top(me, order); });
  side.local.change_state(state, holder_state(top_held, 0));
}

template <class Backoff>
template <class Side>
UNISYNC_HOST_DEVICE bool basic_cohort_mutex<Backoff>::try_lock_on(Side& side, side_id me)
{
  cuda::std::uint64_t state = 0;
  if (!side.local.try_lock(&state)) return false;
  return try_top(side, me, state, [&] { return forecast_to_top(me, detail::memory_order_acquire) == 0; });
}

template <class Backoff>
template <class Side>
UNISYNC_HOST_DEVICE bool basic_cohort_mutex<Backoff>::try_lock_within_on(Side& side, side_id me,
                                                                      cuda::std::uint64_t timeout_ns)
{
  detail::deadline const limit = detail::deadline::after(timeout_ns);
  auto const wait_for_top = [&] {
    return detail::wait_for_turn_until<Backoff>(limit,
                                                [&](cuda::std::memory_order order) { return forecast_to_top(me, order); });
  };
  // A try that found the side past its pass bound gives its turn up early: try again, so
  // that only the timeout ends a try that fails.
  do {
    cuda::std::uint64_t state = 0;
    if (!side.local.try_lock_within(limit.remaining_ns(), &state)) return false;
    if (try_top(side, me, state, wait_for_top)) return true;
  } while (!limit.passed());
  return false;
}

template <class Backoff>
template <class Side, class WaitForTop>
UNISYNC_HOST_DEVICE bool basic_cohort_mutex<Backoff>::try_top(Side& side, side_id me, cuda::std::uint64_t state,
                                                              WaitForTop wait_for_top)
{
  // The local lock is held; `state` is what its previous holder left.
  if (top_of(state) == top_held) {
    if (passes_of(state) <= pass_bound) return true;
    if (!other_side_waits(me)) {
      side.local.change_state(state, holder_state(top_held, 0));
      return true;
    }
    // Past the bound with the other side waiting: a try neither waits for a handover nor
    // keeps the top lock from that side. It leaves as a holder at the bound does: hands
    // the top lock over to a thread queued behind, or lets it go.
    unlock_on(side, me, [](bool) {});
    return false;
  }
  if (top_of(state) == top_free) announce_interest(me);
  if (wait_for_top()) {
    side.local.change_state(state, holder_state(top_held, 0));
    return true;
  }
  // A handed-over interest is kept for the threads queued behind. So is an interest this
  // try announced when a lock() caller has queued behind it since: that waiter counts on
  // its side's announcement for its bound on the other side's sections, so the try leaves
  // the top lock handed over to it, as a holder at the bound does. Else withdrawing lets
  // the other side in, as Peterson allows (test/models/cohort_mutex.pml -DTRY).
  if (top_of(state) == top_free) {
    if (side.local.queued() > 1) {
      side.local.unlock(state, holder_state(top_handed_over, 0));
      return false;
    }
    release_top(me);
  }
  side.local.unlock(state, state);
  return false;
}

template <class Backoff>
template <class Side, class BeforeRelease>
UNISYNC_HOST_DEVICE void basic_cohort_mutex<Backoff>::unlock_on(Side& side, side_id me, BeforeRelease before_release)
{
  detail::ticket_holder_view const view = side.local.view_as_holder();
  UNISYNC_ASSERT(held_by_side(view), "unlock() of a cohort_mutex not held by this side");
  bool const waiter_behind = view.queued > 1;
  cuda::std::uint32_t const passes = passes_of(view.state);
  cuda::std::uint64_t next = holder_state(top_held, 0);
  if (waiter_behind && passes < pass_bound) {
    next = holder_state(top_held, passes + 1);  // pass within the side: the top lock stays with it
    before_release(true);
  } else if (!waiter_behind) {
    before_release(false);
    next = holder_state(top_free, 0);
    release_top(me);
  } else if (!other_side_waits(me)) {
    // The bound is reached but nobody on the other side waits: carry on (next as set).
    before_release(true);
  } else {
    before_release(false);
    next = holder_state(top_handed_over, 0);
    hand_over_top(me);
  }
  side.local.unlock(view.state, next);
}

template <class Backoff>
template <class Side>
UNISYNC_HOST_DEVICE void basic_cohort_mutex<Backoff>::pass_then_look(Side& side, side_id me)
{
  UNISYNC_ASSERT(held_by_side(side.local.view_as_holder()), "unlock() of a cohort_mutex not held by this side");
  // Serve the next ticket first, keeping the top lock and counting the pass, and look at
  // the queue after: the next holder's poll sees its turn without waiting for the
  // holder's load of the queue (the bound is that holder's to check: lock_on()).
  detail::ticket_look const look = side.local.serve_next_then_look(holder_state(0, 1));
  if (look.view.queued > 1) return;
  // Nobody had queued: unless a thread has just taken the served ticket (it holds the
  // lock and the top lock now), take it back and let the top lock go, as unlock_on().
  if (!side.local.take_back(look.taken)) return;
  cuda::std::uint64_t const state = look.view.state + holder_state(0, 1);
  release_top(me);
  side.local.unlock(state, holder_state(top_free, 0));
}

template <class Backoff>
UNISYNC_HOST_DEVICE bool basic_cohort_mutex<Backoff>::other_side_waits(side_id me)
{
  return interested(static_cast<side_id>(1 - me)).load(detail::memory_order_relaxed) != 0;
}

template <class Backoff>
UNISYNC_HOST_DEVICE void basic_cohort_mutex<Backoff>::hand_over_top(side_id me)
{
  // The bound is reached and the other side waits: hand the top lock over, keeping this
  // side's interest for the threads queued behind, so the other side gets one turn and
  // this side is next. Released: the other side's entry synchronizes with it. The
  // interest is already ordered before this turn store: the fence that followed its store
  // in announce_interest() happens before it, through the local lock.
  detail::atomic_at<cuda::thread_scope_system>(top_.turn).store(1 - me, detail::memory_order_release);
}

template <class Backoff>
UNISYNC_HOST_DEVICE void basic_cohort_mutex<Backoff>::announce_interest(side_id me)
{
  using detail::atomic_at;
  interested(me).store(1, detail::memory_order_relaxed);
  // Peterson needs the interest before the turn store in coherence order as well: without
  // this fence the other side can store turn after this side's turn store, fence, and
  // still read interested[me] == 0 (the "R" shape, allowed by C++ and PTX), and both enter.
  // Its cost, without it against with it: mixed cells with 8-528 blocks 1.00x on geometric
  // mean (0.94-1.07x), one GPU block alone 1.11x (benchmark/results/h200-cohort-peterson-fence).
  cuda::atomic_thread_fence(detail::memory_order_seq_cst, cuda::thread_scope_system);
  // "You first": released, so an entering other side that reads it synchronizes with this
  // side's previous critical sections.
  atomic_at<cuda::thread_scope_system>(top_.turn).store(1 - me, detail::memory_order_release);
  // Peterson needs each side's stores ordered before its loads of the other side's words.
  cuda::atomic_thread_fence(detail::memory_order_seq_cst, cuda::thread_scope_system);
}

template <class Backoff>
UNISYNC_HOST_DEVICE cuda::std::uint32_t basic_cohort_mutex<Backoff>::forecast_to_top(side_id me,
                                                                                   cuda::std::memory_order order)
{
  using detail::atomic_at;
  side_id const other = static_cast<side_id>(1 - me);
  bool const other_wants = interested(other).load(order) != 0;
  bool const other_goes_first = atomic_at<cuda::thread_scope_system>(top_.turn).load(order) == other;
  // The other side holds or gets the top lock. It runs at most a full cohort turn first,
  // but often far less (one section, with one thread queued there), and its queue is on
  // the far side of the link: forecast one crossing of the link, the least that passing
  // the top lock takes. Forecasting the full turn made a one-thread CPU side sleep through
  // 256 of the GPU's handoffs (bound 256, 1 CPU thread and 1 block: 1.5e4 sections/s).
  return other_wants && other_goes_first ? Backoff::tuning::link_handoff_ns : 0u;
}

template <class Backoff>
UNISYNC_HOST_DEVICE void basic_cohort_mutex<Backoff>::release_top(side_id me)
{
  interested(me).store(0, detail::memory_order_release);
}

template <class Backoff>
UNISYNC_HOST_DEVICE cuda::atomic_ref<cuda::std::uint32_t, cuda::thread_scope_system>
basic_cohort_mutex<Backoff>::interested(side_id side)
{
  return detail::atomic_at<cuda::thread_scope_system>(side == cpu_side ? top_.cpu_interested : top_.gpu_interested);
}

#if defined(__CUDACC__)
template <class Backoff>
template <class Group>
__device__ void basic_cohort_mutex<Backoff>::lock(Group const& group)
{
  detail::leader_takes_for_group(group, [this] { lock(); });
}

template <class Backoff>
template <class Group>
__device__ bool basic_cohort_mutex<Backoff>::try_lock(Group const& group)
{
  return detail::leader_tries_for_group(group, [this] { return try_lock(); });
}

template <class Backoff>
template <class Group>
__device__ void basic_cohort_mutex<Backoff>::unlock(Group const& group)
{
  detail::leader_gives_for_group(group, [this] { unlock(); });
}
#endif  // defined(__CUDACC__)

template <class Backoff>
void basic_cohort_mutex<Backoff>::advise_placement(basic_cohort_mutex* object, int device)
{
  detail::advise_managed(&object->cpu_, sizeof(object->cpu_), memory_advice::prefer_host, device);
  detail::advise_managed(&object->top_, sizeof(object->top_), memory_advice::prefer_host, device);
  detail::advise_managed(&object->gpu_, sizeof(object->gpu_), memory_advice::prefer_device, device);
}

}  // namespace unisync
