#pragma once

#include <unisync/backoff.hpp>
#include <unisync/counting_semaphore.hpp>
#include <unisync/detail/atomic.hpp>
#include <unisync/detail/chrono.hpp>
#include <unisync/detail/config.hpp>
#include <unisync/detail/groups.hpp>
#include <unisync/detail/platform.hpp>
#include <unisync/managed.hpp>

#include <cuda/atomic>
#include <cuda/std/chrono>
#include <cuda/std/cstddef>
#include <cuda/std/cstdint>

#include <chrono>

namespace unisync {

/**
 * @brief std::counting_semaphore for CPU and GPU threads that keeps its read-modify-writes
 * on one side of the link: the platform-aware semaphore for GPUs without native host
 * atomics (PCIe).
 *
 * Each side has a pool: a FIFO fetch-and-add semaphore (basic_counting_semaphore's
 * tickets_taken / permits_granted) on a page of its own, advised for that side. A thread
 * acquires and releases on its own side's pool: one fetch_add each, in its own memory.
 * Permits cross the link by plain stores and loads on a host-resident link page:
 * - a side that has waiters its pool does not cover ("hungry") publishes how many permits
 *   it wants from the other side (`wants`, a target for the other side's sent counter);
 *   one waiter at a time does that (the side's import role, a try-lock in its page), and
 *   mirrors the other side's sent counter into its own page, where the side's waiters
 *   read it: a ticket is admitted below permits_granted + permits_seen (while its side's
 *   own grants stand still, a GPU waiter's forecast is at most one crossing,
 *   `tuning::link_handoff_ns`, whatever its place in the queue). A GPU waiter
 *   within `tuning::import_near_turn_tickets` of its turn leaves the role to waiters
 *   further back (or does not take it) while it sees the side's own grants move, so that
 *   no permit waits for a holder's link loads across PCIe; once they have stood still for
 *   `tuning::import_stall_ns` (or never moved while it waited) it takes the role;
 * - the other side sends by storing a monotonic `sent_to` counter (one sender at a time:
 *   the side's send role): its acquirer whose ticket is a multiple of the side's turn
 *   length (`tuning::cpu_turn_acquisitions`, `tuning::gpu_turn_acquisitions`, T) waits
 *   for the send role, gives its own, just admitted, permit to a hungry other side and
 *   queues again (at most once per acquire(): its next ticket keeps its permit); a host
 *   thread alone on the CPU side (it took the side's last T tickets itself, and none on
 *   another partitioned semaphore's CPU side between them) takes only every
 *   `tuning::lone_turn_factor`-th such ticket, or the first once `tuning::lone_turn_ns`
 *   have passed since its last turn or its admission after giving; and a
 *   release that leaves permits no waiter of its side takes forwards them to a hungry
 *   other side (through the send role; a release that finds it held leaves a request
 *   that the holder serves with one more round, up to `tuning::send_role_rounds` rounds
 *   on the CPU and `tuning::gpu_send_role_rounds` on the GPU, before it lets go; on the
 *   GPU it looks at the link at most every `tuning::link_check_interval_ns`, see below,
 *   unless a side that only releases has half of max() over; once the CPU side has
 *   asked, a GPU side that only releases forwards at every release without looking at
 *   the link, and only such GPU releases leave requests:
 *   benchmark/results/h200-semaphore-gpu-bursts): as many as the other side's waiters
 *   lack, or all of them where the side's tickets_taken is what its last forward left
 *   (nobody of the side took a ticket since; a steal from it moves the mark along: a
 *   side that only releases, as a work queue's
 *   consumers release its free slots; one request per crossing held such a queue to a
 *   few items per crossing), then even when the other side's wants are met, as long
 *   as they are not 0, and on the GPU side with half of max() over even unasked
 *   (benchmark/results/h200-semaphore-release-only-side and h200-semaphore-ring-laps;
 *   max() should then be the permits in circulation, as a ring's slots, for the
 *   half-of-max() rules to apply), except a host thread's release of the one permit it
 *   took here with acquire() (a pair, as in a lock-like loop; a try takes no turn, so its
 *   release forwards): that permit stays in the CPU's pool for the thread's next acquire,
 *   and reaches a hungry GPU side at the CPU's next turn, or by the steal below if the
 *   thread does not come back.
 * The other side's permits thus arrive in batches of one per T acquisitions while both
 * sides are busy (with N = 1: turns of T acquisitions), and at once when the releasing
 * side has no waiter. In equilibrium each side sends as often as it acquires T times, so
 * the sides' acquisitions stand about as their turns do (CPU : GPU = cpu_turn : gpu_turn,
 * 2 : 1 by default; a lone host thread's turns are longer, see below); measured on an
 * H200 machine (benchmark/results/h200-partitioned-semaphore-side-copies), with 8 or more
 * blocks, the CPU side took 0.67 of them at N = 1 and 0.43-0.67 at N = 8 with 4 or more
 * CPU threads, 0.43-0.61 and 0.28-0.54 with 2. A lone CPU thread got 0.02 of them (at
 * N = 8 from 33 blocks on) while its release sent the permit across at once, so that each of
 * its acquisitions waited for a permit to cross and come back; since a pair's release
 * keeps it, 0.53-0.73 at N = 8 and 0.67 at N = 1
 * (H100, benchmark/results/h100-semaphore-paired-release), and with its longer turns 0.89
 * at N = 1, which served 2.2x the pairs/s with 1-528 blocks (1.5-2.7x; against the code
 * before, five interleaved rounds, benchmark/results/h100-semaphore-lone-turns).
 *
 * A side with no threads left cannot answer: a kernel that finished with permits in its
 * side's pool, or a producer whose release found the other side not yet hungry. Its
 * permits are taken by the hungry side's import role once the other side's heartbeat (a
 * word each side's checking acquirers and link-reading releases store) has not changed
 * for `tuning::steal_after_ns`, or has never changed: a compare-exchange on that side's
 * tickets_taken, across the link. It is the one read-modify-write that crosses, and the
 * reason the pools' words use system-scope atomics on both sides: managed memory keeps
 * them atomic by migrating the page (about 1 ms), so it stays rare; a semaphore built
 * and then used from the GPU alone takes the initial permits from the CPU's pool once. A
 * side's wants once asked never read 0 again, even where a steal covered them before
 * anything was sent, so that the other side keeps forwarding what it releases (it then
 * sends the permits asked for once more: they wait in the asking side's pool, or go
 * back by the other side's steal if that side acquires later).
 *
 * Progress: starvation-free while permits keep being released; FIFO within a side, except
 * that a thread that gave its permit away queues again behind its side's later tickets
 * (once per acquire()). Bounded bypass: once a hungry side's wants are visible and the
 * other side keeps acquiring, each permit owed to it is sent within about 2T acquisitions
 * of the other side (a checker at a multiple of T that read the wants before they were
 * visible is followed by one T later), so its waiter with Q tickets ahead sees at most
 * about (Q + 2) T acquisitions of the other side, (Q + 2) lone_turn_factor T of a lone
 * host thread. test/models/partitioned_semaphore.pml checks, with turns of two and one
 * permit, liveness for one or two threads a side (three threads in all, with and without
 * steals) and the (Q + 2) T bound for three threads; with a lone thread's turns
 * (-DLONE=2) safety, the bound and liveness for one thread a side, and safety for three;
 * with two permits safety and liveness for one thread a side. The bound is claimed for
 * one permit: with two the model finds a waiter that sees more (one thread a side,
 * without steals). Corner: while
 * a side busy with its own permits is hungry for more and the other side is idle with
 * permits in its pool, the heartbeat rule takes them (it does not wait for the busy side
 * to starve). Another: a side that only releases sends what it releases to a side that
 * asked before even when that side has stopped acquiring (a GPU side with half of max()
 * over, even to a CPU side that never asked); if the sender then acquires
 * itself, those permits come back when the other side acquires again, or by the steal
 * once its heartbeat has stood still for `tuning::steal_after_ns` (a side that keeps
 * releasing keeps it moving).
 *
 * Memory ordering: everything a thread did before `release()` is visible to the thread
 * whose acquisition that permit admitted, on either side. Releases are release
 * fetch_adds at system scope on the releasing side's pool; waiters poll with acquire
 * loads. A sender (or forwarder) has acquired the permits it sends (its admission's
 * acquire load, or the acquire loads of the pool before the compare-exchange that takes
 * them), and stores sent_to
 * with a system-scope release; the receiving side's import role reads it with a
 * system-scope acquire and stores the mirror with a release, which its waiters acquire.
 * A steal acquires the victim's pool and the link before its compare-exchange and adds
 * the permits to its own pool with a release. PTX releases and acquires are cumulative,
 * so the chain orders the releaser's writes before the admitted thread's reads. No
 * fences: where a thread stores and then loads another word (a release's fetch_add, then
 * the wants, or the send role and the mark; an importer's wants, then a steal's loads; a
 * turn's heartbeat, then the wants; a holder's role, then the pool), store buffering can
 * only delay a transfer that polling, the next turn or the next release makes (or the
 * steal), never decide one; what moves permits is a compare-exchange on the pool's own
 * counter.
 *
 * Placement: construct it with `unisync::make_managed`, which advises each side's page
 * for that side and the link page for the host; on a GPU whose link has native host
 * atomics (`hostNativeAtomicSupported`, NVLink-C2C) it selects the flat mode instead: one
 * basic_counting_semaphore at system scope on a page without advice, since there one
 * system-scope atomic costs less than a handshake across the link (each operation first
 * adds to its side's pool counter, whose mark tells it the mode; not measured on such a
 * link). Without the advice it is still correct, only slower.
 *
 * When to choose it: CPU and GPU threads together over PCIe, where waits must stay
 * bounded. On the H100 machine (benchmark/results/h100, one run of every cell, libcu++ in
 * the same binary) it served more acquisitions per second than libcu++'s unfair semaphore
 * in 29 of 30 mixed cells at N = 8 (1.03-3.18x; 0.98x with one CPU thread and one block)
 * and in 7 of 30 at N = 1 (1.24-2.92x: one CPU thread with 1 and 33-528 blocks, 2 x 8,
 * 8 x 1; elsewhere 0.32-0.91x), with longest waits of at most 9.1 ms against libcu++'s
 * 11-103 ms in the N = 1 cells it led; on an H200 machine
 * (benchmark/results/h200-partitioned-semaphore-side-copies) it led 24 of 30 at N = 1,
 * libcu++'s semaphore running 2.3x slower there. The flat semaphore across the link is
 * slower in every mixed cell but one (1 x 1, N = 8: 0.84x; elsewhere 1.7-3200x slower).
 * For threads of one side alone its local path is basic_counting_semaphore's algorithm
 * (plus one load of the link per turn) at system scope, which the steal needs: there GPU
 * blocks alone did 0.59-0.76x of the flat semaphore's pairs/s, CPU threads alone
 * 0.75-1.02x (N = 1) and 0.77-0.93x (N = 8) (H100, in the same rounds,
 * benchmark/results/h100-semaphore-flat-mark: a GPU release still waits for its
 * addition's result, which tells it whether permits are left over for the other side,
 * and the import role reads the link while the side's own grants move); for one side
 * alone use basic_counting_semaphore (at device scope for GPU threads).
 *
 * @tparam LeastMaxValue the largest count the program needs; max() returns it. At most
 *                       `semaphore_max`.
 * @tparam Backoff       waiting policy; `proportional_backoff` (default).
 */
template <cuda::std::ptrdiff_t LeastMaxValue = semaphore_max, class Backoff = proportional_backoff>
class basic_partitioned_semaphore {
  static_assert(LeastMaxValue >= 0 && LeastMaxValue <= semaphore_max,
                "unisync::partitioned_semaphore supports LeastMaxValue in [0, unisync::semaphore_max]");
  static_assert(Backoff::tuning::cpu_turn_acquisitions >= 2 && Backoff::tuning::gpu_turn_acquisitions >= 2,
                "partitioned_semaphore's turns must be at least 2 acquisitions: with turns of 1, two hungry "
                "sides can hand one permit back and forth forever without either entering (test/models)");
  static_assert(Backoff::tuning::lone_turn_factor >= 1, "partitioned_semaphore's lone_turn_factor must be at least 1");

 public:
  /// The largest count: `LeastMaxValue`.
  UNISYNC_HOST_DEVICE static constexpr cuda::std::ptrdiff_t max() noexcept { return LeastMaxValue; }

  /// Preconditions: 0 <= desired <= max(), checked in every build. The initial permits
  /// start in the CPU's pool.
  UNISYNC_HOST_DEVICE constexpr explicit basic_partitioned_semaphore(cuda::std::ptrdiff_t desired)
      : cpu_(static_cast<cuda::std::uint64_t>(desired), in_parallel_for(desired)),
        gpu_(0, in_parallel_for(desired)),
        flat_(desired >= 0 && desired <= max() ? desired : 0)
  {
    UNISYNC_EXPECTS(desired >= 0 && desired <= max(), "partitioned_semaphore(desired) needs 0 <= desired <= max()");
  }
  basic_partitioned_semaphore(basic_partitioned_semaphore const&) = delete;
  basic_partitioned_semaphore& operator=(basic_partitioned_semaphore const&) = delete;

  /// Adds `update` permits to the calling side's pool, waking up to `update` of its
  /// waiters in ticket order; permits no waiter of the side takes go to a hungry other
  /// side, unless a host thread releases the one permit it took here with acquire() (it
  /// keeps it for its next acquire; see the class). Never waits. Preconditions (checked in
  /// debug builds): update >= 0 and the count stays <= max() (checked against the side's
  /// own free permits, a lower bound).
  /// Cost: one release fetch_add at system scope in the side's own memory and three loads
  /// there (six on the GPU, in flight together); when permits are left over, a load of
  /// the link (on the GPU at most every `tuning::link_check_interval_ns`) and, for a
  /// hungry other side, a compare-exchange in the side's memory and a release store
  /// across the link. A GPU side that only releases to a CPU side that asked before
  /// forwards at each release, without the load: compare-exchanges in its own memory and
  /// one release store across the link (one producer block's items/s 0.86-0.94x, its
  /// items' median latency 0.46-0.54x; H200 machine, h200-semaphore-gpu-bursts).
  UNISYNC_HOST_DEVICE void release(cuda::std::ptrdiff_t update = 1);

  /// Takes a ticket in the calling side's pool and blocks until a permit is granted to it.
  /// Cost: one fetch_add in the side's memory, then acquire polls there; at each turn
  /// (every T-th acquisition of the side, of a lone host thread fewer) it also loads the
  /// link and may give its permit to a hungry other side and queue again; a hungry side's
  /// import role polls the link.
  UNISYNC_HOST_DEVICE void acquire();

  /// Takes a free permit of the calling side's pool; never blocks, never takes a ticket
  /// it does not use. When none is free it reads the link once for permits sent to the
  /// side and asks for one (so that repeated tries succeed once the other side answers);
  /// it never takes the other side's pool. Cost: three loads and at most one
  /// compare-exchange in the side's memory; when that fails, about as much on the link.
  UNISYNC_HOST_DEVICE bool try_acquire() noexcept;

  /// @{
  /// Retries try_acquire() until it succeeds or `timeout` passes (try_acquire_until:
  /// until `when`); never takes a ticket, and takes an idle other side's permits as
  /// acquire() does. The clock is the calling side's monotonic clock; a timeout of zero
  /// or less tries exactly once.
  template <class Rep, class Period>
  UNISYNC_HOST_DEVICE bool try_acquire_for(cuda::std::chrono::duration<Rep, Period> const& timeout)
  {
    return try_acquire_within(running_side(), detail::to_nanoseconds(timeout));
  }
  template <class Clock, class Duration>
  UNISYNC_HOST_DEVICE bool try_acquire_until(cuda::std::chrono::time_point<Clock, Duration> const& when)
  {
    return detail::try_until(when,
                             [&](cuda::std::uint64_t left_ns) { return try_acquire_within(running_side(), left_ns); });
  }
  template <class Rep, class Period>
  bool try_acquire_for(std::chrono::duration<Rep, Period> const& timeout)
  {
    return try_acquire_within(running_side(), detail::to_nanoseconds(timeout));
  }
  template <class Clock, class Duration>
  bool try_acquire_until(std::chrono::time_point<Clock, Duration> const& when)
  {
    return detail::try_until(when,
                             [&](cuda::std::uint64_t left_ns) { return try_acquire_within(running_side(), left_ns); });
  }
  /// @}

#if defined(__CUDACC__)
  /// @{
  /// Group overloads: every thread of `group` calls them together; the leader acquires
  /// (or releases) one permit for the whole group and the group synchronizes.
  template <class Group, class = detail::enable_if_group_t<Group>>
  __device__ void acquire(Group const& group);
  template <class Group, class = detail::enable_if_group_t<Group>>
  __device__ void release(Group const& group, cuda::std::ptrdiff_t update = 1);
  /// @}
#endif  // defined(__CUDACC__)

  /// make_managed's placement hook: the CPU's page and the link page to the host, the
  /// GPU's page to the device; the flat mode on a link with native host atomics.
  static void advise_placement(basic_partitioned_semaphore* semaphore, int device);

 private:
  friend struct detail::test_access;

  /// The two sides of the link; a call runs on its thread's side (host tests stand in for
  /// the GPU by naming it).
  enum class side_kind : cuda::std::uint32_t { cpu = 0, gpu = 1 };

  /// One side's pool and its role holders' state, on a page of its own.
  struct alignas(detail::page_size) side_part {
    UNISYNC_HOST_DEVICE constexpr side_part(cuda::std::uint64_t initial, cuda::std::uint32_t in_parallel)
        : permits_in_parallel(in_parallel), permits_granted(initial)
    {
    }
    // Read-only after make_managed and read by every acquire of the side, so each side
    // keeps its own copy in its own memory: when both sides read one copy on a
    // page without advice, the page moved to whichever side read it last (H200 machine,
    // benchmark/results/h200-partitioned-semaphore-side-copies: mixed cells 2.0x (N = 1)
    // and 2.2x (N = 8) faster with the copies, 4 CPU threads x 132 blocks N = 1 6.2e5 ->
    // 1.3e6 pairs/s).
    // How many permits circulate side by side (the count at construction), for the
    // waiters' forecast.
    alignas(detail::cache_line_size) cuda::std::uint32_t permits_in_parallel = 1;
    // The pool, as basic_counting_semaphore's two counters. System-scope atomics: the
    // other side's import role may take free permits (a steal, see the class comment).
    // Written by the side's acquires (fetch_add), tries, forwarding releases and the
    // other side's steals (compare-exchange).
    alignas(detail::cache_line_size) cuda::std::uint64_t tickets_taken = 0;
    // The initial count plus every release on this side and every steal into it.
    // Written by the side's releases and steals (fetch_add).
    alignas(detail::cache_line_size) cuda::std::uint64_t permits_granted = 0;
    // The other side's sent_to counter for this side as the import role last read it
    // (never ahead of it). Written by the import role (store), read by the side's waiters.
    alignas(detail::cache_line_size) cuda::std::uint64_t permits_seen = 0;
    // The roles. Import: one waiter of the side that reads the link for the side, 1 while
    // held; written by whoever takes or leaves it (compare-exchange, store). Send: one
    // thread that stores the side's sent_to counter, 1 while held plus one for each
    // forwarding release that found it held (a request for one more round; on the GPU
    // side only releases that forward without reading the link ask);
    // written by its takers and requests (compare-exchange, fetch_add) and its holder
    // (exchange, compare-exchange, store).
    alignas(detail::cache_line_size) cuda::std::uint32_t import_role = 0;
    alignas(detail::cache_line_size) cuda::std::uint32_t send_role = 0;
    // Written only by the send role's holder: permits sent to the other side in all, and
    // tickets_taken as its last forward left it, or a steal that found it so (unchanged
    // since: no ticket taken on the side, the side only releases; system scope, as the
    // other side's steal moves it with a compare-exchange).
    alignas(detail::cache_line_size) cuda::std::uint64_t permits_sent = 0;
    cuda::std::uint64_t tickets_taken_at_forward = 0;
    // Written only by the import role's holder: the wants last stored to the link, the
    // other side's heartbeat last read and when (this side's clock) it was first read so.
    alignas(detail::cache_line_size) cuda::std::uint64_t wants_stored = 0;
    cuda::std::uint64_t other_heartbeat = 0;
    cuda::std::uint64_t heartbeat_since_ns = 0;
    // When (this side's clock) a release of the side last read the link; GPU side only.
    // Written by such releases (store; a hint).
    alignas(detail::cache_line_size) cuda::std::uint64_t link_checked_ns = 0;
    // 1 once a release of the side read the other side's wants as not 0 (they stay so once
    // asked): the side's releases that only release then forward without reading the
    // link. GPU side only; written by such releases (store; a hint).
    cuda::std::uint32_t other_asked = 0;
  };

  /// The words that cross the link, in host memory: the CPU reaches them locally, the GPU
  /// across the link. Index: the side the word belongs to (side_kind).
  struct alignas(detail::page_size) link_part {
    // Permits sent to side i in all: stored by the other side's send role.
    alignas(detail::cache_line_size) cuda::std::uint64_t sent_to_cpu = 0;
    alignas(detail::cache_line_size) cuda::std::uint64_t sent_to_gpu = 0;
    // The total of sent_to_<i> that side i's waiters want: stored by side i's import role.
    alignas(detail::cache_line_size) cuda::std::uint64_t cpu_wants = 0;
    alignas(detail::cache_line_size) cuda::std::uint64_t gpu_wants = 0;
    // Changes while side i acquires or releases through the link: stored by its checking
    // acquirers and link-reading releases (a hint; 0: never yet).
    alignas(detail::cache_line_size) cuda::std::uint64_t cpu_heartbeat = 0;
    alignas(detail::cache_line_size) cuda::std::uint64_t gpu_heartbeat = 0;
  };

  /// The flat mode's semaphore, on a page without advice.
  struct alignas(detail::page_size) flat_part {
    UNISYNC_HOST_DEVICE constexpr explicit flat_part(cuda::std::ptrdiff_t desired) : semaphore(desired) {}
    basic_counting_semaphore<cuda::thread_scope_system, LeastMaxValue, Backoff> semaphore;
  };

  /// How many permits circulate side by side when `desired` start out: the waiters'
  /// forecast serves that many tickets per handoff.
  UNISYNC_HOST_DEVICE static constexpr cuda::std::uint32_t in_parallel_for(cuda::std::ptrdiff_t desired) noexcept
  {
    return desired > 1 ? static_cast<cuda::std::uint32_t>(desired) : 1u;
  }

  /// An acquirer's state between the polls of its ticket.
  struct ticket_wait {
    bool importing = false;  // it holds its side's import role
    // The side's permits_granted as it last read it, and when (its side's clock) it last
    // saw it change (0: not yet).
    bool looked = false;
    cuda::std::uint64_t granted = 0;
    cuda::std::uint64_t granted_since_ns = 0;
    // The side's permits_in_parallel, loaded once per ticket.
    cuda::std::uint32_t in_parallel = 1;
  };

  UNISYNC_HOST_DEVICE static side_kind running_side() noexcept;
  UNISYNC_HOST_DEVICE static side_kind other(side_kind side) noexcept;
  UNISYNC_HOST_DEVICE static cuda::std::uint32_t turn_length(side_kind side) noexcept;
  UNISYNC_HOST_DEVICE side_part& part_of(side_kind side) noexcept;
  UNISYNC_HOST_DEVICE cuda::std::uint64_t& sent_to(side_kind side) noexcept;
  UNISYNC_HOST_DEVICE cuda::std::uint64_t& wants_of(side_kind side) noexcept;
  UNISYNC_HOST_DEVICE cuda::std::uint64_t& heartbeat_of(side_kind side) noexcept;
  /// Flat mode marks both pools' counters with this bit (they never reach it otherwise),
  /// so that acquire() and release() learn the mode from their first atomic's result: a
  /// flag loaded before it is a round trip to L2 on the GPU
  /// (benchmark/results/h100-semaphore-flat-mark).
  static constexpr cuda::std::uint64_t flat_mark = cuda::std::uint64_t{1} << 63;
  UNISYNC_HOST_DEVICE static constexpr bool is_flat_marked(cuda::std::uint64_t counter) noexcept
  {
    return (counter & flat_mark) != 0;
  }
  UNISYNC_HOST_DEVICE bool is_flat(side_kind side) noexcept;
  void select_flat_mode() noexcept;

  UNISYNC_HOST_DEVICE void acquire_as(side_kind side);
  UNISYNC_HOST_DEVICE void release_as(side_kind side, cuda::std::uint64_t update, bool releaser_comes_back = false);
  // Whether release() gives back the permit the calling host thread took here with
  // acquire() (turn_comes notes it): see there.
  UNISYNC_HOST_DEVICE bool releases_own_acquisition(side_kind side, cuda::std::uint64_t update) noexcept;
  // Whether the admitted `ticket` is a turn (checks the other side's wants); notes the
  // calling host thread's acquisition and run of tickets. `gave`: the acquire() gave its
  // permit away.
  UNISYNC_HOST_DEVICE bool turn_comes(side_kind side, cuda::std::uint64_t ticket, bool gave) noexcept;
  UNISYNC_HOST_DEVICE bool try_acquire_as(side_kind side);
  UNISYNC_HOST_DEVICE bool try_acquire_within(side_kind side, cuda::std::uint64_t timeout_ns);
  UNISYNC_HOST_DEVICE bool try_take_free(side_kind side);
  UNISYNC_HOST_DEVICE static cuda::std::uint32_t forecast_for(cuda::std::uint32_t permits_in_parallel,
                                                              cuda::std::int64_t tickets_to_go) noexcept;
  UNISYNC_HOST_DEVICE cuda::std::uint32_t forecast_for_ticket(side_kind side, cuda::std::uint64_t ticket,
                                                              cuda::std::memory_order order, ticket_wait& wait);
  UNISYNC_HOST_DEVICE bool grants_moved_lately(ticket_wait& wait, cuda::std::uint64_t granted) const noexcept;
  UNISYNC_HOST_DEVICE bool take_import_role(side_kind side);
  UNISYNC_HOST_DEVICE void import_for(side_kind side, cuda::std::uint64_t extra, bool may_steal);
  UNISYNC_HOST_DEVICE void leave_import_role(side_kind side);
  UNISYNC_NOINLINE UNISYNC_HOST_DEVICE void steal_for(side_kind side);
  UNISYNC_NOINLINE UNISYNC_HOST_DEVICE bool give_turn_away(side_kind side, cuda::std::uint64_t ticket);
  // Whether a side that only releases has so many permits over that it reads the link at
  // once and forwards them all, asked or not (see its definition).
  UNISYNC_HOST_DEVICE static bool piles_up(side_kind side, bool only_releases, cuda::std::int64_t leftover) noexcept;
  // `link_free`: a GPU release that only releases to a side that asked before; it reads no
  // link word (see release_as).
  UNISYNC_NOINLINE UNISYNC_HOST_DEVICE void forward_leftovers(side_kind side, bool link_free);
  UNISYNC_HOST_DEVICE void forward_held(side_kind side, bool link_free);
  UNISYNC_HOST_DEVICE void leave_send_role(side_kind side);

  side_part cpu_;
  side_part gpu_;
  link_part link_;
  flat_part flat_;
};

/// The platform-aware system-scope semaphore shared by CPU and GPU threads.
template <cuda::std::ptrdiff_t LeastMaxValue = semaphore_max>
using partitioned_semaphore = basic_partitioned_semaphore<LeastMaxValue>;
/// Its binary form.
using partitioned_binary_semaphore = partitioned_semaphore<1>;

}  // namespace unisync

#include <unisync/detail/partitioned_semaphore.inl>
