#pragma once

#include <unisync/backoff.hpp>
#include <unisync/barrier.hpp>
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
#include <cuda/std/type_traits>
#include <cuda/std/utility>

#include <chrono>

namespace unisync {

/**
 * @brief std::barrier for CPU and GPU participants that keeps every read-modify-write on one
 * side of the link: the platform-aware barrier for GPUs without native host atomics (PCIe).
 *
 * Each side gathers its arrivals on a word in its own memory (GPU: device-resident page,
 * block-count hierarchy; CPU: host-resident page) with `basic_barrier`'s carry scheme, and
 * the word also numbers the side's phases. A side alone (the other side has no
 * participants) is `basic_barrier` on that word: with the default completion its last
 * arrival's addition carries into the phase number and releases the side; a completion
 * function runs below the carry, which its runner adds after it; arrivals beyond a phase
 * count in the next ones. With both
 * sides, a side's additions stop one short of the carry: the arrival that reaches that
 * point (the side's leader) stores "my side arrived" to a host-resident report and reads
 * the other side's report once. If the other side has arrived too, it adds the carry and
 * the side is released; if not, it returns: `arrive()` never waits for the other side.
 * The carry is then added, exactly once (a compare-and-swap), by whoever of the side first
 * sees both reports: a waiter of the side (the leader's own wait polls the other report;
 * other waiters look at it rarely, every `tuning::report_poll_interval`-th poll, in case
 * the leader does not wait; `try_wait` looks at once), or the side's first arrival of the
 * next phase, which may come before the carry (a participant told by the other side that
 * the phase ended) and then adds the carry with its arrival. Only plain loads and stores
 * with system-scope release/acquire cross the link: on the H100 machine a CPU<->GPU round
 * trip through memory costs about 2 us, while atomics on one managed word migrate its
 * page on every cross access (libcu++'s system barrier: about 500 us per phase). Many CPU
 * waiters poll a hint line, stored after each carry, before they look at the word the
 * CPU's arrivals add to.
 *
 * Tokens: any thread may wait on any token, on either side. A token of the other side's
 * arrival is waited on through the reports (loads only, from either side), or, in a phase
 * where only the token's side has participants, by polling that side's word. A CPU thread
 * polling the GPU's word reads a page advised for the GPU: every poll is a page fault of
 * about 1 ms there, and, since GPU arrivals release the word at device scope, what the GPU
 * participants wrote reaches that CPU waiter through the page's migration, not through a
 * system-scope release (see README's known limits).
 *
 * How `expected` is split: the first phase runs on one central word in managed memory
 * (correct for any split, slow once) while each side also counts its own arrivals on its
 * word (the same addition that, once the side counts on its own, is its arrival); the
 * first phase's last arriver learns the split from those counts and arms the side words.
 * From then on each side expects the arrivals it had in the previous phase minus its
 * `arrive_and_drop()`s. Precondition: participants do not move between sides after the
 * first phase (the same threads arrive every phase, the ordinary use of a barrier). More
 * threads than it expects (32 lanes of a warp on a barrier of 16, host threads racing into
 * a phase) are counted in the next phase, as by `basic_barrier`, while every participant
 * is on one side (a side stays mixed until the carry that ends the phase in which the
 * other side left): a side that has the barrier to itself counts with `basic_barrier`'s
 * scheme (arrivals before a phase's arm, or above its stop while the completion runs, are
 * placed in whole phases past it; with a completion function fewer than 2^22 may come
 * while it runs), and arrivals beyond the first phase that come before its release are
 * counted on the side by that phase's last arriver, after it has run the completion and
 * armed the sides (each such arrival learns its phase in its wait, by its rank among
 * them), those after the release by themselves. With participants on both sides, an
 * arrival beyond its side's share is refused (host: unisync::error, device: trap) in
 * every build, and so, when it is seen, are arrivals beyond the first phase or an
 * `arrive_and_drop()` beyond it (the first phase's last arriver sees those that counted
 * on their side before it read the split, and those that came before its release, which
 * are refused in their waits too), since the split it learns is the set
 * of threads that arrive in each phase; in flat mode (below) any arrival beyond a phase is
 * refused. With more threads than expected a waiter must not fall 2^14 phases behind the
 * barrier (side phase numbers wrap at 2^15).
 *
 * The one wait inside `arrive()` and `arrive_and_drop()` is for a participant that has
 * already arrived and is one step from done, never for one that has not: with a
 * completion function, a mixed phase's CPU leader (its last arrival or drop) may wait for
 * the verdict below. An arrival beyond the first phase never waits for that phase's last
 * arriver: it takes a rank among those beyond it (its subtraction from the central word),
 * and the last arriver, once it has armed the sides, counts those that came before its
 * release on the side and publishes where they landed. On a side alone `arrive_and_drop()`
 * never waits: a drop that comes in before the open phase's arm (or while the completion
 * of the phase before runs) takes only its participant, and the arming thread adds its
 * arrival, as `basic_barrier`'s does; an arrival beyond the phase that races it may be
 * released a phase early (see barrier.hpp).
 *
 * The completion function runs exactly once per phase, before anyone is released, in one
 * of the phase's leaders' `arrive()`: in the first phase (and always in flat mode) in the
 * last arriving thread; with one side alone in that side's leader; with both sides the two
 * leaders store their reports, each with a sequentially consistent fence before it reads
 * the other's, so at least one of them sees the other's report: the GPU leader runs the
 * completion if it saw the CPU's report, the CPU leader otherwise. The CPU leader that saw
 * the GPU's report learns which from the GPU leader's verdict, stored right after the GPU
 * leader's read: with a completion function that is the one wait inside `arrive()`, for a
 * participant that has already arrived (about 1-2 us), never for one that has not. No
 * design without a read-modify-write that both sides share can drop it: which of the two
 * leaders runs the completion is consensus between two threads, which loads and stores
 * cannot reach unless one of them may wait for the other (registers have consensus number
 * 1, Herlihy 1991), and leaving the choice to a later call of one side hangs the phase
 * when that side makes none (its participants all dropped in it). A shared
 * read-modify-write on PCIe is a managed page migrating at every phase, tens of
 * microseconds. The completion must then be callable on both sides
 * (`__host__ __device__`).
 *
 * Placement: construct it with `unisync::make_managed`, which advises each part for the
 * side that touches it; without the advice it is still correct, only slower. On a GPU
 * whose link has native host atomics (`hostNativeAtomicSupported`, NVLink-C2C) make_managed
 * selects the flat mode instead: every phase on the central word, since there one
 * system-scope atomic per arrival costs less than a cross-link handshake per phase, and
 * no page migrates (each arrival still counts itself on its side's word first, an atomic
 * in its own memory that then only tells it to go on to the central word).
 *
 * When to choose it: the default barrier for CPU and GPU participants together (see
 * README's "Choosing, by measurement" and benchmark/results/h100 for the figures); with
 * GPU threads alone it is the fastest system-scope barrier, since it keeps each side's
 * atomics at the narrowest scope.
 *
 * Memory ordering: everything a participant did before arriving is visible to the
 * completion function and to every participant after its wait returns. Side arrivals are
 * acquire-release RMWs on the side's word (device scope on the GPU: after the first phase
 * only GPU threads touch it), so the addition that reaches the leader's point acquires
 * every earlier one of the phase. The leader publishes its report with a system-scope
 * release; whoever adds the carry (or runs the completion) has acquired the reports at
 * system scope (the leader, its own report aside; with a completion function, the
 * `completed` marker that its runner released after running it), and the carry releases
 * the side's waiters, who poll with acquire loads; a waiter on the other side acquires
 * the reports (or the marker) itself. Releases and acquires are cumulative under the PTX
 * model and causality order chains through synchronizations of different scopes, so the
 * chain orders every participant's writes before every participant's reads.
 *
 * @tparam CompletionFunction nothrow-invocable with no arguments, run once per phase.
 * @tparam Backoff            waiting policy; `proportional_backoff` (default).
 */
template <class CompletionFunction = empty_completion, class Backoff = proportional_backoff>
class basic_partitioned_barrier {
  static_assert(cuda::std::is_nothrow_invocable_v<CompletionFunction&>,
                "the barrier's CompletionFunction must be callable with no arguments and noexcept");

 public:
  /// Returned by arrive(); identifies the phase, the side it was counted on, and how that
  /// phase ends. Any thread, on either side, may wait on it.
  class arrival_token {
   public:
    arrival_token() = default;

   private:
    friend class basic_partitioned_barrier;
    // One word of flags, not one bool each, so that a token travels in registers: on x86
    // separate bools are assembled on the stack and read back as one wider word, which
    // stalls store forwarding on every arrival.
    enum flag : cuda::std::uint32_t {
      central = 1,            // counted on the central word (first phase, or flat mode)
      on_gpu_side = 2,        // counted on the GPU's word (else the CPU's)
      completed_phase = 4,    // this arrival completed (and acquired) the side's phase
      polls_open_parity = 8,  // a CPU waiter among many: polls cpu_.open_parity
      mixed = 16,             // both sides take part in the phase: it ends through the reports
      leads_side = 32,        // the side's leader: stored the side's report, polls the other's
      placed_beyond = 64,     // internal: where the arrivals landed is in arrive_as's `beyond`
      captured = 128,         // beyond the first phase, counted by its last arriver: phase_ is a rank
    };
    UNISYNC_HOST_DEVICE arrival_token(cuda::std::uint32_t phase, cuda::std::uint32_t weight, cuda::std::uint32_t flags,
                                      cuda::std::uint32_t next_share = 0) noexcept
        : phase_(phase), weight_(weight), flags_(flags), next_share_(next_share)
    {
    }
    UNISYNC_HOST_DEVICE bool has(flag which) const noexcept { return (flags_ & which) != 0; }
    // central: the phase number; on a side: the side's phase number; captured: the rank of
    // the arrival among those beyond the first phase, until its placement is known.
    cuda::std::uint32_t phase_ = 0;
    cuda::std::uint32_t weight_ = 1;
    cuda::std::uint32_t flags_ = central;
    cuda::std::uint32_t next_share_ = 0;  // a leader's: the side's share of the next phase
  };

  /// The largest expected count: 2^22 - 1 (in the first phase a side's drops count down
  /// from 2^22 in its word's participants field, and must not reach the flags above it).
  UNISYNC_HOST_DEVICE static constexpr cuda::std::ptrdiff_t max() noexcept { return field_mask; }

  /// Preconditions: 0 <= expected <= max(), checked in every build.
  UNISYNC_HOST_DEVICE constexpr explicit basic_partitioned_barrier(cuda::std::ptrdiff_t expected,
                                                                   CompletionFunction completion = CompletionFunction())
      : central_{expected == 0 ? (cuda::std::uint64_t{1} << phase_shift) | central_bias
                               : static_cast<cuda::std::uint64_t>(expected) + central_bias,
                 static_cast<cuda::std::uint32_t>(expected),
                 0,
                 0,
                 0,
                 cuda::std::move(completion)},
        // Without participants there is no first phase to learn a split in: both sides
        // start with none, and an arrival is refused as on a side without participants.
        cpu_{expected == 0 ? 0 : learning_flag | learning_base},
        gpu_{expected == 0 ? 0 : learning_flag | learning_base}
  {
    UNISYNC_EXPECTS(expected >= 0 && expected <= max(), "partitioned_barrier(expected) needs 0 <= expected <= max()");
  }
  basic_partitioned_barrier(basic_partitioned_barrier const&) = delete;
  basic_partitioned_barrier& operator=(basic_partitioned_barrier const&) = delete;

  /// Counts `update` arrivals of the calling thread's side. Never waits for a participant
  /// that has not arrived (see the class comment for the one bounded wait, with a
  /// completion function, for one that has).
  /// Preconditions: update > 0 and at most the arrivals still missing (debug builds); with
  /// participants on both sides, at most the side's share (always checked, see the class
  /// comment). Cost: one
  /// acquire-release fetch_add on the side's word (the phase's first arrival adds the arm
  /// with a second one); with both sides the side's leader also stores its report across
  /// the link (the GPU) or locally (the CPU), reads the other side's once, and adds the
  /// carry if that shows the other side arrived.
  [[nodiscard]] UNISYNC_HOST_DEVICE arrival_token arrive(cuda::std::ptrdiff_t update = 1);

  /// Blocks until the phase of `token` has completed; any thread on either side may call
  /// it. Cost: acquire polls of a word in the calling side's own memory; the side's leader
  /// also polls the other side's report (across the link on the GPU) until it can add the
  /// carry. A token of the other side's arrival is waited on through the reports.
  UNISYNC_HOST_DEVICE void wait(arrival_token&& token) const;
  /// True once the phase of `token` has completed; never blocks (it may add the carry of a
  /// phase that has ended on both sides).
  UNISYNC_HOST_DEVICE bool try_wait(arrival_token const& token) const;
  /// @{
  /// Waits for the phase of `token` at most `timeout` (try_wait_until: until `when`); the
  /// token stays valid.
  template <class Rep, class Period>
  UNISYNC_HOST_DEVICE bool try_wait_for(arrival_token const& token,
                                        cuda::std::chrono::duration<Rep, Period> const& timeout) const
  {
    return try_wait_within(running_side(), token, detail::to_nanoseconds(timeout));
  }
  template <class Rep, class Period>
  bool try_wait_for(arrival_token const& token, std::chrono::duration<Rep, Period> const& timeout) const
  {
    return try_wait_within(running_side(), token, detail::to_nanoseconds(timeout));
  }
  template <class Clock, class Duration>
  UNISYNC_HOST_DEVICE bool try_wait_until(arrival_token const& token,
                                          cuda::std::chrono::time_point<Clock, Duration> const& when) const
  {
    return detail::try_until(
        when, [&](cuda::std::uint64_t left_ns) { return try_wait_within(running_side(), token, left_ns); });
  }
  template <class Clock, class Duration>
  bool try_wait_until(arrival_token const& token, std::chrono::time_point<Clock, Duration> const& when) const
  {
    return detail::try_until(
        when, [&](cuda::std::uint64_t left_ns) { return try_wait_within(running_side(), token, left_ns); });
  }
  /// @}

  /// arrive() then wait(); on the device the threads of a warp that call it together
  /// arrive as one coalesced group.
  UNISYNC_HOST_DEVICE void arrive_and_wait();
  /// Arrives in the current phase and removes the caller from later phases.
  UNISYNC_HOST_DEVICE void arrive_and_drop();

#if defined(__CUDACC__)
  /// Block-collective arrival (thread_block or thread_block_tile): the group counts itself,
  /// its leader arrives once for all and waits, the group synchronizes.
  template <class Group, class = detail::enable_if_group_t<Group>>
  __device__ void arrive_and_wait(Group const& group);
#endif  // defined(__CUDACC__)

  /// make_managed's placement hook: advises the host part for the CPU, the device part for
  /// the GPU, and selects the flat mode on a link with native host atomics.
  static void advise_placement(basic_partitioned_barrier* barrier, int device);

 private:
  friend struct detail::test_access;

  /// The two sides of the link; the side of a call is the side its thread runs on (tests
  /// on the host stand in for the GPU by naming it).
  enum class side_kind : cuda::std::uint32_t { cpu, gpu };
  /// Whether a side has arrived in a phase, as the reports show it.
  enum class other_side : cuda::std::uint32_t { pending, arrived, absent };

  // The central word: phase (bits 63..32) | arrivals missing plus central_bias (bits
  // 31..0). The bias keeps arrivals beyond the phase (a count below the bias) from
  // borrowing into the phase number.
  static constexpr cuda::std::uint64_t missing_mask = 0xffffffffu;
  static constexpr int phase_shift = 32;
  static constexpr cuda::std::uint32_t central_bias = 1u << 31;
  // The largest share of a side, and max().
  static constexpr cuda::std::uint32_t field_mask = (1u << 22) - 1;
  // A side's word: phase number (bits 63..49, wrapping) | arrival count (48..25) |
  // learning (24) | mixed (23) | participants (22..0). The count's carry at 2^24 advances
  // the phase number. Learning: the first phase runs on the central word, and the side's
  // word only counts the side's arrivals (count) and drops (down from learning_base in the
  // participants field), so that the first phase's last arriver learns the split; it stays
  // set in flat mode. Mixed: the other side had participants when this phase opened, so
  // the side's additions stop one short of the carry and the phase ends through the
  // reports. A side alone stops at the carry with the default completion, and
  // completion_headroom below it with a completion function, as basic_barrier: arrivals of
  // the next phase that come while the completion runs are counted above the stop.
  static constexpr int side_phase_shift = 49;
  static constexpr int side_count_shift = 25;
  static constexpr cuda::std::uint32_t side_carry = 1u << 24;           // in count units
  static constexpr cuda::std::uint32_t side_armed_min = 1u << 23;       // an armed count is at least this
  static constexpr cuda::std::uint32_t completion_headroom = 1u << 22;  // above an alone side's stop
  static constexpr cuda::std::uint32_t side_phase_mask = (1u << 15) - 1;
  static constexpr cuda::std::uint64_t learning_flag = cuda::std::uint64_t{1} << 24;
  static constexpr cuda::std::uint64_t mixed_flag = cuda::std::uint64_t{1} << 23;
  static constexpr cuda::std::uint64_t side_participants_mask = (cuda::std::uint64_t{1} << 23) - 1;
  static constexpr cuda::std::uint32_t learning_base = 1u << 22;
  // A report: the phase number its side has arrived in plus one (bits 46..32) | its share
  // of that next phase (31..0). A verdict: the phase number plus one (bits 46..32) | 1 when
  // the GPU leader runs the completion (saw the CPU's report), 0 when the CPU leader does.
  static constexpr int report_phase_shift = 32;
  static constexpr cuda::std::uint64_t gpu_runs_completion = 1;
  // With the default completion a side that completes alone releases with the carry of
  // its last arrival, as basic_barrier; with a completion function it stops
  // completion_headroom short of the carry. A mixed phase's leader, which has the reports
  // to do, stops one short of it.
  static constexpr bool completes_in_arrival = cuda::std::is_same_v<CompletionFunction, empty_completion>;
  static constexpr cuda::std::uint32_t alone_stop =
      completes_in_arrival ? side_carry : side_carry - completion_headroom;
  static constexpr cuda::std::uint32_t mixed_stop = side_carry - 1;
  // The phase of the ranks counted in the first phase, in arrivals_placed::phase_of: no
  // side phase number.
  static constexpr cuda::std::uint32_t first_phase_rank = ~0u;
  // In arrivals_placed::phase_of, the ranks of an addition captured beyond the first phase
  // (not placed yet): this bit and the rank, one value per rank, none a side phase number.
  static constexpr cuda::std::uint32_t captured_rank_tag = 1u << 31;
  // The placement of the arrivals captured beyond the first phase (central_part::captured):
  // published (bit 63) | on the GPU's side (62) | the side phase of the first (61..47) |
  // the room in it (46..23) | the side's participants (22..0). Published with no
  // participants: the captured arrivals were refused.
  static constexpr cuda::std::uint64_t captured_published = cuda::std::uint64_t{1} << 63;
  static constexpr cuda::std::uint64_t captured_on_gpu = cuda::std::uint64_t{1} << 62;
  static constexpr int captured_phase_shift = 47;
  static constexpr int captured_room_shift = 23;
  static constexpr cuda::std::uint32_t captured_room_mask = (1u << 24) - 1;

  /// Where the arrivals of one addition were counted (a warp's lanes add as one; rank r is
  /// its r-th arrival): the first `central_ranks` in the first phase, which this thread's
  /// addition completed; the next `room` in the phase of `first`; on a side that has the
  /// barrier to itself, the rest in whole phases of `participants` after that one. The
  /// arrivals of an addition captured beyond the first phase (later_flags has `captured`)
  /// are not placed yet: rank r's token carries its rank among the captured,
  /// first.phase_ + r - central_ranks, and its wait learns the phase once the first
  /// phase's last arriver has counted it.
  struct arrivals_placed {
    arrival_token first;
    cuda::std::uint32_t central_ranks = 0;
    cuda::std::uint32_t room = 0;
    cuda::std::uint32_t participants = 1;
    cuda::std::uint32_t open_phase = 0;   // the side's phase open after this thread's additions
    cuda::std::uint32_t later_flags = 0;  // the flags of the tokens of the phases after first's
    cuda::std::uint32_t weight = 0;
    UNISYNC_HOST_DEVICE static arrivals_placed one_phase(arrival_token const& token) noexcept
    {
      arrivals_placed placed;
      placed.first = token;
      placed.room = token.weight_;
      placed.weight = token.weight_;
      return placed;
    }
    UNISYNC_HOST_DEVICE static arrivals_placed captured_beyond(cuda::std::uint32_t rank, cuda::std::uint32_t weight,
                                                               cuda::std::uint32_t side_flag) noexcept
    {
      arrivals_placed placed;
      placed.later_flags = arrival_token::captured | side_flag;
      placed.first = arrival_token(rank, weight, placed.later_flags);
      placed.room = 1;  // each rank on its own: they may land in different phases
      placed.weight = weight;
      return placed;
    }
    UNISYNC_HOST_DEVICE bool is_captured() const noexcept { return (later_flags & arrival_token::captured) != 0; }
    UNISYNC_HOST_DEVICE bool span_phases() const noexcept { return central_ranks != 0 || weight - central_ranks > room; }
    UNISYNC_HOST_DEVICE cuda::std::uint32_t phase_of(cuda::std::uint32_t rank) const noexcept
    {
      if (rank < central_ranks) return first_phase_rank;
      if (is_captured()) return captured_rank_tag | (first.phase_ + rank - central_ranks);
      rank -= central_ranks;
      return rank < room ? first.phase_ : (first.phase_ + 1u + (rank - room) / participants) & side_phase_mask;
    }
    /// The token of the addition's last arrival (in one phase: `first`).
    UNISYNC_HOST_DEVICE arrival_token last_token() const noexcept { return span_phases() ? token_of(weight - 1) : first; }
    UNISYNC_HOST_DEVICE arrival_token token_of(cuda::std::uint32_t rank) const noexcept
    {
      if (rank < central_ranks) return arrival_token(0, weight, arrival_token::central | arrival_token::completed_phase);
      if (is_captured()) return arrival_token(first.phase_ + rank - central_ranks, weight, later_flags);
      if (rank - central_ranks < room) return first;
      cuda::std::uint32_t const phase = phase_of(rank);
      return arrival_token(phase, weight,
                           later_flags | (side_phase_passed(open_phase, phase) ? arrival_token::completed_phase : 0u));
    }
  };

  /// One side's state, on a page of its own. The CPU's page is advised for the host, the
  /// GPU's for the device.
  struct alignas(detail::page_size) side_part {
    // Phase | count | flags | participants (layout above). Written by the side's arrivals
    // and arms (fetch_add), carries (compare-and-swap, or an arrival's addition), and once
    // by the first phase's last arriver (the arming store); polled by the side's waiters.
    alignas(detail::cache_line_size) cuda::std::uint64_t word = learning_flag | learning_base;
    // The side's open phase number, stored (relaxed) after each carry, CPU side only: a
    // hint, as basic_barrier's open_parity_. With many CPU participants
    // (tuning::host_hint_min_participants) the CPU's waiters poll this line and look at
    // the word, which decides, only once it changes (and at every 64th poll). Every poll
    // of the word takes a shared copy of its line, which the next arrival's
    // read-modify-write must then take back from every waiter.
    alignas(detail::cache_line_size) cuda::std::uint32_t open_parity = 0;
  };

  /// The reports, both in host memory: the CPU leader writes its own and reads the GPU's
  /// locally, the GPU leader writes its own and reads the CPU's across the link.
  struct alignas(detail::page_size) report_part {
    alignas(detail::cache_line_size) cuda::std::uint64_t from_cpu = 0;  // written by CPU leaders
    alignas(detail::cache_line_size) cuda::std::uint64_t from_gpu = 0;  // written by GPU leaders
    // With a completion function: the GPU leader's verdict, then the phase whose
    // completion has run (written by the leader that ran it).
    alignas(detail::cache_line_size) cuda::std::uint64_t gpu_verdict = 0;
    alignas(detail::cache_line_size) cuda::std::uint64_t completed = 0;
  };

  /// The central word, used by every arrival in the first phase (and always in flat mode),
  /// in managed memory without advice: both sides' read-modify-writes on it stay atomic
  /// because its page migrates to whichever side operates on it.
  struct alignas(detail::page_size) central_part {
    cuda::std::uint64_t phase_and_missing;  // written by every central arrival and the last one
    cuda::std::uint32_t expected;           // participants of the next central phase
    cuda::std::uint32_t drops;              // drops in a central phase
    cuda::std::uint32_t flat;               // 1: every phase stays central (set by make_managed)
    cuda::std::uint64_t captured;           // the placement of the arrivals captured beyond the first phase
    CompletionFunction completion;
  };

  UNISYNC_HOST_DEVICE static side_kind running_side() noexcept;
  UNISYNC_HOST_DEVICE side_part& part_of(side_kind side) const noexcept;
  UNISYNC_HOST_DEVICE cuda::std::uint64_t& report_of(side_kind side) const noexcept;
  UNISYNC_HOST_DEVICE static constexpr cuda::std::uint32_t phase_of(cuda::std::uint64_t word) noexcept;
  UNISYNC_HOST_DEVICE static constexpr cuda::std::uint32_t count_of(cuda::std::uint64_t word) noexcept;
  UNISYNC_HOST_DEVICE static constexpr cuda::std::uint32_t participants_of(cuda::std::uint64_t word) noexcept;
  UNISYNC_HOST_DEVICE static constexpr cuda::std::uint32_t side_stop(cuda::std::uint64_t word) noexcept;
  UNISYNC_HOST_DEVICE static constexpr cuda::std::uint32_t alone_flags(side_kind side,
                                                                     cuda::std::uint32_t participants) noexcept;
  UNISYNC_HOST_DEVICE static constexpr bool side_phase_passed(cuda::std::uint32_t open_phase,
                                                              cuda::std::uint32_t phase) noexcept;
  UNISYNC_HOST_DEVICE static constexpr bool awaits_carry(cuda::std::uint64_t word) noexcept;
  UNISYNC_HOST_DEVICE static constexpr bool reported_at_least(cuda::std::uint64_t report,
                                                              cuda::std::uint32_t next_phase) noexcept;

  // The arrival paths return the token of the addition's arrivals when they all landed in
  // one phase, in registers. When they did not (arrivals beyond a phase), and `beyond` asks
  // for the placement, they return a token flagged placed_beyond and write where each
  // landed there; without `beyond`, the token of the addition's last arrival.
  UNISYNC_HOST_DEVICE arrivals_placed arrive_placed(side_kind side, cuda::std::uint32_t weight);
  UNISYNC_HOST_DEVICE arrival_token arrive_as(side_kind side, cuda::std::uint32_t weight, bool drop,
                                              arrivals_placed* beyond);
  UNISYNC_HOST_DEVICE arrival_token arrive_on_side(side_kind side, cuda::std::uint64_t before,
                                                   cuda::std::uint32_t weight, bool drop, arrivals_placed* beyond);
  UNISYNC_HOST_DEVICE arrival_token arrive_alone(side_kind side, cuda::std::uint64_t before,
                                                 cuda::std::uint32_t weight, arrivals_placed* beyond);
  UNISYNC_HOST_DEVICE arrival_token place_alone(side_kind side, cuda::std::uint64_t before, cuda::std::uint32_t weight,
                                                cuda::std::uint32_t open_phase, arrivals_placed* into) const;
  UNISYNC_HOST_DEVICE static arrival_token deliver(arrivals_placed const& placed, arrivals_placed* into);
  UNISYNC_HOST_DEVICE cuda::std::uint64_t carry_alone(side_kind side, cuda::std::uint64_t after);
  UNISYNC_HOST_DEVICE cuda::std::uint32_t complete_alone_phase(side_kind side, cuda::std::uint64_t before,
                                                               cuda::std::uint32_t added);
  UNISYNC_HOST_DEVICE cuda::std::uint32_t settle_alone_rest(side_kind side, cuda::std::uint64_t before,
                                                            cuda::std::uint32_t added, cuda::std::uint32_t owed,
                                                            bool was_carried, cuda::std::uint64_t carried);
  UNISYNC_HOST_DEVICE arrival_token drop_alone(side_kind side);
  UNISYNC_HOST_DEVICE arrival_token arrive_after_carry(side_kind side, cuda::std::uint64_t before,
                                                       cuda::std::uint32_t weight, bool drop);
  UNISYNC_HOST_DEVICE arrival_token arrive_central(side_kind side, cuda::std::uint32_t weight, bool drop,
                                                   arrivals_placed* beyond);
  UNISYNC_HOST_DEVICE arrival_token arrive_beyond_first_phase(side_kind side, cuda::std::uint64_t before,
                                                              cuda::std::uint32_t weight, bool drop,
                                                              arrivals_placed* into);
  UNISYNC_HOST_DEVICE void complete_central_phase(side_kind side, cuda::std::uint32_t phase);
  UNISYNC_HOST_DEVICE void count_captured(side_kind side, cuda::std::uint32_t captured, cuda::std::uint32_t cpu_share,
                                          cuda::std::uint32_t gpu_share);
  UNISYNC_HOST_DEVICE bool resolve_captured(arrival_token& token, cuda::std::memory_order order) const;
  UNISYNC_HOST_DEVICE arrival_token settle_arrival(side_kind side, cuda::std::uint64_t before,
                                                   cuda::std::uint32_t phase, cuda::std::uint64_t reached,
                                                   cuda::std::uint32_t weight, cuda::std::uint32_t next_share);
  UNISYNC_HOST_DEVICE bool lead_mixed_phase(side_kind side, cuda::std::uint32_t phase, cuda::std::uint32_t next_share);
  UNISYNC_HOST_DEVICE static constexpr other_side classify(cuda::std::uint64_t report,
                                                           cuda::std::uint32_t phase) noexcept;
  UNISYNC_HOST_DEVICE static constexpr cuda::std::uint64_t awaiting_word(cuda::std::uint32_t phase,
                                                                         cuda::std::uint32_t next_share) noexcept;
  UNISYNC_HOST_DEVICE bool phase_ended_across(cuda::std::uint32_t phase, cuda::std::memory_order order, side_kind side,
                                              bool reported, cuda::std::uint64_t& their_report) const;
  UNISYNC_HOST_DEVICE void carry_as_leader(side_kind side, cuda::std::uint32_t phase, cuda::std::uint64_t their_report,
                                          cuda::std::uint32_t next_share) const;
  UNISYNC_HOST_DEVICE static constexpr cuda::std::uint64_t carried_word(cuda::std::uint64_t awaiting,
                                                                        cuda::std::uint64_t their_report) noexcept;
  UNISYNC_HOST_DEVICE bool try_carry(side_kind side, cuda::std::uint32_t phase, cuda::std::uint64_t their_report,
                                     cuda::std::uint64_t awaiting) const;
  UNISYNC_HOST_DEVICE void open_next_phase(side_kind side, cuda::std::uint64_t word_after_carry) const;
  UNISYNC_HOST_DEVICE cuda::std::uint32_t forecast_to_release(side_kind waiter, arrival_token const& token,
                                                              cuda::std::memory_order order,
                                                              cuda::std::uint32_t poll) const;
  UNISYNC_HOST_DEVICE void wait_as(side_kind waiter, arrival_token&& token) const;
  UNISYNC_HOST_DEVICE bool try_wait_within(side_kind waiter, arrival_token const& token,
                                           cuda::std::uint64_t timeout_ns) const;

  central_part central_;
  side_part cpu_;
  side_part gpu_;
  report_part reports_;
};

/// The platform-aware system-scope barrier shared by CPU and GPU threads.
template <class CompletionFunction = empty_completion>
using partitioned_barrier = basic_partitioned_barrier<CompletionFunction>;

}  // namespace unisync

#include <unisync/detail/partitioned_barrier.inl>
