#pragma once

#include <unisync/backoff.hpp>
#include <unisync/detail/atomic.hpp>
#include <unisync/detail/config.hpp>
#include <unisync/detail/groups.hpp>
#include <unisync/detail/in_place.hpp>
#include <unisync/detail/platform.hpp>
#include <unisync/managed.hpp>

#include <cuda/atomic>
#include <cuda/std/cstddef>
#include <cuda/std/cstdint>
#include <cuda/std/type_traits>

namespace unisync {

/**
 * @brief std::latch that CPU threads and GPU threads share: a single-use countdown that
 * releases its waiters once `expected` count_downs have been counted, whoever made them.
 *
 * Below system scope (`thread_scope_device`, `thread_scope_block`) it is one word holding
 * the count left: `count_down(n)` subtracts n with one atomic, waiters poll the word.
 *
 * At system scope (`unisync::latch`) it keeps every read-modify-write on one side of the
 * link, as `partitioned_barrier` does (DESIGN.md §4): each side counts its own
 * count_downs with atomics on memory advised for that side, and the other side learns
 * them through plain loads and stores. The CPU's total lives in host memory, where the
 * GPU can load it. The GPU's total lives in device memory, which the CPU must not poll (a
 * page fault per poll), so the GPU side reports it: a GPU count_down that finds no report
 * under way becomes the side's reporter (a block of more than one warp in
 * arrive_and_wait hands that role to its second warp) and stores the total to a
 * host-resident word; the GPU count_downs that come meanwhile only add themselves and
 * return. The reporter ends its turn with a compare-and-swap that succeeds only if the
 * total it stored is still the total, else it stores the newer one and tries again.
 * Reporters therefore take turns, ordered through the GPU's word, and each stores a
 * total at least as new as the previous one's: the last report stored is the final total
 * (test/models/latch.pml).
 * `count_down()` never waits: a reporter's retries are bounded by the count_downs that
 * came during its turn, at most `expected` in all.
 *
 * The latch is released when the CPU's total and the GPU's total add up to `expected`;
 * both only grow, so any pair of earlier readings is a lower bound, and a pair that adds
 * up to `expected` is exact. CPU waiters read the CPU's total and the GPU's report, both
 * host memory. On the GPU, the first waiter to claim a role becomes the side's watcher: it
 * polls the GPU's word, and when the sum is complete it stores the released line, which
 * the other GPU waiters poll in device memory: many GPU waiters reading across PCIe would
 * saturate the link, and many polling the word would queue with the count_downs that add
 * to it (H100, contention binary, 528 blocks of 128 threads counting down per thread: 6.9
 * us from the last count_down to release with every GPU waiter polling the word, 5.4 us
 * with the released line; 132 blocks per block with 4 CPU threads: 4.4 against 3.6 us). The
 * second becomes the link watcher: it reads the CPU's total across the link and the GPU's
 * word, mirrors a short reading in device memory for the watcher, and stores the released
 * line when its own sum is complete, without mirroring that last reading (the watcher
 * also looks at the released line, with a relaxed load in flight with its poll of the
 * word). Once the watcher has seen a link watcher's claim it reads the mirror instead of
 * the CPU's total, so its polls stay in device memory, where a read across the link at
 * every poll (about a microsecond) held back the release when the GPU's count_down came
 * last (H100, per thread with 528 blocks and 1-15 CPU threads: 4.9-5.1 against 5.9 us;
 * benchmark/results/h100-latch-link-watcher); until then, and as a lone GPU waiter, it
 * reads across the link itself. A waiter may stand on a side where nobody counts down:
 * the end reaches waiters on both sides whoever counted down where.
 *
 * Placement: construct it with `unisync::make_managed`, which advises each side's part
 * for its side; without the advice it is still correct, only slower. On a GPU whose link
 * has native host atomics (`hostNativeAtomicSupported`, NVLink-C2C) make_managed selects
 * the flat mode instead: one system-scope word that every count_down subtracts from and
 * every waiter polls, as below system scope (a GPU count_down first adds to the GPU's
 * word, whose mark tells it the mode; not measured on such a link).
 *
 * Memory ordering: everything a thread did before its `count_down()` is visible to every
 * thread after its `wait()` (or a `try_wait()` that returned true) returns. count_downs
 * are release read-modify-writes (the GPU's acquire too: a reporter's store then carries
 * every count_down it reports); the GPU's report is stored with a system-scope release;
 * waiters read with acquire loads (the link watcher's reading of the CPU's total reaches
 * the watcher through the mirror's release store and acquire load), and the GPU's
 * watchers release the other GPU waiters through the released line. PTX releases and
 * acquires are cumulative and causality order chains through synchronizations of
 * different scopes.
 *
 * @tparam Scope   every thread that uses it must be inside this scope.
 * @tparam Backoff waiting policy; `proportional_backoff` (default).
 */
template <cuda::thread_scope Scope, class Backoff = proportional_backoff>
class basic_latch {
  /// System scope: side-partitioned (or flat, chosen by placement). Below: one word.
  static constexpr bool across_link = Scope == cuda::thread_scope_system;

 public:
  /// The largest expected count: 2^30 - 1 (the GPU's word holds 30 bits of unreported
  /// count_downs beside its total).
  UNISYNC_HOST_DEVICE static constexpr cuda::std::ptrdiff_t max() noexcept { return count_mask; }

  /// Preconditions: 0 <= expected <= max(), checked in every build.
  UNISYNC_HOST_DEVICE constexpr explicit basic_latch(cuda::std::ptrdiff_t expected)
      : state_(static_cast<cuda::std::uint32_t>(expected))
  {
    UNISYNC_EXPECTS(expected >= 0 && expected <= max(), "latch(expected) needs 0 <= expected <= max()");
  }
  /// At block scope only: released, as basic_latch(0), so that a `__shared__` latch can be
  /// declared for init() to construct. std's latch has no default constructor.
  template <cuda::thread_scope S = Scope, cuda::std::enable_if_t<S == cuda::thread_scope_block, int> = 0>
  UNISYNC_HOST_DEVICE constexpr basic_latch() : basic_latch(0)
  {
  }
  basic_latch(basic_latch const&) = delete;
  basic_latch& operator=(basic_latch const&) = delete;

  /// Constructs the latch anew at `object`, as basic_latch(expected), for a `__shared__`
  /// variable (README, "Objects in shared memory"). At system scope the object loses
  /// make_managed's choice of mode and is partitioned, which is correct on any link.
  /// Preconditions: as the constructor's.
  friend UNISYNC_HOST_DEVICE void init(basic_latch* object, cuda::std::ptrdiff_t expected)
  {
    detail::construct_in_place(object, expected);
  }

  /// Counts down by `update`; the count_down that brings the count to zero releases every
  /// waiter. Never waits. Preconditions (checked in debug builds): 0 <= update <= the
  /// count left (a side checks what it can see without crossing the link: its own total,
  /// and on the CPU the GPU's report; a waiter reports a total beyond `expected`). Cost:
  /// one release fetch_add (acq_rel on the GPU side of a system-scope latch; fetch_sub
  /// below system scope, or in flat mode, where on the GPU it follows the fetch_add that
  /// finds the mode's mark); on the GPU side of a system-scope latch, the count_down that
  /// finds no report under way also stores the GPU's total across the link and ends its
  /// turn with a compare-and-swap.
  /// On the device the converged lanes of a warp that count down the same latch by the
  /// same update do it with one atomic.
  UNISYNC_HOST_DEVICE void count_down(cuda::std::ptrdiff_t update = 1);

  /// True once the count has reached zero; never blocks. At system scope a side learns
  /// the other side's count_downs a little later than that side does: a GPU count_down
  /// that returns while the GPU's reporter is still storing its total (it does not wait
  /// for it) is visible to the CPU's try_wait once the report lands, about a link
  /// crossing later (std allows try_wait a false "with very low probability"; wait()
  /// waits for it). Cost: one acquire load below system scope; at system scope two (CPU:
  /// both host memory; GPU: the released line, then, until released, the GPU's word and
  /// the CPU's total across the link).
  UNISYNC_HOST_DEVICE bool try_wait() const noexcept;

  /// Blocks until the count reaches zero. Cost: acquire polls of memory of the caller's
  /// side; at system scope the GPU's link watcher (and the watcher until it sees one, or
  /// as a lone GPU waiter) also reads the CPU's total across the link per poll. On the
  /// device the converged lanes of a warp that wait on the same latch wait as one.
  UNISYNC_HOST_DEVICE void wait() const;

  /// count_down(update), then wait().
  UNISYNC_HOST_DEVICE void arrive_and_wait(cuda::std::ptrdiff_t update = 1);

#if defined(__CUDACC__)
  /// Group count_down (cooperative-groups thread_block or thread_block_tile): every thread
  /// of `group` calls it with the same `update`; the group counts its threads
  /// (`__syncthreads_count` or a ballot), and its leader counts down by that many times
  /// `update` with one count_down. Each thread still counts `update`.
  template <class Group, class = detail::enable_if_group_t<Group>>
  __device__ void count_down(Group const& group, cuda::std::ptrdiff_t update = 1);
  /// Group wait: the leader waits, then the group synchronizes.
  template <class Group, class = detail::enable_if_group_t<Group>>
  __device__ void wait(Group const& group) const;
  /// Group count_down(group, update), then the leader waits, then the group synchronizes.
  /// Below system scope (and in flat mode) the leader's subtraction acquires too, and the
  /// group whose count_down brings the count to zero does not poll (H100, device scope,
  /// 8-528 blocks: 0.83-0.90x the time per round, one block unchanged;
  /// benchmark/results/h100-latch-group-last-arrival). At system scope a block of more
  /// than one warp, every thread of it calling, whose count_down is the one that reports
  /// the GPU's total across the link hands that report to a thread of its second warp,
  /// which stores it while the leader waits (H100, one block and 1-15 CPU threads: 3.8
  /// instead of 4.9 us from the last count_down to the last waiter released;
  /// benchmark/results/h100-latch-report-handoff). It uses 8 bytes of static shared
  /// memory for that.
  template <class Group, class = detail::enable_if_group_t<Group>>
  __device__ void arrive_and_wait(Group const& group, cuda::std::ptrdiff_t update = 1);
#endif  // defined(__CUDACC__)

  /// make_managed's placement hook (system scope only): advises the host part for the CPU,
  /// the device part for the GPU, or selects the flat mode on a link with native host
  /// atomics.
  template <cuda::thread_scope S = Scope, class = cuda::std::enable_if_t<S == cuda::thread_scope_system>>
  static void advise_placement(basic_latch* placed, int device);

 private:
  friend struct detail::test_access;

  /// The sides of the link; a call's side is the side its thread runs on (host tests
  /// stand in for the GPU by naming it).
  enum class side_kind : cuda::std::uint32_t { cpu, gpu };

  // The GPU's word: total counted (bits 62..32) | unused (31..30) | unreported
  // count_downs (29..0). Unreported counts the GPU count_downs since the current
  // reporter's turn began; nonzero means a report is under way. In flat mode bit 63 is
  // set (flat_mark) and GPU count_downs still add to the word, unread: they learn the
  // mode from their addition's result, where a flag loaded before it would put a round
  // trip to L2 in front of every count_down and, passed on, every poll.
  static constexpr int counted_shift = 32;
  static constexpr cuda::std::uint32_t count_mask = (1u << 30) - 1;
  static constexpr cuda::std::uint64_t unreported_mask = count_mask;
  static constexpr cuda::std::uint64_t flat_mark = cuda::std::uint64_t{1} << 63;

  /// Below system scope: the count left, on a line of its own.
  struct flat_state {
    UNISYNC_HOST_DEVICE constexpr explicit flat_state(cuda::std::uint32_t expected) : remaining(expected) {}
    // Written by every count_down (fetch_sub), polled by the waiters.
    alignas(detail::cache_line_size) cuda::std::uint32_t remaining;
  };

  /// The host's page, advised for the CPU and mapped for the GPU.
  struct alignas(detail::page_size) host_part {
    UNISYNC_HOST_DEVICE constexpr explicit host_part(cuda::std::uint32_t count)
        : counted(0), gpu_report(0), remaining(count), expected(count), flat(0)
    {
    }
    // The CPU's total: written by CPU count_downs (fetch_add), read by CPU waiters and
    // (across the link) by the GPU's link watcher.
    alignas(detail::cache_line_size) cuda::std::uint32_t counted;
    // The GPU's total as its reporters stored it (across the link); read by CPU waiters.
    alignas(detail::cache_line_size) cuda::std::uint32_t gpu_report;
    // Flat mode only: the count left, written by every count_down (fetch_sub).
    alignas(detail::cache_line_size) cuda::std::uint32_t remaining;
    // Read only, after construction and placement.
    alignas(detail::cache_line_size) cuda::std::uint32_t expected;
    cuda::std::uint32_t flat;  // 1: every call uses `remaining` (set by make_managed)
  };

  /// The GPU's page, advised for the device: the CPU never touches it.
  struct alignas(detail::page_size) device_part {
    UNISYNC_HOST_DEVICE constexpr explicit device_part(cuda::std::uint32_t count)
        : word(0), watchers(0), cpu_mirror(0), released(0), expected(count)
    {
    }
    // Total | unreported (above): written by GPU count_downs (fetch_add) and reporters
    // (compare-and-swap); polled by the watchers and read by GPU try_waits.
    alignas(detail::cache_line_size) cuda::std::uint64_t word;
    // The watchers' claims: the GPU waiter whose fetch_add finds 0 is the watcher, 1 the
    // link watcher; waiters that load 2 or more do not claim. A line of its own, not
    // bits in the word, where the claims of the warps that reach their wait before the
    // first claim lands would queue with the count_downs (H100, per thread with 264 and
    // 528 blocks and 1-8 CPU threads: 0.93-0.98x the time per round, release 5.9 against
    // 6.1 us at 528 blocks; benchmark/results/h100-latch-watcher-line).
    alignas(detail::cache_line_size) cuda::std::uint32_t watchers;
    // The CPU's total as the link watcher last read it while short: stored by it
    // (release), read by the watcher once watchers shows a link watcher.
    alignas(detail::cache_line_size) cuda::std::uint32_t cpu_mirror;
    // 1 once the GPU's watcher, its link watcher or a GPU try_wait saw the count reach
    // zero: stored by them, polled by the GPU's other waiters.
    alignas(detail::cache_line_size) cuda::std::uint32_t released;
    // Read only, after construction and placement: the host part's, in device memory.
    alignas(detail::cache_line_size) cuda::std::uint32_t expected;
  };

  /// System scope: one part per side.
  struct partitioned_state {
    UNISYNC_HOST_DEVICE constexpr explicit partitioned_state(cuda::std::uint32_t expected)
        : host(expected), device(expected)
    {
    }
    host_part host;
    device_part device;
  };

  using state_type = cuda::std::conditional_t<across_link, partitioned_state, flat_state>;

  UNISYNC_HOST_DEVICE static side_kind running_side() noexcept;
  UNISYNC_HOST_DEVICE static constexpr cuda::std::uint32_t counted_of(cuda::std::uint64_t word) noexcept;
  /// The mode, from memory: on the GPU side a load of the device word's mark.
  UNISYNC_HOST_DEVICE bool flat_mode(side_kind side) const noexcept;
  /// make_managed's choice on a link with native host atomics, before the latch is shared.
  void select_flat_mode() noexcept;
  UNISYNC_HOST_DEVICE cuda::std::uint32_t& remaining_word() const noexcept;
  UNISYNC_HOST_DEVICE cuda::std::uint32_t forecast_ns(cuda::std::uint32_t missing, cuda::std::uint32_t weight) const;

  /// What a count_down learned, for a wait that follows it: whether the latch is in flat
  /// mode, and whether its subtraction reached zero and acquired (flat mode with
  /// `then_waits` only: the wait is over).
  struct counted_down {
    bool flat = false;
    bool released = false;
  };
  /// `then_waits`: the caller waits next (the subtraction of flat mode then acquires too).
  UNISYNC_HOST_DEVICE counted_down count_down_as(side_kind side, cuda::std::uint64_t update, bool then_waits = false);
  UNISYNC_HOST_DEVICE counted_down count_down_flat(cuda::std::uint32_t amount, bool then_waits);
  /// A GPU count_down's addition to the device word (or, finding flat mode's mark, its
  /// subtraction); `report_due`: the word it must report, 0 when a report is under way.
  UNISYNC_HOST_DEVICE counted_down count_down_on_gpu(cuda::std::uint32_t amount, bool then_waits,
                                                     cuda::std::uint64_t& report_due);
  UNISYNC_HOST_DEVICE void report_gpu_total(cuda::std::uint64_t word);
  /// How a GPU waiter of the partitioned mode waits (unused on the CPU side and in flat
  /// mode): the watcher reads the CPU's total itself until it sees a link watcher, then
  /// from the mirror.
  enum class gpu_role : cuda::std::uint32_t { watcher, watcher_of_mirror, link_watcher, released_line };

  UNISYNC_HOST_DEVICE cuda::std::uint32_t forecast_to_release(side_kind side, bool flat, cuda::std::memory_order order,
                                                              cuda::std::uint32_t weight, gpu_role& role,
                                                              cuda::std::uint32_t& cpu_seen) const;
  UNISYNC_HOST_DEVICE bool try_wait_as(side_kind side) const;
  /// `flat`: the mode, as the caller's count_down learned it or flat_mode() reads it.
  UNISYNC_HOST_DEVICE void wait_as(side_kind side, cuda::std::uint32_t weight, bool flat) const;

  state_type state_;
};

/// std::latch at system scope, shared by CPU and GPU threads.
using latch = basic_latch<cuda::thread_scope_system>;

}  // namespace unisync

#include <unisync/detail/latch.inl>
