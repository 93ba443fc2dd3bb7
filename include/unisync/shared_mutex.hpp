#pragma once

#include <unisync/backoff.hpp>
#include <unisync/cohort_mutex.hpp>
#include <unisync/detail/atomic.hpp>
#include <unisync/detail/chrono.hpp>
#include <unisync/detail/config.hpp>
#include <unisync/detail/groups.hpp>
#include <unisync/detail/in_place.hpp>
#include <unisync/detail/platform.hpp>
#include <unisync/detail/ticket_lock.hpp>
#include <unisync/managed.hpp>

#include <cuda/atomic>
#include <cuda/std/chrono>
#include <cuda/std/cstdint>
#include <cuda/std/type_traits>

#include <chrono>

namespace unisync {

namespace detail {
/// A waiting policy that waits as `Backoff` does and whose tuning differs only in the cohort
/// mutex's pass bound: for a cohort mutex used inside another primitive.
template <class Backoff, cuda::std::uint32_t PassBound>
struct with_cohort_pass_bound : Backoff {
  struct tuning : Backoff::tuning {
    static constexpr cuda::std::uint32_t cohort_pass_bound = PassBound;
  };
};
}  // namespace detail

/**
 * @brief std::shared_timed_mutex for CPU and GPU threads: many readers or one writer, with
 * starvation bounds both ways. The motivating use is a read-mostly table that GPU kernels
 * read while host threads occasionally update it.
 *
 * Readers register on a reader word, fence (seq_cst), then load the gate (a CPU reader on the
 * host makes the registration and the load seq_cst instead of fencing between them); a
 * writer, holding the writers' lock, closes the gate (a store), fences, then waits until
 * every registered reader has left or is waiting for it (the Dekker shape: whichever comes
 * first in the seq_cst order, the reader sees the closed gate or the writer sees the
 * registration). Below system scope the gate's tag sits in every reader word, so one
 * read-modify-write registers a reader and reads the gate, and no fence is needed (see
 * Scopes).
 * Phase-fair: a reader that finds the gate closed by writer k declares itself late for k (a
 * counter per writer parity, in the reader word) and keeps its registration, so writer k
 * does not wait for it and writer k + 1 does (a writer whose try gives up reopens the gate
 * so that the next close has its parity: it stands in for the writer that gave up, and
 * still waits for readers late for writer k - 1). Writers batch: a writer that leaves while
 * another writer has queued behind it for the writers' lock (at system scope, one of its
 * own side, to which the cohort passes the lock) leaves the gate closed for it (at most
 * `tuning::shared_mutex_writer_batch` writers per closed gate), so the next writer skips
 * the close and the drain, and the readers late for the gate stay late until the batch's
 * last writer reopens it.
 *
 * Scopes. `thread_scope_system` is side-partitioned, the platform-aware design for GPUs
 * without native host atomics (PCIe): CPU readers add to a word on a host-resident page, GPU
 * readers to a word on a device-resident page; readers never write the other side's memory.
 * The gate sits on a host page, and a copy of it on each of `tuning::shared_mutex_gate_copies`
 * host lines, which GPU readers load (across the link: one load per read entry) by block
 * and warp: the GPU's loads of one host line serialize, about 0.5 us each on the H100
 * machine, so that with one line for 132 blocks each load waited 40-60 us. Writers store
 * the copies, then the gate (CPU readers and the report below read the gate itself); the
 * copies only once a GPU reader has asked for them, so that CPU threads alone do not pay
 * for them. The copies start kept (and open), so that GPU readers that come before any
 * writer read them; the first writer that finds no request drops them, once, and a GPU
 * reader that finds its copy not kept asks, and reads the gate. GPU readers that find
 * the gate closed wait together: one at a time (the gate watcher) polls its copy across
 * the link and raises a hint in device memory to each newer value, which the others poll;
 * once the hint has moved past the value a reader waits on, it reads its own copy again
 * (and waits on that copy itself if it has not moved yet). The
 * writers' lock is a `basic_cohort_mutex` that passes within a side at most
 * `tuning::shared_mutex_writer_pass_bound` times in a row while the other side's writers
 * wait (a side's queued writers hold its readers back too). A writer reads the CPU word itself
 * (across the link from the GPU) and, from the GPU, the GPU word; a CPU writer cannot read
 * the device page without a page fault (about 1 ms), so the GPU side mirrors what CPU writers
 * need into a host-resident report, by stores only: "GPU readers present", published before
 * any GPU reader looks at the gate and withdrawn when the last one leaves, and "drained for
 * the writer that closed gate g", stored by the GPU reader whose exit (or late declaration)
 * left only late readers (late for a copy whose writer has not stored the gate yet, which
 * the first copy, closed one ahead of the open gate, shows: that thread waits for the gate,
 * a few stores away). One GPU thread at a time writes the report
 * (a transition bit in the GPU word); whoever finds the bit taken leaves the work to its
 * holder, which looks again before it lets go. Any other scope (`thread_scope_device`, GPU threads only) keeps
 * everything in one memory and spreads readers over `tuning::shared_mutex_reader_stripes`
 * words by block index (one by default: see the tuning). Each stripe also holds the gate
 * modulo 16 (its tag), which a writer's close and reopen move on every stripe by a
 * read-modify-write: a reader's registration (and its return from being late) reads the
 * tag in its own read-modify-write, so the stripe's modification order puts it before the
 * writer's close (which then sees it) or after (and it sees the gate closed), with no fence
 * on either side (test/models/shared_mutex_stripes.pml). A reader pays one
 * read-modify-write to enter and one to leave, as libcu++'s semaphore does; with one GPU
 * block alone at 99% reads the code before (a registration, a fence.sc and a load of the
 * gate; 16 stripes) took 1.40-1.41x as long per section
 * (benchmark/results/h200-shared-mutex-stripe-tags).
 * A writer reads every stripe. Its writers' lock is a FIFO ticket lock at that scope,
 * whose served word also hands each holder the gate and the batch count: a writer loads
 * neither after its turn.
 *
 * Progress (checked in test/models/shared_mutex.pml, below system scope
 * shared_mutex_stripes.pml): writers among themselves as the
 * writers' lock (cohort_mutex's bounded bypass at system scope, FIFO at device scope). Once
 * a writer has closed the gate it waits only for readers registered before its fence (below
 * system scope: before its read-modify-write on their stripe), each for at most one
 * critical section: a stream of readers cannot hold it back (a writer that inherits the
 * closed gate waits for no reader). A reader waits, from the fence after its registration
 * (a CPU reader on the host: from its seq_cst registration; below system scope: from the
 * registration itself), for at most one batch of writers' critical sections
 * (`shared_mutex_writer_batch`: the batch it found, or a batch whose first writer found
 * its registration already visible): a stream of writers cannot hold it back either.
 * Readers overlap freely. GPU readers waiting for a writer learn that the gate moved from
 * one of them, the gate watcher, which any of them becomes when the role is free (checked
 * in test/models/shared_mutex_gate_watch.pml). One GPU thread's bookkeeping
 * of the report is lock-free, not wait-free: it lets go of the transition bit with an
 * exchange that fails on any change of the GPU word, so a stream of other GPU readers'
 * registrations can keep it looking again (the model shows the cycle; each try is one
 * exchange, and a real stream leaves gaps).
 *
 * Memory ordering: everything a writer did before unlock() is visible to every later
 * holder, shared or exclusive, after its lock returns; everything a reader did in its
 * shared section is visible to the next writer. Within a batch the writers' lock orders
 * each writer's section before the next one's, and the count it hands on; the batch's last
 * writer reopens the gate for all of them. The gate's stores (and its copies', after
 * one release fence) are releases and readers load it (or their copy) with acquire; each
 * copy's stores come before the gate's, so that a GPU thread that acquires the gate and
 * then releases the GPU word orders the copies before every later GPU registration.
 * Readers' exits are releases on their word, and the writer loads the word (or, for the
 * GPU side seen from the CPU, the report, which the reporting GPU thread stored with a
 * system-scope release after acquiring the word) with acquire (below system scope, on the
 * GPU, it loads the stripes relaxed and fences with acquire once they show no reader).
 * Exclusion itself rests, below system scope, on each stripe's modification order (the tag's
 * read-modify-writes; the stripes' moves are released by one fence on the device and read
 * with acquire), and at system scope on the seq_cst fences ([atomics.order] p4.4 in C++20,
 * fence.sc in PTX), and for CPU readers on the host on their seq_cst registration and gate load against
 * a CPU writer's fence (p4 and p4.2-4.3). Against a GPU writer's fence.sc.sys no single
 * model covers either form: the host's side is the processor's (a locked read-modify-write
 * is a full barrier on x86, as its fence was; on Arm a seq_cst read-modify-write and load
 * stay ordered).
 *
 * Placement: construct it with `unisync::make_managed`, which advises the CPU word, the gate,
 * its copies and the report for the host and the GPU word for the device (system scope), or the whole
 * object for the device (other scopes); without advice it is still correct, only slower.
 *
 * Limits: at most 2^20 - 1 readers registered at once per side (per stripe at device
 * scope). Not recursive: a thread must not lock a mutex it holds in either mode.
 *
 * @tparam Scope   every thread that uses the object must be inside this scope.
 * @tparam Backoff waiting policy; `proportional_backoff` (default).
 */
template <cuda::thread_scope Scope, class Backoff = proportional_backoff>
class basic_shared_mutex {
 public:
  /// Whether readers register per side of the link (system scope) or on stripes (others).
  static constexpr bool partitioned = Scope == cuda::thread_scope_system;

  constexpr basic_shared_mutex() noexcept = default;
  basic_shared_mutex(basic_shared_mutex const&) = delete;
  basic_shared_mutex& operator=(basic_shared_mutex const&) = delete;

  /// Constructs the mutex anew at `object`, held by nobody, for a `__shared__` variable
  /// (README, "Objects in shared memory").
  friend UNISYNC_HOST_DEVICE void init(basic_shared_mutex* object) { detail::construct_in_place(object); }

  /// Blocks until the calling thread holds the mutex exclusively. Preconditions: it holds
  /// it in neither mode. Progress: as the writers' lock, then waits only for readers
  /// already registered. Cost: the writers' lock and a load of its batch count; unless the
  /// previous writer left the gate closed for it, a store to the gate, a seq_cst fence, and
  /// polls of each side's reader word (or the GPU's report from the CPU). Below system scope
  /// the lock hands over the batch count, and a read-modify-write on every stripe replaces
  /// the store, the fence and, when it finds no reader inside, the polls.
  UNISYNC_HOST_DEVICE void lock();
  /// Takes the mutex exclusively if no one holds it in either mode and no writer waits;
  /// never waits for another holder. Readers that found the gate closed meanwhile go on
  /// after it reopens, as after a writer.
  UNISYNC_HOST_DEVICE bool try_lock();
  /// Releases the exclusive hold. Preconditions: the calling thread holds it (debug
  /// builds check that the gate is closed and the writers' lock held). Cost: a look at
  /// the writers' lock's queue, one release store to the gate (none when it leaves the gate
  /// closed for a queued writer) and the writers' lock's unlock.
  UNISYNC_HOST_DEVICE void unlock();

  /// Blocks until the calling thread holds the mutex shared. Preconditions: it holds it in
  /// neither mode. Progress: waits for at most one batch of writers' critical sections
  /// (see the class). Cost without a writer: below system scope, one read-modify-write on its
  /// stripe; at system scope, one on its side's word, a seq_cst fence (not for CPU readers on
  /// the host, whose read-modify-write and load are seq_cst instead) and one load of the
  /// gate (on the GPU, across the link).
  UNISYNC_HOST_DEVICE void lock_shared();
  /// Takes the mutex shared unless a writer holds it or waits; never waits for a holder
  /// (on the GPU at system scope it may wait for another GPU thread to finish publishing
  /// the GPU readers' presence: one store across the link). It loads the gate before it
  /// registers and fails at once when a writer has closed it, so that tries failing back
  /// to back do not keep a draining writer polling: only a try that found the gate open
  /// as a writer closed it registers for an instant, once per thread and close. Cost: as
  /// lock_shared(), plus that first load of the gate (on the GPU at system scope, across
  /// the link).
  UNISYNC_HOST_DEVICE bool try_lock_shared();
  /// Releases a shared hold. Preconditions: the calling thread holds it shared (debug
  /// builds check that its word has a registered reader that is not waiting). Cost: one
  /// release read-modify-write; on the GPU at system scope, when it leaves the GPU side
  /// empty or a waiting writer drained, also a report across the link.
  UNISYNC_HOST_DEVICE void unlock_shared();

  /// @{
  /// The timed forms of std::shared_timed_mutex: as lock() / lock_shared(), but give up
  /// after `timeout` (or at `when`) and return false, leaving no trace: a timed-out writer
  /// reopens the gate and releases the writers' lock, a timed-out reader withdraws its
  /// registration. A timed reader that finds the gate closed before it registers waits
  /// for the gate to move before registering, as try_lock_shared() fails there: its bound
  /// of one batch counts from its registration, so from the call it may wait for the
  /// batch in progress and one more. The clock is the calling side's monotonic clock; a
  /// timeout of zero or less tries once.
  template <class Rep, class Period>
  UNISYNC_HOST_DEVICE bool try_lock_for(cuda::std::chrono::duration<Rep, Period> const& timeout)
  {
    return try_lock_within(detail::to_nanoseconds(timeout));
  }
  template <class Clock, class Duration>
  UNISYNC_HOST_DEVICE bool try_lock_until(cuda::std::chrono::time_point<Clock, Duration> const& when)
  {
    return detail::try_until(when, [&](cuda::std::uint64_t left_ns) { return try_lock_within(left_ns); });
  }
  template <class Rep, class Period>
  bool try_lock_for(std::chrono::duration<Rep, Period> const& timeout)
  {
    return try_lock_within(detail::to_nanoseconds(timeout));
  }
  template <class Clock, class Duration>
  bool try_lock_until(std::chrono::time_point<Clock, Duration> const& when)
  {
    return detail::try_until(when, [&](cuda::std::uint64_t left_ns) { return try_lock_within(left_ns); });
  }
  template <class Rep, class Period>
  UNISYNC_HOST_DEVICE bool try_lock_shared_for(cuda::std::chrono::duration<Rep, Period> const& timeout)
  {
    return try_lock_shared_within(detail::to_nanoseconds(timeout));
  }
  template <class Clock, class Duration>
  UNISYNC_HOST_DEVICE bool try_lock_shared_until(cuda::std::chrono::time_point<Clock, Duration> const& when)
  {
    return detail::try_until(when, [&](cuda::std::uint64_t left_ns) { return try_lock_shared_within(left_ns); });
  }
  template <class Rep, class Period>
  bool try_lock_shared_for(std::chrono::duration<Rep, Period> const& timeout)
  {
    return try_lock_shared_within(detail::to_nanoseconds(timeout));
  }
  template <class Clock, class Duration>
  bool try_lock_shared_until(std::chrono::time_point<Clock, Duration> const& when)
  {
    return detail::try_until(when, [&](cuda::std::uint64_t left_ns) { return try_lock_shared_within(left_ns); });
  }
  /// @}

#if defined(__CUDACC__)
  /// @{
  /// Group overloads: every thread of `group` (a cooperative-groups thread_block or
  /// thread_block_tile) calls them together; its leader takes or releases the hold for the
  /// whole group, which synchronizes, so the group holds the mutex as one (shared or
  /// exclusive). The try forms give the same result in every thread of the group.
  template <class Group, class = detail::enable_if_group_t<Group>>
  __device__ void lock(Group const& group);
  template <class Group, class = detail::enable_if_group_t<Group>>
  __device__ bool try_lock(Group const& group);
  template <class Group, class = detail::enable_if_group_t<Group>>
  __device__ void unlock(Group const& group);
  template <class Group, class = detail::enable_if_group_t<Group>>
  __device__ void lock_shared(Group const& group);
  template <class Group, class = detail::enable_if_group_t<Group>>
  __device__ bool try_lock_shared(Group const& group);
  template <class Group, class = detail::enable_if_group_t<Group>>
  __device__ void unlock_shared(Group const& group);
  /// @}
#endif  // defined(__CUDACC__)

  /// make_managed's placement hook (see Placement above).
  static void advise_placement(basic_shared_mutex* object, int device);

 private:
  friend struct detail::test_access;

  /// The reader words a thread registers on: the CPU's or the GPU's (system scope), or a stripe.
  enum class side_kind : cuda::std::uint32_t { cpu, gpu };

  // A reader word: registered readers (bits 0..19: inside, entering, or waiting for a
  // writer) | readers late for a writer of odd parity (20..39) and of even parity (40..59),
  // indexed by late_slot() | on the GPU's word at system scope: present (62: the report
  // says GPU readers are present) and transition (63: one GPU thread is writing the report).
  static constexpr int count_bits = 20;
  static constexpr cuda::std::uint64_t count_mask = (cuda::std::uint64_t{1} << count_bits) - 1;
  static constexpr cuda::std::uint64_t present_bit = cuda::std::uint64_t{1} << 62;
  static constexpr cuda::std::uint64_t transition_bit = cuda::std::uint64_t{1} << 63;
  // On a stripe (scopes other than system): the gate modulo 16 (60..63), the stripe's tag,
  // which every writer's close and reopen moves on every stripe by a read-modify-write.
  static constexpr int gate_tag_shift = 60;
  static constexpr cuda::std::uint64_t gate_tag_unit = cuda::std::uint64_t{1} << gate_tag_shift;
  static constexpr cuda::std::uint64_t gate_tag_mask = 15;
  // Below system scope the writers' lock hands each holder, with the poll that shows its
  // turn, the gate's tag (bits 0..3) and how many writers in a row have held that gate
  // closed after the one that closed it (4..9): no load of either after the turn.
  static constexpr int batch_shift = 4;
  static constexpr unsigned writer_state_bits = 10;
  static_assert(Backoff::tuning::shared_mutex_writer_batch <= (1u << (writer_state_bits - batch_shift)),
                "shared_mutex: the writer batch must fit the writers' lock's state");
  // The GPU's report (host page): the closed gate it last reported drained (bits 63..1) |
  // GPU readers present (bit 0). The gate counts in 64 bits, so a value never comes back:
  // an old report cannot pass for a later writer's.
  static constexpr int report_gate_shift = 1;
  static constexpr cuda::std::uint64_t report_present = 1;
  static constexpr cuda::std::uint32_t stripe_count =
      partitioned ? 1u : Backoff::tuning::shared_mutex_reader_stripes;

  /// The writers' lock: the cohort mutex across the link (passing within a side at most
  /// `shared_mutex_writer_pass_bound` times in a row), a ticket lock within one scope,
  /// which also carries the writers' state.
  using writer_lock = cuda::std::conditional_t<
      partitioned,
      basic_cohort_mutex<detail::with_cohort_pass_bound<Backoff, Backoff::tuning::shared_mutex_writer_pass_bound>>,
      detail::ticket_lock<Scope, Backoff, writer_state_bits>>;

  /// One reader word on a 128-byte line of its own.
  struct reader_line {
    // Written by the readers that register on it (read-modify-writes at their side's or the
    // object's scope); read by writers.
    alignas(detail::cache_line_size) cuda::std::uint64_t word = 0;
  };

  /// The CPU's reader word and its writers' batch count, on a host page (system scope).
  struct alignas(detail::page_size) cpu_part {
    reader_line readers;
    // How many writers in a row have held the closed gate after the one that closed it,
    // when the writers' lock passed within this side (see keeps_gate_for_successor). Written
    // and read by this side's writers' lock holders.
    alignas(detail::cache_line_size) cuda::std::uint32_t inherited_writers = 0;
  };
  /// The GPU's reader word, the report's bookkeeping and the GPU writers' batch count, on a
  /// device page (system scope).
  struct alignas(detail::page_size) gpu_part {
    reader_line readers;
    // The last closed gate reported drained; written by the transition bit's holder only.
    alignas(detail::cache_line_size) cuda::std::uint64_t reported_gate = 0;
    // As cpu_part::inherited_writers, for the GPU's writers.
    alignas(detail::cache_line_size) cuda::std::uint32_t inherited_writers = 0;
    // The newest gate value the GPU's gate watcher has read across the link; only grows.
    // Written by the watcher, polled by the GPU's other waiting readers.
    alignas(detail::cache_line_size) cuda::std::uint64_t gate_hint = 0;
    // 1 while a waiting GPU reader is the gate watcher. Taken and given back by waiting
    // GPU readers.
    alignas(detail::cache_line_size) cuda::std::uint32_t gate_watcher = 0;
  };
  static constexpr cuda::std::uint32_t gate_copies = partitioned ? Backoff::tuning::shared_mutex_gate_copies : 1u;
  // Marks a copy of the gate that writers keep (gate values never reach bit 63).
  static constexpr cuda::std::uint64_t kept_copy = cuda::std::uint64_t{1} << 63;
  /// A copy of the gate on a 128-byte line of its own; kept, and open, until the first writer.
  struct gate_copy_line {
    // Written by writers only (the writers' lock holder); read by GPU readers.
    alignas(detail::cache_line_size) cuda::std::uint64_t word = kept_copy;
  };
  /// The words that cross the link, on host pages (system scope).
  struct alignas(detail::page_size) link_part {
    // Odd: closed by a writer; even: open. A writer adds 1 to close and 1 to reopen (3 when
    // it gives up), so a value names the close; it only grows. Written by the writers' lock
    // holder only; read by CPU readers, writers and the GPU's report holder.
    alignas(detail::cache_line_size) cuda::std::uint64_t gate = 0;
    // The GPU's report (layout above). Written by the GPU thread holding the transition bit.
    alignas(detail::cache_line_size) cuda::std::uint64_t gpu_report = 0;
    // Nonzero once a GPU reader has asked writers to keep the copies below (it found its
    // copy not kept); never cleared. Written by GPU readers, read by writers.
    alignas(detail::cache_line_size) cuda::std::uint32_t copies_wanted = 0;
    // The gate as GPU readers read it: while kept (marked kept_copy), a copy holds the
    // gate's value, stored before it by every writer.
    gate_copy_line reader_gates[gate_copies];
  };
  /// A gate value as a reader read it, and the word it read: the gate or a kept copy.
  struct gate_view {
    cuda::std::uint64_t* word;
    cuda::std::uint64_t value;
  };
  /// Every other scope: the stripes (the gate itself and the batch count are in the
  /// writers' lock's state).
  struct striped_state {
    reader_line stripes[partitioned ? 1 : Backoff::tuning::shared_mutex_reader_stripes];
  };
  struct partitioned_state {
    cpu_part cpu;
    gpu_part gpu;
    link_part link;
  };
  using state_type = cuda::std::conditional_t<partitioned, partitioned_state, striped_state>;

  // Word fields and gate values.
  UNISYNC_HOST_DEVICE static constexpr cuda::std::uint32_t registered(cuda::std::uint64_t word) noexcept;
  UNISYNC_HOST_DEVICE static constexpr cuda::std::uint32_t late(cuda::std::uint64_t word, cuda::std::uint32_t slot) noexcept;
  UNISYNC_HOST_DEVICE static constexpr cuda::std::uint64_t late_unit(cuda::std::uint32_t slot) noexcept;
  UNISYNC_HOST_DEVICE static constexpr bool closed(cuda::std::uint64_t gate) noexcept;
  UNISYNC_HOST_DEVICE static constexpr cuda::std::uint32_t late_slot(cuda::std::uint64_t gate) noexcept;
  UNISYNC_HOST_DEVICE static constexpr bool drained(cuda::std::uint64_t word, cuda::std::uint64_t gate) noexcept;
  UNISYNC_HOST_DEVICE static constexpr bool might_drain(cuda::std::uint64_t word) noexcept;
  UNISYNC_HOST_DEVICE static constexpr cuda::std::uint64_t gate_seen_in(cuda::std::uint64_t word) noexcept;

  // Where the calling thread registers, and the words it uses.
  UNISYNC_HOST_DEVICE static side_kind running_side() noexcept;
  UNISYNC_HOST_DEVICE cuda::std::uint64_t& reader_word(side_kind side) noexcept;
  UNISYNC_HOST_DEVICE cuda::std::uint64_t& gate_word() noexcept;
  UNISYNC_HOST_DEVICE gate_view load_reader_gate(side_kind side, cuda::std::memory_order order) noexcept;
  UNISYNC_HOST_DEVICE static bool reports(side_kind side) noexcept;
  UNISYNC_HOST_DEVICE static bool fenceless_registration(side_kind side) noexcept;

  // Readers, as a thread of `side` (tests on the host stand in for the GPU by naming it).
  UNISYNC_HOST_DEVICE gate_view register_reader(side_kind side);
  UNISYNC_HOST_DEVICE void deregister(side_kind side, cuda::std::uint64_t units);
  UNISYNC_HOST_DEVICE bool wait_for_gate_change(side_kind side, gate_view seen, detail::deadline const* limit,
                                                bool trust_hint = true);
  UNISYNC_HOST_DEVICE bool wait_for_gate_change_on_gpu(gate_view seen, detail::deadline const* limit, bool trust_hint);
  UNISYNC_HOST_DEVICE bool wait_out_writers(side_kind side, gate_view seen, detail::deadline const* limit);
  UNISYNC_HOST_DEVICE void lock_shared_as(side_kind side);
  UNISYNC_HOST_DEVICE bool try_lock_shared_as(side_kind side);
  UNISYNC_HOST_DEVICE bool try_lock_shared_within_as(side_kind side, cuda::std::uint64_t timeout_ns);
  UNISYNC_HOST_DEVICE void unlock_shared_as(side_kind side);
  UNISYNC_HOST_DEVICE bool try_lock_shared_within(cuda::std::uint64_t timeout_ns);

  // The GPU's report (system scope).
  UNISYNC_HOST_DEVICE void await_presence(cuda::std::uint64_t word);
  UNISYNC_HOST_DEVICE void settle_or_leave();
  UNISYNC_HOST_DEVICE void settle_report();
  UNISYNC_HOST_DEVICE bool closing_copies_ahead_of(cuda::std::uint64_t open_gate);

  // Writers.
  UNISYNC_HOST_DEVICE cuda::std::uint64_t close_gate();
  UNISYNC_HOST_DEVICE void store_gate(cuda::std::uint64_t value);
  UNISYNC_HOST_DEVICE void reopen_gate(cuda::std::uint64_t closed_gate);
  UNISYNC_HOST_DEVICE void reopen_abandoned_gate(cuda::std::uint64_t closed_gate);
  UNISYNC_HOST_DEVICE cuda::std::uint32_t& inherited_writers() noexcept;
  UNISYNC_HOST_DEVICE bool inherits_closed_gate();
  UNISYNC_HOST_DEVICE bool keeps_gate_for_successor(bool next_holder_on_this_side);
  // Writers below system scope: the stripes' tags, and the state in the writers' lock.
  UNISYNC_HOST_DEVICE static constexpr cuda::std::uint64_t held_gate(cuda::std::uint64_t state) noexcept
  {
    return state & gate_tag_mask;
  }
  UNISYNC_HOST_DEVICE static constexpr cuda::std::uint32_t held_batch(cuda::std::uint64_t state) noexcept
  {
    return static_cast<cuda::std::uint32_t>(state >> batch_shift);
  }
  UNISYNC_HOST_DEVICE static constexpr cuda::std::uint64_t writer_state(cuda::std::uint64_t gate,
                                                                        cuda::std::uint32_t batch) noexcept
  {
    return (gate & gate_tag_mask) | (cuda::std::uint64_t{batch} << batch_shift);
  }
  UNISYNC_HOST_DEVICE bool move_stripe_tags(cuda::std::uint64_t gate, cuda::std::uint64_t steps);
  UNISYNC_HOST_DEVICE bool close_stripes(cuda::std::uint64_t held);
  UNISYNC_HOST_DEVICE void abandon_stripes(cuda::std::uint64_t held);
  UNISYNC_HOST_DEVICE cuda::std::uint32_t forecast_to_drain(cuda::std::uint64_t gate, cuda::std::memory_order order);
  UNISYNC_HOST_DEVICE bool try_lock_within(cuda::std::uint64_t timeout_ns);

  writer_lock writers_;
  state_type state_;
};

/// The platform-aware system-scope shared mutex shared by CPU and GPU threads.
using shared_mutex = basic_shared_mutex<cuda::thread_scope_system>;

}  // namespace unisync

#include <unisync/detail/shared_mutex.inl>
