#pragma once
// Definitions of basic_partitioned_semaphore; the contract is in unisync/partitioned_semaphore.hpp.

#include <unisync/capabilities.hpp>
#include <unisync/detail/managed_memory.hpp>
#include <unisync/detail/wait.hpp>

namespace unisync {

namespace detail {
/// A pool's counters and the link's words are reached from both sides (a steal crosses).
inline constexpr cuda::thread_scope pool_scope = cuda::thread_scope_system;
}  // namespace detail

template <cuda::std::ptrdiff_t LeastMaxValue, class Backoff>
UNISYNC_HOST_DEVICE typename basic_partitioned_semaphore<LeastMaxValue, Backoff>::side_kind
basic_partitioned_semaphore<LeastMaxValue, Backoff>::running_side() noexcept
{
  return detail::running_on_device() ? side_kind::gpu : side_kind::cpu;
}

template <cuda::std::ptrdiff_t LeastMaxValue, class Backoff>
UNISYNC_HOST_DEVICE typename basic_partitioned_semaphore<LeastMaxValue, Backoff>::side_kind
basic_partitioned_semaphore<LeastMaxValue, Backoff>::other(side_kind side) noexcept
{
  return side == side_kind::gpu ? side_kind::cpu : side_kind::gpu;
}

template <cuda::std::ptrdiff_t LeastMaxValue, class Backoff>
UNISYNC_HOST_DEVICE cuda::std::uint32_t basic_partitioned_semaphore<LeastMaxValue, Backoff>::turn_length(
    side_kind side) noexcept
{
  return side == side_kind::gpu ? Backoff::tuning::gpu_turn_acquisitions : Backoff::tuning::cpu_turn_acquisitions;
}

template <cuda::std::ptrdiff_t LeastMaxValue, class Backoff>
UNISYNC_HOST_DEVICE typename basic_partitioned_semaphore<LeastMaxValue, Backoff>::side_part&
basic_partitioned_semaphore<LeastMaxValue, Backoff>::part_of(side_kind side) noexcept
{
  return side == side_kind::gpu ? gpu_ : cpu_;
}

template <cuda::std::ptrdiff_t LeastMaxValue, class Backoff>
UNISYNC_HOST_DEVICE cuda::std::uint64_t& basic_partitioned_semaphore<LeastMaxValue, Backoff>::sent_to(
    side_kind side) noexcept
{
  return side == side_kind::gpu ? link_.sent_to_gpu : link_.sent_to_cpu;
}

template <cuda::std::ptrdiff_t LeastMaxValue, class Backoff>
UNISYNC_HOST_DEVICE cuda::std::uint64_t& basic_partitioned_semaphore<LeastMaxValue, Backoff>::wants_of(
    side_kind side) noexcept
{
  return side == side_kind::gpu ? link_.gpu_wants : link_.cpu_wants;
}

template <cuda::std::ptrdiff_t LeastMaxValue, class Backoff>
UNISYNC_HOST_DEVICE cuda::std::uint64_t& basic_partitioned_semaphore<LeastMaxValue, Backoff>::heartbeat_of(
    side_kind side) noexcept
{
  return side == side_kind::gpu ? link_.gpu_heartbeat : link_.cpu_heartbeat;
}

template <cuda::std::ptrdiff_t LeastMaxValue, class Backoff>
UNISYNC_HOST_DEVICE bool basic_partitioned_semaphore<LeastMaxValue, Backoff>::is_flat(side_kind side) noexcept
{
  // Off the hot paths: acquire() and release() read the mark in their first atomic's result.
  auto const taken = detail::atomic_at<detail::pool_scope>(part_of(side).tickets_taken);
  return is_flat_marked(taken.load(detail::memory_order_relaxed));
}

template <cuda::std::ptrdiff_t LeastMaxValue, class Backoff>
void basic_partitioned_semaphore<LeastMaxValue, Backoff>::select_flat_mode() noexcept
{
  // Before the object is shared. The pools are not used from now on: their counters only
  // carry the mark (operations that find it still add to them, unread).
  cpu_.tickets_taken = cpu_.permits_granted = flat_mark;
  gpu_.tickets_taken = gpu_.permits_granted = flat_mark;
}

namespace detail {
/// What the calling host thread did last on partitioned semaphores' CPU side: the host
/// thread's own memory, no shared state.
struct host_semaphore_notes {
  // The semaphore (any instance) it acquired last and has not released since.
  void const* holds_permit_of = nullptr;
  // Its run of consecutive tickets on one semaphore: which, the last one, how many, and
  // when (host clock) its side's current turn began: its last turn, or its admission
  // after giving the permit away at one.
  void const* run_on = nullptr;
  cuda::std::uint64_t last_ticket = 0;
  cuda::std::uint64_t run_length = 0;
  cuda::std::uint64_t turn_began_ns = 0;
};
inline host_semaphore_notes& host_thread_semaphore_notes() noexcept
{
  thread_local host_semaphore_notes notes;
  return notes;
}
}  // namespace detail

template <cuda::std::ptrdiff_t LeastMaxValue, class Backoff>
UNISYNC_HOST_DEVICE bool basic_partitioned_semaphore<LeastMaxValue, Backoff>::releases_own_acquisition(
    side_kind side, cuda::std::uint64_t update) noexcept
{
  // A host thread that releases the one permit it acquired here is likely to acquire again
  // (a lock-like pair in a loop). Any release here ends the pairing; one of another
  // semaphore leaves it.
  bool pair = false;
  NV_IF_TARGET(NV_IS_HOST, (void const*& holds = detail::host_thread_semaphore_notes().holds_permit_of;
                            if (holds == this) {
                              pair = side == side_kind::cpu && update == 1;
                              holds = nullptr;
                            }))
  return pair;
}

template <cuda::std::ptrdiff_t LeastMaxValue, class Backoff>
UNISYNC_HOST_DEVICE bool basic_partitioned_semaphore<LeastMaxValue, Backoff>::turn_comes(side_kind side,
                                                                                         cuda::std::uint64_t ticket,
                                                                                         bool gave) noexcept
{
  // Every T-th ticket of a side is a turn; a host thread alone on the CPU side (it took the
  // side's last T tickets itself) takes only every lone_turn_factor-th, or the first once
  // lone_turn_ns have passed since its last turn, or since its admission after giving
  // its permit away at one (see tuning). A ticket taken on the CPU side of another
  // semaphore ends the run. The run is a hint: with any answer the turns come at least
  // every lone_turn_factor T tickets (test/models: LONE). The same look at the thread's
  // notes records its acquisition for release()'s pairing (an admission that gives its
  // permit away is followed by another, which records it again).
  cuda::std::uint32_t const turn = turn_length(side);
  bool comes = ticket % turn == 0;
  NV_IF_TARGET(NV_IS_HOST, (if (side == side_kind::cpu) {
    detail::host_semaphore_notes& notes = detail::host_thread_semaphore_notes();
    notes.holds_permit_of = this;
    bool const continues = notes.run_on == this && ticket == notes.last_ticket + 1;
    notes.run_on = this;
    notes.last_ticket = ticket;
    notes.run_length = continues ? notes.run_length + 1 : 1;
    if (comes || gave) {
      cuda::std::uint64_t const now = detail::monotonic_nanoseconds();
      if (comes && notes.run_length > turn &&
          ticket % (static_cast<cuda::std::uint64_t>(turn) * Backoff::tuning::lone_turn_factor) != 0) {
        comes = now - notes.turn_began_ns >= Backoff::tuning::lone_turn_ns;
      }
      if (comes || gave) notes.turn_began_ns = now;
    }
  }))
  return comes;
}

template <cuda::std::ptrdiff_t LeastMaxValue, class Backoff>
UNISYNC_HOST_DEVICE void basic_partitioned_semaphore<LeastMaxValue, Backoff>::acquire()
{
  acquire_as(running_side());
}

template <cuda::std::ptrdiff_t LeastMaxValue, class Backoff>
UNISYNC_HOST_DEVICE void basic_partitioned_semaphore<LeastMaxValue, Backoff>::release(cuda::std::ptrdiff_t update)
{
  UNISYNC_ASSERT(update >= 0, "partitioned_semaphore::release(update) needs update >= 0");
  side_kind const side = running_side();
  auto const permits = static_cast<cuda::std::uint64_t>(update);
  release_as(side, permits, releases_own_acquisition(side, permits));
}

template <cuda::std::ptrdiff_t LeastMaxValue, class Backoff>
UNISYNC_HOST_DEVICE bool basic_partitioned_semaphore<LeastMaxValue, Backoff>::try_acquire() noexcept
{
  return try_acquire_as(running_side());
}

template <cuda::std::ptrdiff_t LeastMaxValue, class Backoff>
UNISYNC_HOST_DEVICE void basic_partitioned_semaphore<LeastMaxValue, Backoff>::acquire_as(side_kind side)
{
  auto taken = detail::atomic_at<detail::pool_scope>(part_of(side).tickets_taken);
  bool gave = false;
  for (;;) {
    // Relaxed, as in basic_counting_semaphore: taking a ticket publishes nothing.
    cuda::std::uint64_t const ticket = taken.fetch_add(1, detail::memory_order_relaxed);
    ticket_wait wait;
    // Loaded once, with the addition in flight: on the GPU a load in the poll loop would
    // put a second round trip to L2 in every poll of a waiter near its turn.
    wait.in_parallel = part_of(side).permits_in_parallel;
    if (is_flat_marked(ticket)) {
      flat_.semaphore.acquire();
      return;
    }
    detail::wait_for_turn<Backoff>(
        [&](cuda::std::memory_order order) { return forecast_for_ticket(side, ticket, order, wait); });
    if (wait.importing) leave_import_role(side);
    // A turn's ticket checks the other side's wants; one that gives its permit away
    // queues again, and gives at most once per acquire(): K threads of a side queued in
    // FIFO rotation keep their order, so with K a multiple of T the giver's next ticket is
    // again a multiple of T, and it would give forever while the other side stays hungry
    // (test/models: BUG_GIVE_EVERY_TURN).
    if (!turn_comes(side, ticket, gave) || gave || !give_turn_away(side, ticket)) return;
    gave = true;
  }
}

template <cuda::std::ptrdiff_t LeastMaxValue, class Backoff>
UNISYNC_HOST_DEVICE cuda::std::uint32_t basic_partitioned_semaphore<LeastMaxValue, Backoff>::forecast_for(
    cuda::std::uint32_t permits_in_parallel, cuda::std::int64_t tickets_to_go) noexcept
{
  // Permits circulate side by side, as in basic_counting_semaphore's forecast.
  return detail::forecast_for_tickets(static_cast<cuda::std::uint64_t>(tickets_to_go), permits_in_parallel,
                                      Backoff::tuning::ticket_handoff_ns);
}

template <cuda::std::ptrdiff_t LeastMaxValue, class Backoff>
UNISYNC_HOST_DEVICE cuda::std::uint32_t basic_partitioned_semaphore<LeastMaxValue, Backoff>::forecast_for_ticket(
    side_kind side, cuda::std::uint64_t ticket, cuda::std::memory_order order, ticket_wait& wait)
{
  side_part& mine = part_of(side);
  // The mirror first, relaxed, then the grants with the poll's order: both counters only
  // grow, so their sum is at most the permits the side has now, and admitting below it
  // never admits a ticket without a permit. A ticket below the grants alone is admitted by
  // that one load (a handoff within the side, as in basic_counting_semaphore); one that
  // needs imported permits acquires the mirror too, which the import role stored with a
  // release.
  detail::own_side_word<cuda::std::uint64_t> const mirror(mine.permits_seen);
  cuda::std::uint64_t const seen = mirror.load(detail::memory_order_relaxed);
  cuda::std::uint64_t const granted = detail::atomic_at<detail::pool_scope>(mine.permits_granted).load(order);
  if (detail::wrapping_distance(ticket + 1, granted) <= 0) return 0;
  cuda::std::int64_t const to_go = detail::wrapping_distance(ticket + 1, granted + seen);
  if (to_go <= 0) {
    mirror.load(order);
    return 0;
  }
  // A GPU waiter near its turn while its side's own releases keep granting lets the link
  // wait: a role holder still reading it (about a microsecond a load) when its turn comes
  // would hold its permit for those loads. It leaves the role to a waiter further back.
  // Where permits come only across the link (a consumer side) the grants stand still and
  // it keeps the role. (On the CPU the link is in its own memory: leaving would only hand
  // the role around.)
  bool const grants_moving = side == side_kind::gpu && grants_moved_lately(wait, granted);
  if (grants_moving && to_go <= Backoff::tuning::import_near_turn_tickets) {
    if (wait.importing) {
      leave_import_role(side);
      wait.importing = false;
    }
    return forecast_for(wait.in_parallel, to_go);
  }
  if (!wait.importing) wait.importing = take_import_role(side);
  if (!wait.importing) {
    // While the side's own grants stand still its permits come across the link, in
    // batches about one crossing apart: a GPU waiter forecasts at most that, or one that
    // waits for a hundred handoffs would sleep through several batches while the permits
    // it waits for are already here.
    cuda::std::uint32_t const forecast = forecast_for(wait.in_parallel, to_go);
    bool const across_link = side == side_kind::gpu && !grants_moving;
    return across_link && forecast > Backoff::tuning::link_handoff_ns ? Backoff::tuning::link_handoff_ns : forecast;
  }
  // The side's import role: asks for the permits its waiters lack, mirrors what arrived,
  // and takes an idle other side's free permits; polls again after about one crossing.
  import_for(side, 0, true);
  cuda::std::uint32_t const forecast = forecast_for(wait.in_parallel, to_go);
  return forecast < Backoff::tuning::link_handoff_ns ? forecast : Backoff::tuning::link_handoff_ns;
}

template <cuda::std::ptrdiff_t LeastMaxValue, class Backoff>
UNISYNC_HOST_DEVICE bool basic_partitioned_semaphore<LeastMaxValue, Backoff>::grants_moved_lately(
    ticket_wait& wait, cuda::std::uint64_t granted) const noexcept
{
  // Whether this waiter has seen the side's grants change within the last import_stall_ns:
  // never, on a side whose permits all come across the link.
  if (!wait.looked) {
    wait.looked = true;
    wait.granted = granted;
    return false;
  }
  if (granted != wait.granted) {
    wait.granted = granted;
    wait.granted_since_ns = detail::monotonic_nanoseconds();
    return true;
  }
  return wait.granted_since_ns != 0 &&
         detail::monotonic_nanoseconds() - wait.granted_since_ns < Backoff::tuning::import_stall_ns;
}

template <cuda::std::ptrdiff_t LeastMaxValue, class Backoff>
UNISYNC_HOST_DEVICE bool basic_partitioned_semaphore<LeastMaxValue, Backoff>::take_import_role(side_kind side)
{
  detail::own_side_word<cuda::std::uint32_t> const role(part_of(side).import_role);
  cuda::std::uint32_t expected = 0;
  // Acquire: the previous holder's stores of the side's link words and mirror come first
  // in their coherence orders.
  return role.load(detail::memory_order_relaxed) == 0 &&
         role.compare_exchange_strong(expected, 1, detail::memory_order_acquire, detail::memory_order_relaxed);
}

template <cuda::std::ptrdiff_t LeastMaxValue, class Backoff>
UNISYNC_HOST_DEVICE void basic_partitioned_semaphore<LeastMaxValue, Backoff>::import_for(side_kind side,
                                                                                        cuda::std::uint64_t extra,
                                                                                        bool may_steal)
{
  using detail::atomic_at;
  using detail::pool_scope;
  side_part& mine = part_of(side);
  // Acquire: synchronizes with the sender's release, so that what the permits' releasers
  // wrote reaches this side's waiters through the mirror's release below.
  cuda::std::uint64_t const sent = atomic_at<pool_scope>(sent_to(side)).load(detail::memory_order_acquire);
  detail::own_side_word<cuda::std::uint64_t> const seen(mine.permits_seen);
  if (detail::wrapping_distance(sent, seen.load(detail::memory_order_relaxed)) > 0) {
    seen.store(sent, detail::memory_order_release);
  }
  // The side's tickets (and `extra` tries without one) that its permits do not cover.
  cuda::std::uint64_t const taken = atomic_at<pool_scope>(mine.tickets_taken).load(detail::memory_order_relaxed);
  cuda::std::uint64_t const granted = atomic_at<pool_scope>(mine.permits_granted).load(detail::memory_order_relaxed);
  cuda::std::int64_t const uncovered = detail::wrapping_distance(taken + extra, granted + sent);
  cuda::std::uint64_t const wants = sent + static_cast<cuda::std::uint64_t>(uncovered > 0 ? uncovered : 0);
  detail::own_side_word<cuda::std::uint64_t> const stored(mine.wants_stored);
  cuda::std::uint64_t const stored_before = stored.load(detail::memory_order_relaxed);
  // Wants once asked never read 0 again (the other side forwards everything only to a
  // side that asked): where a steal covered the first ask before anything was sent, they
  // would, and the other side kept what it released until the next steal. The free slots
  // of a GPU-to-host ring of 64 went so once a lap (the GPU producer took them by steals,
  // 7-178 times in 200000 items; H200 machine, benchmark/results/h200-semaphore-gpu-bursts).
  // The other side then sends the permits asked for once more: they wait in this pool.
  if (wants == 0 && stored_before != 0) return;
  if (stored_before != wants) {
    stored.store(wants, detail::memory_order_relaxed);
    // Relaxed: a request, it publishes nothing; the sender's permits carry the ordering.
    atomic_at<pool_scope>(wants_of(side)).store(wants, detail::memory_order_relaxed);
  }
  if (!may_steal || uncovered <= 0) return;
  // Take the other side's free permits once its heartbeat has stood still long enough
  // (or was never seen moving: 0 in heartbeat_since_ns).
  cuda::std::uint64_t const beat = atomic_at<pool_scope>(heartbeat_of(other(side))).load(detail::memory_order_relaxed);
  cuda::std::uint64_t const now = detail::monotonic_nanoseconds();
  detail::own_side_word<cuda::std::uint64_t> const last_beat(mine.other_heartbeat);
  detail::own_side_word<cuda::std::uint64_t> const since(mine.heartbeat_since_ns);
  if (beat != last_beat.load(detail::memory_order_relaxed)) {
    last_beat.store(beat, detail::memory_order_relaxed);
    since.store(now, detail::memory_order_relaxed);
    return;
  }
  cuda::std::uint64_t const still_since = since.load(detail::memory_order_relaxed);
  if (still_since != 0 && now - still_since < Backoff::tuning::steal_after_ns) return;
  steal_for(side);
  since.store(now, detail::memory_order_relaxed);
}

template <cuda::std::ptrdiff_t LeastMaxValue, class Backoff>
UNISYNC_HOST_DEVICE void basic_partitioned_semaphore<LeastMaxValue, Backoff>::leave_import_role(side_kind side)
{
  // Asks again for what the side's remaining waiters lack (without the leaver's ticket,
  // now covered, or its try), then lets the next waiter take the role. Release: the next
  // holder's stores to the same words come after this holder's.
  import_for(side, 0, false);
  detail::own_side_word<cuda::std::uint32_t>(part_of(side).import_role).store(0, detail::memory_order_release);
}

template <cuda::std::ptrdiff_t LeastMaxValue, class Backoff>
UNISYNC_NOINLINE UNISYNC_HOST_DEVICE void basic_partitioned_semaphore<LeastMaxValue, Backoff>::steal_for(side_kind side)
{
  using detail::atomic_at;
  using detail::pool_scope;
  // The one read-modify-write across the link: free permits of the other side's pool (its
  // grants plus what was sent to it, beyond its tickets) taken with one compare-exchange
  // on its tickets_taken, as its own try_acquire would take them. Acquire loads first: the
  // permits' releasers and senders synchronize with this thread, and through the release
  // below with this side's waiters.
  side_part& theirs = part_of(other(side));
  auto taken = atomic_at<pool_scope>(theirs.tickets_taken);
  cuda::std::uint64_t const granted = atomic_at<pool_scope>(theirs.permits_granted).load(detail::memory_order_acquire);
  cuda::std::uint64_t const sent = atomic_at<pool_scope>(sent_to(other(side))).load(detail::memory_order_acquire);
  cuda::std::uint64_t next = taken.load(detail::memory_order_relaxed);
  for (cuda::std::uint32_t attempt = 0; attempt < Backoff::tuning::pool_transfer_attempts; ++attempt) {
    cuda::std::int64_t const free = detail::wrapping_distance(granted + sent, next);
    if (free <= 0) return;
    cuda::std::uint64_t const count = static_cast<cuda::std::uint64_t>(free);
    if (taken.compare_exchange_strong(next, next + count, detail::memory_order_acq_rel, detail::memory_order_relaxed)) {
      atomic_at<pool_scope>(part_of(side).permits_granted).fetch_add(count, detail::memory_order_release);
      // A steal is no acquisition of the other side: if that side only released, it still
      // does (its last forward's mark moves with the tickets taken here). Else it forwarded
      // only what was asked until its next forward, and the releases of a burst of GPU
      // blocks that found the mark moved waited for the next steal.
      cuda::std::uint64_t marked = next;
      atomic_at<pool_scope>(theirs.tickets_taken_at_forward)
          .compare_exchange_strong(marked, next + count, detail::memory_order_relaxed, detail::memory_order_relaxed);
      return;
    }
  }
}

template <cuda::std::ptrdiff_t LeastMaxValue, class Backoff>
UNISYNC_NOINLINE UNISYNC_HOST_DEVICE bool basic_partitioned_semaphore<LeastMaxValue, Backoff>::give_turn_away(
    side_kind side, cuda::std::uint64_t ticket)
{
  using detail::atomic_at;
  using detail::pool_scope;
  side_part& mine = part_of(side);
  // Odd values: a checking acquirer's; even: a link-reading release's (never equal). No
  // fence before the wants load below: a beat the importer misses only makes a steal
  // earlier (a hint), and wants this turn misses are seen by the next one.
  atomic_at<pool_scope>(heartbeat_of(side)).store(2 * ticket + 1, detail::memory_order_relaxed);
  detail::own_side_word<cuda::std::uint32_t> const role(mine.send_role);
  // Waits for the send role: its holders (a turn like this one, a forwarding release) hold
  // it for a few loads and stores (up to 1 + send_role_rounds forward rounds on the CPU
  // side, 1 + gpu_send_role_rounds link-free ones on the GPU) and never wait while
  // holding it. Skipping the turn when
  // it is busy starves the other side: a forwarding release whose leftover this very
  // acquirer's ticket took holds the role, forwards nothing, and can do so at every turn
  // (test/models: BUG_TURN_YIELDS_TO_SENDER).
  detail::retry_until_taken<Backoff>(Backoff::tuning::ticket_handoff_ns, [&] {
    cuda::std::uint32_t expected = 0;
    // Acquire: the previous holder's stores of permits_sent and sent_to come first.
    return role.load(detail::memory_order_relaxed) == 0 &&
           role.compare_exchange_strong(expected, 1, detail::memory_order_acquire, detail::memory_order_relaxed);
  });
  detail::own_side_word<cuda::std::uint64_t> const sent(mine.permits_sent);
  cuda::std::uint64_t const already = sent.load(detail::memory_order_relaxed);
  bool const gives =
      detail::wrapping_distance(atomic_at<pool_scope>(wants_of(other(side))).load(detail::memory_order_relaxed),
                                already) > 0;
  if (gives) {
    sent.store(already + 1, detail::memory_order_relaxed);
    // Release: this thread acquired the permit at its admission; the other side's import
    // role acquires it here.
    atomic_at<pool_scope>(sent_to(other(side))).store(already + 1, detail::memory_order_release);
  }
  leave_send_role(side);
  return gives;
}

template <cuda::std::ptrdiff_t LeastMaxValue, class Backoff>
UNISYNC_HOST_DEVICE void basic_partitioned_semaphore<LeastMaxValue, Backoff>::release_as(side_kind side,
                                                                                         cuda::std::uint64_t update,
                                                                                         bool releaser_comes_back)
{
  using detail::atomic_at;
  using detail::pool_scope;
  side_part& mine = part_of(side);
  auto granted = atomic_at<pool_scope>(mine.permits_granted);
  auto taken = atomic_at<pool_scope>(mine.tickets_taken);
  detail::own_side_word<cuda::std::uint64_t> const seen(mine.permits_seen);
  detail::own_side_word<cuda::std::uint64_t> const checked(mine.link_checked_ns);
#if UNISYNC_ENABLE_ASSERTIONS
  if (!is_flat(side)) {
    // The side's free permits are part of the count: concurrent acquires can only lower
    // this estimate, so a count above max() here is a real violation.
    cuda::std::uint64_t const before = granted.load(detail::memory_order_relaxed) + seen.load(detail::memory_order_relaxed);
    cuda::std::int64_t const free = detail::wrapping_distance(before, taken.load(detail::memory_order_relaxed));
    UNISYNC_ASSERT(static_cast<cuda::std::int64_t>(update) <= max() - (free > 0 ? free : 0),
                   "partitioned_semaphore::release(update) would raise the count above max()");
  }
#endif  // UNISYNC_ENABLE_ASSERTIONS
  cuda::std::uint64_t const after = granted.fetch_add(update, detail::memory_order_release) + update;
  // Every load the decisions below need, before any branch on the addition's result: on
  // the GPU they travel with it, one round trip to L2 instead of one after another.
  cuda::std::uint64_t const seen_now = seen.load(detail::memory_order_relaxed);
  cuda::std::uint64_t const taken_now = taken.load(detail::memory_order_relaxed);
  cuda::std::uint64_t const checked_ns = side == side_kind::gpu ? checked.load(detail::memory_order_relaxed) : 0;
  detail::own_side_word<cuda::std::uint32_t> const other_asked(mine.other_asked);
  bool const asked_before = side == side_kind::gpu && other_asked.load(detail::memory_order_relaxed) != 0;
  bool const send_role_held =
      side == side_kind::gpu &&
      detail::own_side_word<cuda::std::uint32_t>(mine.send_role).load(detail::memory_order_relaxed) != 0;
  cuda::std::uint64_t const left_by_forward =
      atomic_at<pool_scope>(mine.tickets_taken_at_forward).load(detail::memory_order_relaxed);
  if (is_flat_marked(after)) {
    flat_.semaphore.release(static_cast<cuda::std::ptrdiff_t>(update));
    return;
  }
  // Permits beyond the side's tickets: no waiter of the side takes them.
  cuda::std::int64_t const leftover = detail::wrapping_distance(after + seen_now, taken_now);
  if (leftover <= 0) return;
  // Nobody of the side took a ticket since its last forward: it only releases (a work
  // queue's consumers releasing its free slots).
  bool const only_releases = taken_now == left_by_forward;
  bool const piling_up = piles_up(side, only_releases, leftover);
  if (side == side_kind::gpu) {
    // The link read costs about a microsecond from the GPU: at most one per interval,
    // unless a side that only releases has half of max() left over. Its releases may stop
    // (a work queue's consumers waiting for items the producers cannot make without these
    // permits), and what the last of them left would wait for the other side's steal
    // (steal_after_ns, then a page migration): a ring of 64 slots moved 2.0e5 items/s with
    // 4 producers and 132 consumer blocks, 1.8e6 since (H200 machine,
    // benchmark/results/h200-semaphore-release-only-side). A max() above twice the
    // permits in circulation never piles up so far: the interval alone then.
    // Once the CPU side has asked (its wants, once not 0, stay so), a release that only
    // releases forwards every time, reading no link word: within the interval, leftovers
    // of several blocks releasing at once waited for a later release to read the link,
    // and after a burst none came: the host's steal took them, 1.2-3.0 ms a burst of
    // 8-132 blocks (H200 machine, benchmark/results/h200-semaphore-ring-laps/gpu-bursts).
    cuda::std::uint64_t const now = detail::monotonic_nanoseconds();
    bool const interval_over = now - checked_ns >= Backoff::tuning::link_check_interval_ns;
    // A holder of the send role may be between its compare-exchange on tickets_taken and
    // its store of the mark (only_releases then reads false): within the interval the
    // release asks it for a round, which looks with the holder's own view of the mark
    // (not measured apart; after the interval the release reads the link and, finding
    // the role held, leaves its permit to the next release or the steal).
    if (asked_before && (only_releases || (send_role_held && !interval_over))) {
      if (interval_over) {
        checked.store(now, detail::memory_order_relaxed);
        atomic_at<pool_scope>(heartbeat_of(side)).store(2 * after, detail::memory_order_relaxed);
      }
      forward_leftovers(side, true);
      return;
    }
    if (!piling_up && !interval_over) return;
    checked.store(now, detail::memory_order_relaxed);
  }
  atomic_at<pool_scope>(heartbeat_of(side)).store(2 * after, detail::memory_order_relaxed);
  // A host thread releasing the permit it acquired here keeps it in its side's pool for
  // its next acquire: forwarding it would make each of that thread's acquisitions wait for
  // the permit to cross the link and back (with one CPU thread and N = 8 the CPU got 2% of
  // the acquisitions). The hungry other side still gets it at the CPU's next turn (every
  // cpu_turn_acquisitions-th acquisition gives its permit away), by a release that is not
  // a pair's, or, if the thread does not come back, by the steal once the CPU side's
  // heartbeat has stood still for steal_after_ns.
  if (releaser_comes_back) return;
  // Store buffering (the fetch_add above, then this load; the importer stores wants, then
  // steal_for loads this pool) may leave both blind; no fence: no decision is final, as
  // after a release that ran before the wants were stored: the importer polls again.
  cuda::std::uint64_t const wants = atomic_at<pool_scope>(wants_of(other(side))).load(detail::memory_order_relaxed);
  if (side == side_kind::gpu && wants != 0 && !asked_before) other_asked.store(1, detail::memory_order_relaxed);
  // A side that only releases forwards every leftover once the other side's wants are not
  // 0 (it was sent permits before, or its waiters lack some): asking for what its waiters
  // lack, the other side asks again only when those permits are spent, and the leftovers
  // released meanwhile would wait in this pool for a later release (if any) to read the
  // link again. Piling up, it forwards them unasked (see piles_up).
  cuda::std::uint64_t const sent_so_far =
      detail::own_side_word<cuda::std::uint64_t>(mine.permits_sent).load(detail::memory_order_relaxed);
  if (!(only_releases && (wants != 0 || piling_up)) && detail::wrapping_distance(wants, sent_so_far) <= 0) {
    return;
  }
  forward_leftovers(side, false);
}

template <cuda::std::ptrdiff_t LeastMaxValue, class Backoff>
UNISYNC_HOST_DEVICE bool basic_partitioned_semaphore<LeastMaxValue, Backoff>::piles_up(
    side_kind side, bool only_releases, cuda::std::int64_t leftover) noexcept
{
  // A GPU side that only releases with half of max() left over reads the link within the
  // interval, and forwards all of it even where the CPU side's wants are 0: the CPU asks
  // only once its waiters lack permits (and a steal that covers them leaves its wants at
  // 0 again), and a ring's free slots, whose first lap is in the CPU's pool, ran out there
  // with nobody left to release on the GPU (the burst's items consumed) and waited for
  // the steal, 1 ms and a page migration, once a lap. The CPU side keeps to asked sends:
  // its releases (but a pair's) read the link each time, so a GPU ask is answered by the
  // next one, and the GPU's wants once asked stay so (a GPU-to-host ring's free slots
  // stalled once a lap while a steal could leave them at 0: see import_for).
  return side == side_kind::gpu && only_releases && 2 * leftover >= max();
}

template <cuda::std::ptrdiff_t LeastMaxValue, class Backoff>
UNISYNC_NOINLINE UNISYNC_HOST_DEVICE void basic_partitioned_semaphore<LeastMaxValue, Backoff>::forward_leftovers(
    side_kind side, bool link_free)
{
  // A release left permits that no waiter of its side takes, and the other side wants
  // some. It takes the send role (acquire: the last holder's stores), and never waits.
  // Finding it held, it asks the holder for one more round: one that left at once
  // stranded what it added after the holder's look at the pool until a later release
  // forwarded it, or until the other side's steal (1 ms and more), which a burst could end
  // on. The request releases this release's addition to the holder that serves it (or
  // takes the role, where the holder let go meanwhile). A GPU release that reads the link
  // leaves, as any GPU leftover waits within the link interval: a holder's extra round
  // there read the link (about a microsecond a load), and work queues with 132 consumer
  // blocks working 10 us per item ran 0.81-0.86x as fast with such requests (H200
  // machine, benchmark/results/h200-semaphore-send-requests); a link-free one asks, and
  // the GPU holder's extra rounds are link-free.
  detail::own_side_word<cuda::std::uint32_t> const role(part_of(side).send_role);
  cuda::std::uint32_t free_role = 0;
  if (!role.compare_exchange_strong(free_role, 1, detail::memory_order_acquire, detail::memory_order_relaxed) &&
      ((side == side_kind::gpu && !link_free) || role.fetch_add(1, detail::memory_order_acq_rel) != 0)) {
    return;
  }
  forward_held(side, link_free);
  leave_send_role(side);
}

template <cuda::std::ptrdiff_t LeastMaxValue, class Backoff>
UNISYNC_HOST_DEVICE void basic_partitioned_semaphore<LeastMaxValue, Backoff>::leave_send_role(side_kind side)
{
  // The holder serves the requests that came while it held the role (forwards that found
  // it held) with one more forward round each time, and lets go when none came; after
  // tuning::send_role_rounds rounds (gpu_send_role_rounds on the GPU) it lets go anyway,
  // leaving the last requests' permits to the next forward. On the GPU only link-free
  // releases ask, and the rounds read no link word either. Release: the next holder
  // acquires permits_sent and sent_to.
  detail::own_side_word<cuda::std::uint32_t> const role(part_of(side).send_role);
  cuda::std::uint32_t const rounds =
      side == side_kind::gpu ? Backoff::tuning::gpu_send_role_rounds : Backoff::tuning::send_role_rounds;
  for (cuda::std::uint32_t round = 0;; ++round) {
    cuda::std::uint32_t held = 1;
    if (role.compare_exchange_strong(held, 0, detail::memory_order_release, detail::memory_order_relaxed)) return;
    if (round == rounds) {
      role.store(0, detail::memory_order_release);
      return;
    }
    // Acquire: the requests' additions to the pool, which the round reads.
    role.exchange(1, detail::memory_order_acq_rel);
    forward_held(side, side == side_kind::gpu);
  }
}

template <cuda::std::ptrdiff_t LeastMaxValue, class Backoff>
UNISYNC_HOST_DEVICE void basic_partitioned_semaphore<LeastMaxValue, Backoff>::forward_held(side_kind side,
                                                                                           bool link_free)
{
  using detail::atomic_at;
  using detail::pool_scope;
  // The send role's holder takes free permits from the pool as a try_acquire would (the
  // exchange tried a few times) and sends them with one store: what the other side's
  // waiters lack, or every free permit where tickets_taken is what this side's last
  // forward left (no ticket taken, no steal since: a side that only releases, as a work
  // queue's consumers release its free slots), then even when the other side's wants are
  // met, as long as they are not 0, or it piles up (see piles_up). The other side asks for
  // what its waiters lack when it reads the link; answering only that, one request per
  // crossing, held such a queue to a few items per crossing. Link-free (a GPU side that
  // only releases to a side that asked before), it sends every free permit while the side
  // only releases, and nothing otherwise, without loading the wants.
  side_part& mine = part_of(side);
  detail::own_side_word<cuda::std::uint64_t> const sent(mine.permits_sent);
  auto taken_at_forward = atomic_at<pool_scope>(mine.tickets_taken_at_forward);
  cuda::std::uint64_t const already = sent.load(detail::memory_order_relaxed);
  cuda::std::uint64_t const wants =
      link_free ? already : atomic_at<pool_scope>(wants_of(other(side))).load(detail::memory_order_relaxed);
  cuda::std::int64_t const owed = detail::wrapping_distance(wants, already);
  bool const asked = link_free || wants != 0;
  auto taken = atomic_at<pool_scope>(mine.tickets_taken);
  // Acquire: the forwarded permits' releasers synchronize with this thread.
  cuda::std::uint64_t const granted = atomic_at<pool_scope>(mine.permits_granted).load(detail::memory_order_acquire);
  cuda::std::uint64_t const seen =
      detail::own_side_word<cuda::std::uint64_t>(mine.permits_seen).load(detail::memory_order_acquire);
  cuda::std::uint64_t const left_by_last_forward = taken_at_forward.load(detail::memory_order_relaxed);
  cuda::std::uint64_t next = taken.load(detail::memory_order_relaxed);
  for (cuda::std::uint32_t attempt = 0; attempt < Backoff::tuning::pool_transfer_attempts; ++attempt) {
    cuda::std::int64_t const free = detail::wrapping_distance(granted + seen, next);
    if (free <= 0) break;
    bool const only_releases = next == left_by_last_forward;
    bool const sends_all = only_releases && (asked || piles_up(side, only_releases, free));
    if (!sends_all && owed <= 0) break;
    cuda::std::uint64_t const count = static_cast<cuda::std::uint64_t>(sends_all || free < owed ? free : owed);
    if (taken.compare_exchange_strong(next, next + count, detail::memory_order_relaxed, detail::memory_order_relaxed)) {
      taken_at_forward.store(next + count, detail::memory_order_relaxed);
      sent.store(already + count, detail::memory_order_relaxed);
      atomic_at<pool_scope>(sent_to(other(side))).store(already + count, detail::memory_order_release);
      break;
    }
  }
}

template <cuda::std::ptrdiff_t LeastMaxValue, class Backoff>
UNISYNC_HOST_DEVICE bool basic_partitioned_semaphore<LeastMaxValue, Backoff>::try_take_free(side_kind side)
{
  side_part& mine = part_of(side);
  // As basic_counting_semaphore::try_acquire, with the mirror's permits added: the acquire
  // loads see the releases (or the import) that made the permit free, and the exchange
  // takes exactly the next ticket or none.
  cuda::std::uint64_t const granted =
      detail::atomic_at<detail::pool_scope>(mine.permits_granted).load(detail::memory_order_acquire);
  cuda::std::uint64_t const seen =
      detail::own_side_word<cuda::std::uint64_t>(mine.permits_seen).load(detail::memory_order_acquire);
  auto taken = detail::atomic_at<detail::pool_scope>(mine.tickets_taken);
  cuda::std::uint64_t next = taken.load(detail::memory_order_relaxed);
  if (detail::wrapping_distance(granted + seen, next) <= 0) return false;
  return taken.compare_exchange_strong(next, next + 1, detail::memory_order_relaxed, detail::memory_order_relaxed);
}

template <cuda::std::ptrdiff_t LeastMaxValue, class Backoff>
UNISYNC_HOST_DEVICE bool basic_partitioned_semaphore<LeastMaxValue, Backoff>::try_acquire_as(side_kind side)
{
  if (is_flat(side)) return flat_.semaphore.try_acquire();
  // No pairing note for a try: its tickets never reach a turn, so a host thread looping
  // try_acquire() and release() must forward its permit to a hungry other side.
  if (try_take_free(side)) return true;
  if (!take_import_role(side)) return false;
  // Looks once for permits sent to the side, and asks for one more: the wants stay
  // published after this try (the role is left without asking again), so the other side
  // sends one and a later try finds it.
  import_for(side, 1, false);
  bool const taken = try_take_free(side);
  detail::own_side_word<cuda::std::uint32_t>(part_of(side).import_role).store(0, detail::memory_order_release);
  return taken;
}

template <cuda::std::ptrdiff_t LeastMaxValue, class Backoff>
UNISYNC_HOST_DEVICE bool basic_partitioned_semaphore<LeastMaxValue, Backoff>::try_acquire_within(
    side_kind side, cuda::std::uint64_t timeout_ns)
{
  if (is_flat(side)) return flat_.semaphore.try_acquire_for(cuda::std::chrono::nanoseconds(timeout_ns));
  bool importing = false;
  bool const acquired = detail::wait_for_turn_within<Backoff>(timeout_ns, [&](cuda::std::memory_order) {
    if (try_take_free(side)) return 0u;
    if (!importing) importing = take_import_role(side);
    if (!importing) return forecast_for(part_of(side).permits_in_parallel, 1);
    // Counts itself in the wants (it holds no ticket); a timeout of zero never steals.
    import_for(side, 1, timeout_ns != 0);
    return try_take_free(side) ? 0u : Backoff::tuning::link_handoff_ns;
  });
  // Leaving asks again without this waiter: permits already sent for it stay in the
  // side's pool, where the next acquirer (or the other side's steal) finds them.
  if (importing) leave_import_role(side);
  return acquired;
}

#if defined(__CUDACC__)
template <cuda::std::ptrdiff_t LeastMaxValue, class Backoff>
template <class Group, class>
__device__ void basic_partitioned_semaphore<LeastMaxValue, Backoff>::acquire(Group const& group)
{
  detail::leader_takes_for_group(group, [this] { acquire(); });
}

template <cuda::std::ptrdiff_t LeastMaxValue, class Backoff>
template <class Group, class>
__device__ void basic_partitioned_semaphore<LeastMaxValue, Backoff>::release(Group const& group,
                                                                             cuda::std::ptrdiff_t update)
{
  detail::leader_gives_for_group(group, [this, update] { release(update); });
}
#endif  // defined(__CUDACC__)

template <cuda::std::ptrdiff_t LeastMaxValue, class Backoff>
void basic_partitioned_semaphore<LeastMaxValue, Backoff>::advise_placement(basic_partitioned_semaphore* semaphore,
                                                                           int device)
{
  if (device_capabilities(device).host_native_atomic_supported) {
    semaphore->select_flat_mode();
    return;  // one coherent system-wide pair of counters: no side prefers any memory
  }
  detail::advise_managed(&semaphore->cpu_, sizeof(side_part), memory_advice::prefer_host, device);
  detail::advise_managed(&semaphore->link_, sizeof(link_part), memory_advice::prefer_host, device);
  detail::advise_managed(&semaphore->gpu_, sizeof(side_part), memory_advice::prefer_device, device);
}

}  // namespace unisync
