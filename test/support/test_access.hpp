#pragma once
// The tests' hook into the primitives' counters (befriended as unisync::detail::test_access):
// to see when a waiter has taken its ticket, and to start counters near the 64-bit wrap.

#include <unisync/barrier.hpp>
#include <unisync/cohort_mutex.hpp>
#include <unisync/counting_semaphore.hpp>
#include <unisync/latch.hpp>
#include <unisync/partitioned_barrier.hpp>
#include <unisync/partitioned_semaphore.hpp>
#include <unisync/shared_mutex.hpp>
#include <unisync/ticket_mutex.hpp>

#include <cuda/std/cstdint>

namespace unisync::detail {

struct test_access {
  template <cuda::thread_scope Scope, class Backoff>
  UNISYNC_HOST_DEVICE static cuda::std::uint64_t tickets_taken(basic_ticket_mutex<Scope, Backoff>& lock)
  {
    return atomic_at<Scope>(lock.lock_.tickets_taken).load(memory_order_acquire);
  }
  /// Moves both counters of an unused lock to `ticket`.
  template <cuda::thread_scope Scope, class Backoff>
  static void start_tickets_at(basic_ticket_mutex<Scope, Backoff>& lock, cuda::std::uint64_t ticket)
  {
    lock.lock_.tickets_taken = ticket;
    lock.lock_.tickets_served = ticket;
  }

  /// The cohort mutex's local queue of the calling side.
  template <class Backoff>
  UNISYNC_HOST_DEVICE static cuda::std::uint64_t tickets_taken(basic_cohort_mutex<Backoff>& lock)
  {
    return running_on_device() ? atomic_at<cuda::thread_scope_device>(lock.gpu_.local.tickets_taken).load(memory_order_acquire)
                               : atomic_at<cuda::thread_scope_system>(lock.cpu_.local.tickets_taken).load(memory_order_acquire);
  }
  template <class Backoff>
  static void start_tickets_at(basic_cohort_mutex<Backoff>& lock, cuda::std::uint64_t ticket)
  {
    // The served words carry the holders' state below the ticket (0: top lock free).
    constexpr unsigned state_bits = basic_cohort_mutex<Backoff>::holder_state_bits;
    lock.cpu_.local.tickets_taken = lock.gpu_.local.tickets_taken = ticket;
    lock.cpu_.local.tickets_served = lock.gpu_.local.tickets_served = ticket << state_bits;
  }

  /// A host thread that plays the cohort mutex's GPU side: its local lock and top-lock
  /// index, and the unlock() a GPU thread runs (passes first, looks after).
  template <class Backoff>
  static void lock_as_gpu(basic_cohort_mutex<Backoff>& lock)
  {
    lock.lock_on(lock.gpu_, basic_cohort_mutex<Backoff>::gpu_side);
  }
  template <class Backoff>
  static bool try_lock_as_gpu(basic_cohort_mutex<Backoff>& lock)
  {
    return lock.try_lock_on(lock.gpu_, basic_cohort_mutex<Backoff>::gpu_side);
  }
  template <class Backoff>
  static bool try_lock_within_as_gpu(basic_cohort_mutex<Backoff>& lock, cuda::std::uint64_t timeout_ns)
  {
    return lock.try_lock_within_on(lock.gpu_, basic_cohort_mutex<Backoff>::gpu_side, timeout_ns);
  }
  template <class Backoff>
  static void unlock_as_gpu(basic_cohort_mutex<Backoff>& lock)
  {
    lock.pass_then_look(lock.gpu_, basic_cohort_mutex<Backoff>::gpu_side);
  }
  /// Leaves the GPU side's free local lock with the top lock held and `passes` passes
  /// counted, as a GPU unlock() that passed to nobody leaves it until it takes the lock
  /// back; the turn word names the GPU side, as the CPU side's announcement leaves it.
  template <class Backoff>
  static void leave_gpu_side_passed(basic_cohort_mutex<Backoff>& lock, cuda::std::uint32_t passes)
  {
    using mutex = basic_cohort_mutex<Backoff>;
    lock.gpu_.local.tickets_served += mutex::holder_state(mutex::top_held, passes);
    lock.top_.gpu_interested = 1;
    lock.top_.turn = mutex::gpu_side;
  }
  /// The GPU side's pass count as its local lock's served word holds it, and whether the
  /// turn word names the GPU side.
  template <class Backoff>
  static cuda::std::uint32_t gpu_side_passes(basic_cohort_mutex<Backoff>& lock)
  {
    using mutex = basic_cohort_mutex<Backoff>;
    return mutex::passes_of(atomic_at<cuda::thread_scope_device>(lock.gpu_.local.tickets_served).load(memory_order_acquire) &
                            decltype(lock.gpu_.local)::state_mask);
  }
  template <class Backoff>
  static bool turn_names_gpu_side(basic_cohort_mutex<Backoff>& lock)
  {
    return atomic_at<cuda::thread_scope_system>(lock.top_.turn).load(memory_order_acquire) ==
           basic_cohort_mutex<Backoff>::gpu_side;
  }
  /// Stores the turn word as the GPU side's own announcement leaves it ("you first" to the
  /// CPU side).
  template <class Backoff>
  static void turn_to_cpu_side(basic_cohort_mutex<Backoff>& lock)
  {
    atomic_at<cuda::thread_scope_system>(lock.top_.turn)
        .store(basic_cohort_mutex<Backoff>::cpu_side, memory_order_release);
  }
  /// Withdraws the GPU side's interest in the top lock: lets a waiting CPU side in after a
  /// broken GPU side kept it.
  template <class Backoff>
  static void let_cpu_side_in(basic_cohort_mutex<Backoff>& lock)
  {
    atomic_at<cuda::thread_scope_system>(lock.top_.gpu_interested).store(0, memory_order_release);
  }
  /// Whether a side has announced interest in the cohort mutex's top lock.
  template <class Backoff>
  static bool gpu_side_interested(basic_cohort_mutex<Backoff>& lock)
  {
    return atomic_at<cuda::thread_scope_system>(lock.top_.gpu_interested).load(memory_order_acquire) != 0;
  }
  template <class Backoff>
  static bool cpu_side_interested(basic_cohort_mutex<Backoff>& lock)
  {
    return atomic_at<cuda::thread_scope_system>(lock.top_.cpu_interested).load(memory_order_acquire) != 0;
  }
  /// Whether the CPU side's local lock carries the top lock handed over: its next holder
  /// waits for the top lock on the interest already announced, without announcing.
  template <class Backoff>
  static bool cpu_side_handed_over(basic_cohort_mutex<Backoff>& lock)
  {
    using mutex = basic_cohort_mutex<Backoff>;
    cuda::std::uint64_t const served =
        atomic_at<cuda::thread_scope_system>(lock.cpu_.local.tickets_served).load(memory_order_acquire);
    return mutex::top_of(served & decltype(lock.cpu_.local)::state_mask) == mutex::top_handed_over;
  }
  /// Whether the CPU side has announced and let the GPU side go first: it waits. Only the
  /// CPU's announcement sets the turn to the GPU side once the test is running.
  template <class Backoff>
  static bool cpu_side_waits_for_gpu(basic_cohort_mutex<Backoff>& lock)
  {
    return cpu_side_interested(lock) && turn_names_gpu_side(lock);
  }

  /// Keeps every phase on the central word, as on a link with native host atomics.
  template <class Completion, class Backoff>
  static void make_flat(basic_partitioned_barrier<Completion, Backoff>& barrier)
  {
    barrier.central_.flat = 1;
  }
  /// Flips the host waiters' hint line, as a completing thread's late store (after it left
  /// with arrive_and_drop) can: the hint then shows the open phase as the previous one.
  template <cuda::thread_scope Scope, class Completion, class Backoff>
  static void flip_hint(basic_barrier<Scope, Completion, Backoff>& barrier)
  {
    barrier.open_phase_ -= 1u;
  }
  template <class Completion, class Backoff>
  static void flip_hint(basic_partitioned_barrier<Completion, Backoff>& barrier)
  {
    barrier.cpu_.open_parity ^= 1u;
  }
  /// Pretends the first phase found `cpu_share` CPU and `gpu_share` GPU participants.
  template <class Completion, class Backoff>
  static void assume_split(basic_partitioned_barrier<Completion, Backoff>& barrier, cuda::std::uint32_t cpu_share,
                           cuda::std::uint32_t gpu_share)
  {
    using barrier_type = basic_partitioned_barrier<Completion, Backoff>;
    barrier.cpu_ = {};
    barrier.gpu_ = {};
    barrier.reports_ = {};
    barrier.reports_.from_cpu = cpu_share;
    barrier.reports_.from_gpu = gpu_share;
    barrier.cpu_.word = (gpu_share != 0 ? barrier_type::mixed_flag : 0) | cpu_share;
    barrier.gpu_.word = (cpu_share != 0 ? barrier_type::mixed_flag : 0) | gpu_share;
  }
  /// A side of a partitioned barrier, for host threads that stand in for GPU threads.
  enum class side { cpu, gpu };
  template <class Barrier>
  static auto side_of(side which)
  {
    return which == side::gpu ? Barrier::side_kind::gpu : Barrier::side_kind::cpu;
  }
  /// arrive(update) and arrive_and_drop() as a thread of `which` side would call them.
  template <class Completion, class Backoff>
  static auto arrive_as(basic_partitioned_barrier<Completion, Backoff>& barrier, side which,
                        cuda::std::uint32_t update = 1, bool drop = false)
  {
    auto const side = side_of<basic_partitioned_barrier<Completion, Backoff>>(which);
    if (!drop) return barrier.arrive_placed(side, update).last_token();
    return barrier.arrive_as(side, update, true, nullptr);
  }
  /// One addition of `lanes` arrivals by a thread of `which` side, as a warp's lanes add
  /// them; says where each landed (span_phases, phase_of(rank), token_of(rank)).
  template <class Completion, class Backoff>
  static auto arrive_lanes(basic_partitioned_barrier<Completion, Backoff>& barrier, side which,
                           cuda::std::uint32_t lanes)
  {
    return barrier.arrive_placed(side_of<basic_partitioned_barrier<Completion, Backoff>>(which), lanes);
  }
  /// The number of phases a partitioned barrier has completed, wrapping at 2^15: the first
  /// on the central word (complete once its last arriver, after the completion, armed the
  /// sides), then those of the CPU's word when the CPU has participants, else the GPU's
  /// (flat mode: the central word's).
  template <class Completion, class Backoff>
  UNISYNC_HOST_DEVICE static cuda::std::uint32_t open_phase(basic_partitioned_barrier<Completion, Backoff>& barrier)
  {
    using barrier_type = basic_partitioned_barrier<Completion, Backoff>;
    auto const central = static_cast<cuda::std::uint32_t>(
        atomic_at<cuda::thread_scope_system>(barrier.central_.phase_and_missing).load(memory_order_acquire) >>
        barrier_type::phase_shift);
    cuda::std::uint64_t const cpu = atomic_at<cuda::thread_scope_system>(barrier.cpu_.word).load(memory_order_acquire);
    if (barrier.central_.flat != 0 || (cpu & barrier_type::learning_flag) != 0) return central;
    cuda::std::uint64_t const word =
        barrier_type::participants_of(cpu) != 0
            ? cpu
            : atomic_at<cuda::thread_scope_system>(barrier.gpu_.word).load(memory_order_acquire);
    return (1u + barrier_type::phase_of(word)) & barrier_type::side_phase_mask;
  }
  /// An arrival's addition to its side's word alone, as a thread of `which` side inside
  /// arrive() has made it before the rest (its arm, or its completion of the phase): the
  /// word before it, for finish_side_arrival. Only where the side counts on its own.
  template <class Completion, class Backoff>
  static cuda::std::uint64_t add_side_arrival(basic_partitioned_barrier<Completion, Backoff>& barrier, side which)
  {
    using barrier_type = basic_partitioned_barrier<Completion, Backoff>;
    auto& part = barrier.part_of(side_of<barrier_type>(which));
    return atomic_at<cuda::thread_scope_system>(part.word).fetch_add(cuda::std::uint64_t{1}
                                                                         << barrier_type::side_count_shift,
                                                                     memory_order_acq_rel);
  }
  /// The rest of that arrival, and its token.
  template <class Completion, class Backoff>
  static auto finish_side_arrival(basic_partitioned_barrier<Completion, Backoff>& barrier, side which,
                                  cuda::std::uint64_t before)
  {
    return barrier.arrive_on_side(side_of<basic_partitioned_barrier<Completion, Backoff>>(which), before, 1, false,
                                  nullptr);
  }
  /// Whether `which` side's open phase is armed (its first arrival's arm is in).
  template <class Completion, class Backoff>
  static bool side_phase_armed(basic_partitioned_barrier<Completion, Backoff>& barrier, side which)
  {
    using barrier_type = basic_partitioned_barrier<Completion, Backoff>;
    auto& part = barrier.part_of(side_of<barrier_type>(which));
    return barrier_type::count_of(atomic_at<cuda::thread_scope_system>(part.word).load(memory_order_acquire)) >=
           barrier_type::side_armed_min;
  }
  /// wait(token) as a thread of `which` side would call it.
  template <class Completion, class Backoff, class Token>
  static void wait_as(basic_partitioned_barrier<Completion, Backoff> const& barrier, side which, Token&& token)
  {
    barrier.wait_as(side_of<basic_partitioned_barrier<Completion, Backoff>>(which), static_cast<Token&&>(token));
  }
  /// try_wait_for(token, timeout) as a thread of `which` side would call it.
  template <class Completion, class Backoff, class Token>
  static bool try_wait_for_as(basic_partitioned_barrier<Completion, Backoff> const& barrier, side which,
                              Token const& token, cuda::std::uint64_t timeout_ns)
  {
    return barrier.try_wait_within(side_of<basic_partitioned_barrier<Completion, Backoff>>(which), token, timeout_ns);
  }

  /// Keeps every call of a system-scope latch on one word, as on a link with native host
  /// atomics.
  template <class Backoff>
  static void make_flat(basic_latch<cuda::thread_scope_system, Backoff>& latch)
  {
    latch.select_flat_mode();
  }
  /// count_down(update), wait() and try_wait() as a thread of `which` side would call them.
  template <cuda::thread_scope Scope, class Backoff>
  static void count_down_as(basic_latch<Scope, Backoff>& latch, side which, cuda::std::uint64_t update = 1)
  {
    static_cast<void>(latch.count_down_as(side_of<basic_latch<Scope, Backoff>>(which), update));
  }
  template <cuda::thread_scope Scope, class Backoff>
  static void wait_as(basic_latch<Scope, Backoff> const& latch, side which)
  {
    auto const as = side_of<basic_latch<Scope, Backoff>>(which);
    latch.wait_as(as, 1, latch.flat_mode(as));
  }
  template <cuda::thread_scope Scope, class Backoff>
  static bool try_wait_as(basic_latch<Scope, Backoff> const& latch, side which)
  {
    return latch.try_wait_as(side_of<basic_latch<Scope, Backoff>>(which));
  }
  /// The GPU's total as its word holds it (without flat mode's mark), and as its last
  /// report says.
  template <class Backoff>
  static cuda::std::uint32_t gpu_total(basic_latch<cuda::thread_scope_system, Backoff>& latch)
  {
    using latch_type = basic_latch<cuda::thread_scope_system, Backoff>;
    cuda::std::uint64_t const word =
        atomic_at<cuda::thread_scope_system>(latch.state_.device.word).load(memory_order_acquire);
    return static_cast<cuda::std::uint32_t>((word & ~latch_type::flat_mark) >> 32);
  }
  template <class Backoff>
  static cuda::std::uint32_t gpu_report(basic_latch<cuda::thread_scope_system, Backoff>& latch)
  {
    return atomic_at<cuda::thread_scope_system>(latch.state_.host.gpu_report).load(memory_order_acquire);
  }
  /// How many GPU waiters have claimed a watcher's role (the first two claims are the
  /// roles; a few more may count up while they race).
  template <class Backoff>
  static cuda::std::uint32_t gpu_watcher_claims(basic_latch<cuda::thread_scope_system, Backoff>& latch)
  {
    return atomic_at<cuda::thread_scope_system>(latch.state_.device.watchers).load(memory_order_relaxed);
  }

  template <cuda::thread_scope Scope, cuda::std::ptrdiff_t Max, class Backoff>
  UNISYNC_HOST_DEVICE static cuda::std::uint64_t tickets_taken(basic_counting_semaphore<Scope, Max, Backoff>& semaphore)
  {
    return atomic_at<Scope>(semaphore.tickets_taken_).load(memory_order_acquire);
  }
  /// Moves both counters of an unused semaphore so the next ticket is `ticket`, keeping
  /// its count.
  template <cuda::thread_scope Scope, cuda::std::ptrdiff_t Max, class Backoff>
  static void start_tickets_at(basic_counting_semaphore<Scope, Max, Backoff>& semaphore, cuda::std::uint64_t ticket)
  {
    cuda::std::uint64_t const count = semaphore.permits_granted_ - semaphore.tickets_taken_;
    semaphore.tickets_taken_ = ticket;
    semaphore.permits_granted_ = ticket + count;
  }
  template <cuda::thread_scope Scope, cuda::std::ptrdiff_t Max, class Backoff>
  static cuda::std::int64_t count(basic_counting_semaphore<Scope, Max, Backoff>& semaphore)
  {
    return wrapping_distance(atomic_at<Scope>(semaphore.permits_granted_).load(memory_order_acquire),
                             atomic_at<Scope>(semaphore.tickets_taken_).load(memory_order_acquire));
  }

  /// The partitioned semaphore's calls as a thread of `which` side would make them (host
  /// threads stand in for GPU threads), its flat mode, and what each side's pool holds.
  template <cuda::std::ptrdiff_t Max, class Backoff>
  static auto side_of(basic_partitioned_semaphore<Max, Backoff> const&, side which)
  {
    using semaphore_type = basic_partitioned_semaphore<Max, Backoff>;
    return which == side::gpu ? semaphore_type::side_kind::gpu : semaphore_type::side_kind::cpu;
  }
  template <cuda::std::ptrdiff_t Max, class Backoff>
  static void acquire_as(basic_partitioned_semaphore<Max, Backoff>& semaphore, side which)
  {
    semaphore.acquire_as(side_of(semaphore, which));
  }
  template <cuda::std::ptrdiff_t Max, class Backoff>
  static void release_as(basic_partitioned_semaphore<Max, Backoff>& semaphore, side which, cuda::std::ptrdiff_t update = 1)
  {
    semaphore.release_as(side_of(semaphore, which), static_cast<cuda::std::uint64_t>(update));
  }
  template <cuda::std::ptrdiff_t Max, class Backoff>
  static bool try_acquire_as(basic_partitioned_semaphore<Max, Backoff>& semaphore, side which)
  {
    return semaphore.try_acquire_as(side_of(semaphore, which));
  }
  template <cuda::std::ptrdiff_t Max, class Backoff>
  static bool try_acquire_for_as(basic_partitioned_semaphore<Max, Backoff>& semaphore, side which,
                                 cuda::std::uint64_t timeout_ns)
  {
    return semaphore.try_acquire_within(side_of(semaphore, which), timeout_ns);
  }
  template <cuda::std::ptrdiff_t Max, class Backoff>
  static void make_flat(basic_partitioned_semaphore<Max, Backoff>& semaphore)
  {
    semaphore.select_flat_mode();
  }
  /// Tickets taken on the calling side's pool.
  template <cuda::std::ptrdiff_t Max, class Backoff>
  UNISYNC_HOST_DEVICE static cuda::std::uint64_t tickets_taken(basic_partitioned_semaphore<Max, Backoff>& semaphore)
  {
    if (semaphore.is_flat(semaphore.running_side())) return tickets_taken(semaphore.flat_.semaphore);
    return tickets_taken_on(semaphore, running_on_device() ? side::gpu : side::cpu);
  }
  /// Tickets taken on `which` side's pool (without flat mode's mark).
  template <cuda::std::ptrdiff_t Max, class Backoff>
  UNISYNC_HOST_DEVICE static cuda::std::uint64_t tickets_taken_on(basic_partitioned_semaphore<Max, Backoff>& semaphore,
                                                                  side which)
  {
    using semaphore_type = basic_partitioned_semaphore<Max, Backoff>;
    auto& part = which == side::gpu ? semaphore.gpu_ : semaphore.cpu_;
    return atomic_at<cuda::thread_scope_system>(part.tickets_taken).load(memory_order_acquire) &
           ~semaphore_type::flat_mark;
  }
  /// The semaphore's count as seen from the host when no thread is inside an operation:
  /// each pool's permits beyond its tickets, with what was sent to it and not yet
  /// mirrored (negative: waiters), summed over both sides; in flat mode the flat count.
  template <cuda::std::ptrdiff_t Max, class Backoff>
  static cuda::std::int64_t count(basic_partitioned_semaphore<Max, Backoff>& semaphore)
  {
    using side_kind = typename basic_partitioned_semaphore<Max, Backoff>::side_kind;
    if (semaphore.is_flat(side_kind::cpu)) return count(semaphore.flat_.semaphore);
    return pool_count(semaphore, side::cpu) + pool_count(semaphore, side::gpu);
  }
  template <cuda::std::ptrdiff_t Max, class Backoff>
  static cuda::std::int64_t pool_count(basic_partitioned_semaphore<Max, Backoff>& semaphore, side which)
  {
    auto& part = which == side::gpu ? semaphore.gpu_ : semaphore.cpu_;
    cuda::std::uint64_t const sent = which == side::gpu ? semaphore.link_.sent_to_gpu : semaphore.link_.sent_to_cpu;
    return wrapping_distance(part.permits_granted + sent, part.tickets_taken);
  }
  /// Permits `which` side has sent to the other, and the wants `which` side has published.
  template <cuda::std::ptrdiff_t Max, class Backoff>
  static cuda::std::uint64_t permits_sent_by(basic_partitioned_semaphore<Max, Backoff>& semaphore, side which)
  {
    auto& part = which == side::gpu ? semaphore.gpu_ : semaphore.cpu_;
    return atomic_at<cuda::thread_scope_system>(part.permits_sent).load(memory_order_acquire);
  }
  /// Moves `which` side's heartbeat, as its releases and turns do: the other side's
  /// importer then steals only once it has stood still for steal_after_ns (a heartbeat
  /// never seen moving is stolen from at the first poll).
  template <cuda::std::ptrdiff_t Max, class Backoff>
  static void move_heartbeat(basic_partitioned_semaphore<Max, Backoff>& semaphore, side which)
  {
    auto& beat = which == side::gpu ? semaphore.link_.gpu_heartbeat : semaphore.link_.cpu_heartbeat;
    atomic_at<cuda::thread_scope_system>(beat).fetch_add(2, memory_order_relaxed);
  }
  /// Takes `which` side's send role as a forwarding release does, with a compare-exchange
  /// from free (false: it was held), and lets go of it as its holder does, serving the
  /// requests of releases that found it held.
  template <cuda::std::ptrdiff_t Max, class Backoff>
  static bool take_send_role(basic_partitioned_semaphore<Max, Backoff>& semaphore, side which)
  {
    auto& part = which == side::gpu ? semaphore.gpu_ : semaphore.cpu_;
    cuda::std::uint32_t free_role = 0;
    return atomic_at<cuda::thread_scope_system>(part.send_role)
        .compare_exchange_strong(free_role, 1, memory_order_acquire, memory_order_relaxed);
  }
  template <cuda::std::ptrdiff_t Max, class Backoff>
  static void leave_send_role(basic_partitioned_semaphore<Max, Backoff>& semaphore, side which)
  {
    semaphore.leave_send_role(side_of(semaphore, which));
  }
  template <cuda::std::ptrdiff_t Max, class Backoff>
  static cuda::std::uint64_t wants_of(basic_partitioned_semaphore<Max, Backoff>& semaphore, side which)
  {
    auto& wants = which == side::gpu ? semaphore.link_.gpu_wants : semaphore.link_.cpu_wants;
    return atomic_at<cuda::thread_scope_system>(wants).load(memory_order_acquire);
  }
  /// A shared_mutex's side, for host threads that stand in for GPU threads (system scope).
  template <cuda::thread_scope Scope, class Backoff>
  static auto shared_side_of(side which)
  {
    using mutex_type = basic_shared_mutex<Scope, Backoff>;
    return which == side::gpu ? mutex_type::side_kind::gpu : mutex_type::side_kind::cpu;
  }
  /// lock_shared(), try_lock_shared_for(), unlock_shared() as a thread of `which` side.
  template <cuda::thread_scope Scope, class Backoff>
  static void lock_shared_as(basic_shared_mutex<Scope, Backoff>& mutex, side which)
  {
    mutex.lock_shared_as(shared_side_of<Scope, Backoff>(which));
  }
  template <cuda::thread_scope Scope, class Backoff>
  static bool try_lock_shared_for_as(basic_shared_mutex<Scope, Backoff>& mutex, side which,
                                     cuda::std::uint64_t timeout_ns)
  {
    return mutex.try_lock_shared_within_as(shared_side_of<Scope, Backoff>(which), timeout_ns);
  }
  template <cuda::thread_scope Scope, class Backoff>
  static void unlock_shared_as(basic_shared_mutex<Scope, Backoff>& mutex, side which)
  {
    mutex.unlock_shared_as(shared_side_of<Scope, Backoff>(which));
  }
  /// Every reader word of a shared_mutex, or-ed: zero when no reader is registered, none is
  /// late and (system scope) the GPU side is not marked present.
  template <cuda::thread_scope Scope, class Backoff>
  static cuda::std::uint64_t reader_words(basic_shared_mutex<Scope, Backoff>& mutex)
  {
    if constexpr (basic_shared_mutex<Scope, Backoff>::partitioned) {
      return atomic_at<cuda::thread_scope_system>(mutex.state_.cpu.readers.word).load(memory_order_acquire) |
             atomic_at<cuda::thread_scope_system>(mutex.state_.gpu.readers.word).load(memory_order_acquire);
    } else {
      cuda::std::uint64_t all = 0;
      // Without the gate's tag, which every stripe keeps.
      for (auto& stripe : mutex.state_.stripes) all |= atomic_at<Scope>(stripe.word).load(memory_order_acquire);
      return all & (basic_shared_mutex<Scope, Backoff>::gate_tag_unit - 1);
    }
  }
  /// Registers a CPU reader that found the gate closed, declared itself late for the
  /// writer that closed it, and has not yet seen it reopen (a stand-in: no thread runs it).
  /// Returns the units added, which forget_reader() takes away.
  template <cuda::thread_scope Scope, class Backoff>
  static cuda::std::uint64_t stand_in_late_reader(basic_shared_mutex<Scope, Backoff>& mutex)
  {
    using mutex_type = basic_shared_mutex<Scope, Backoff>;
    cuda::std::uint64_t const gate = mutex.load_reader_gate(mutex_type::side_kind::cpu, memory_order_acquire).value;
    cuda::std::uint64_t const units = 1 + mutex_type::late_unit(mutex_type::late_slot(gate));
    atomic_at<Scope>(mutex.reader_word(mutex_type::side_kind::cpu)).fetch_add(units, memory_order_acq_rel);
    return units;
  }
  template <cuda::thread_scope Scope, class Backoff>
  static void forget_reader(basic_shared_mutex<Scope, Backoff>& mutex, cuda::std::uint64_t units)
  {
    using mutex_type = basic_shared_mutex<Scope, Backoff>;
    atomic_at<Scope>(mutex.reader_word(mutex_type::side_kind::cpu)).fetch_sub(units, memory_order_acq_rel);
  }
  /// Readers late for a writer, over every reader word.
  template <cuda::thread_scope Scope, class Backoff>
  static cuda::std::uint32_t late_readers(basic_shared_mutex<Scope, Backoff>& mutex)
  {
    using mutex_type = basic_shared_mutex<Scope, Backoff>;
    cuda::std::uint32_t late = 0;
    auto add = [&](cuda::std::uint64_t word) { late += mutex_type::late(word, 0) + mutex_type::late(word, 1); };
    if constexpr (mutex_type::partitioned) {
      add(atomic_at<cuda::thread_scope_system>(mutex.state_.cpu.readers.word).load(memory_order_acquire));
      add(atomic_at<cuda::thread_scope_system>(mutex.state_.gpu.readers.word).load(memory_order_acquire));
    } else {
      for (auto& stripe : mutex.state_.stripes) add(atomic_at<Scope>(stripe.word).load(memory_order_acquire));
    }
    return late;
  }
  /// The GPU side's report across the link (system scope): whether it says GPU readers are present.
  template <class Backoff>
  static bool gpu_reported_present(basic_shared_mutex<cuda::thread_scope_system, Backoff>& mutex)
  {
    return (atomic_at<cuda::thread_scope_system>(mutex.state_.link.gpu_report).load(memory_order_acquire) & 1u) != 0;
  }
  /// Whether a waiting GPU reader holds the role of the GPU's gate watcher (system scope).
  template <class Backoff>
  static bool gpu_gate_watched(basic_shared_mutex<cuda::thread_scope_system, Backoff>& mutex)
  {
    return atomic_at<cuda::thread_scope_system>(mutex.state_.gpu.gate_watcher).load(memory_order_acquire) != 0;
  }
  /// A writer's gate stores, one step at a time (system scope): every GPU reader's copy of
  /// the gate (kept), or the gate itself. No writer may run meanwhile.
  template <class Backoff>
  static void store_reader_gates(basic_shared_mutex<cuda::thread_scope_system, Backoff>& mutex,
                                 cuda::std::uint64_t value)
  {
    using mutex_type = basic_shared_mutex<cuda::thread_scope_system, Backoff>;
    for (auto& copy : mutex.state_.link.reader_gates) {
      atomic_at<cuda::thread_scope_system>(copy.word).store(value | mutex_type::kept_copy, memory_order_release);
    }
  }
  /// Whether a GPU reader has asked writers to keep the copies of the gate (system scope).
  template <class Backoff>
  static bool gate_copies_wanted(basic_shared_mutex<cuda::thread_scope_system, Backoff>& mutex)
  {
    return atomic_at<cuda::thread_scope_system>(mutex.state_.link.copies_wanted).load(memory_order_acquire) != 0;
  }
  /// Whether every copy of the gate is kept and holds the gate's value (system scope).
  template <class Backoff>
  static bool gate_copies_kept(basic_shared_mutex<cuda::thread_scope_system, Backoff>& mutex)
  {
    using mutex_type = basic_shared_mutex<cuda::thread_scope_system, Backoff>;
    auto const gate = atomic_at<cuda::thread_scope_system>(mutex.state_.link.gate).load(memory_order_acquire);
    return every_gate_copy(mutex, [&](cuda::std::uint64_t copy) { return copy == (gate | mutex_type::kept_copy); });
  }
  /// Whether no copy of the gate is kept: GPU readers read the gate itself (system scope).
  template <class Backoff>
  static bool gate_copies_dropped(basic_shared_mutex<cuda::thread_scope_system, Backoff>& mutex)
  {
    using mutex_type = basic_shared_mutex<cuda::thread_scope_system, Backoff>;
    return every_gate_copy(mutex, [](cuda::std::uint64_t copy) { return (copy & mutex_type::kept_copy) == 0; });
  }
  template <class Backoff, class Predicate>
  static bool every_gate_copy(basic_shared_mutex<cuda::thread_scope_system, Backoff>& mutex, Predicate holds)
  {
    for (auto& copy : mutex.state_.link.reader_gates) {
      if (!holds(atomic_at<cuda::thread_scope_system>(copy.word).load(memory_order_acquire))) return false;
    }
    return true;
  }
  template <class Backoff>
  static void store_gate(basic_shared_mutex<cuda::thread_scope_system, Backoff>& mutex, cuda::std::uint64_t value)
  {
    atomic_at<cuda::thread_scope_system>(mutex.state_.link.gate).store(value, memory_order_release);
  }
  /// Whether the GPU side's report says it drained for the writer that closed `gate`.
  template <class Backoff>
  static bool gpu_reported_drained_for(basic_shared_mutex<cuda::thread_scope_system, Backoff>& mutex,
                                       cuda::std::uint64_t gate)
  {
    using mutex_type = basic_shared_mutex<cuda::thread_scope_system, Backoff>;
    return atomic_at<cuda::thread_scope_system>(mutex.state_.link.gpu_report).load(memory_order_acquire) >>
               mutex_type::report_gate_shift ==
           gate;
  }
  /// Writers that have taken a ticket of the writers' lock (on the calling side).
  template <class Backoff>
  static cuda::std::uint64_t writer_tickets(basic_shared_mutex<cuda::thread_scope_system, Backoff>& mutex)
  {
    return tickets_taken(mutex.writers_);
  }
  /// Adds `lanes` arrivals with one addition, as the device's per-thread arrive_and_wait()
  /// does for a warp's lanes: where it placed each (phase_of(rank), token_of(rank)).
  template <cuda::thread_scope Scope, class Completion, class Backoff>
  static auto arrive_lanes(basic_barrier<Scope, Completion, Backoff>& barrier, cuda::std::uint32_t lanes)
  {
    return barrier.arrive_placed(lanes);
  }
  /// An arrival's addition alone, as a thread inside arrive() has made it before its arm
  /// (or its completion of the phase): the word before it, for finish_arrival.
  template <cuda::thread_scope Scope, class Completion, class Backoff>
  static cuda::std::uint64_t add_arrival(basic_barrier<Scope, Completion, Backoff>& barrier, cuda::std::uint32_t weight)
  {
    using barrier_type = basic_barrier<Scope, Completion, Backoff>;
    return atomic_at<Scope>(barrier.word_).fetch_add(static_cast<cuda::std::uint64_t>(weight)
                                                         << barrier_type::count_shift,
                                                     memory_order_acq_rel);
  }
  /// The rest of that arrival: its arm or completion, and the token of its last rank.
  template <cuda::thread_scope Scope, class Completion, class Backoff>
  static auto finish_arrival(basic_barrier<Scope, Completion, Backoff>& barrier, cuda::std::uint64_t before,
                             cuda::std::uint32_t weight)
  {
    return barrier.finish_arrival(before, weight).token_of(weight - 1);
  }
  /// The barrier's word (phase | count | participants).
  template <cuda::thread_scope Scope, class Completion, class Backoff>
  static cuda::std::uint64_t word(basic_barrier<Scope, Completion, Backoff>& barrier)
  {
    return atomic_at<Scope>(barrier.word_).load(memory_order_acquire);
  }
  /// Whether the barrier's open phase has been armed (by its first arrival or ahead).
  template <cuda::thread_scope Scope, class Completion, class Backoff>
  static bool open_phase_armed(basic_barrier<Scope, Completion, Backoff>& barrier)
  {
    using barrier_type = basic_barrier<Scope, Completion, Backoff>;
    return barrier_type::is_armed(barrier_type::count_of(word(barrier)));
  }
  /// The arm ahead of a thread that completed a phase and left the barrier at `after`, run
  /// late: after whatever the test did to the barrier since.
  template <cuda::thread_scope Scope, class Completion, class Backoff>
  static void arm_ahead(basic_barrier<Scope, Completion, Backoff>& barrier, cuda::std::uint64_t after)
  {
    barrier.arm_ahead(after);
  }
  /// The number of the barrier's open phase (bits 63..48 of its word): one more per
  /// completed phase, wrapping at 2^16.
  template <cuda::thread_scope Scope, class Completion, class Backoff>
  UNISYNC_HOST_DEVICE static cuda::std::uint32_t open_phase(basic_barrier<Scope, Completion, Backoff>& barrier)
  {
    using barrier_type = basic_barrier<Scope, Completion, Backoff>;
    return barrier_type::phase_of(atomic_at<Scope>(barrier.word_).load(memory_order_acquire));
  }
};

}  // namespace unisync::detail
