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

#include <chrono>

namespace unisync {

/**
 * @brief std::barrier for CPU and GPU participants that keeps every read-modify-write on one
 * side of the link: the platform-aware barrier for GPUs without native host atomics (PCIe).
 *
 * Each side gathers its arrivals on a word in its own memory (GPU: device-resident page,
 * block-count hierarchy; CPU: host-resident page) with `basic_barrier`'s carry scheme.
 * A side alone (the other side has no participants) is `basic_barrier` on that word:
 * with the default completion its last arrival's addition carries into the parity and
 * releases the side. With both sides, each side's additions stop one short of the carry,
 * and the arrival that reaches it is the side's leader: it publishes "my side arrived"
 * with one store to a host-resident word, reads the other side's (the GPU reads across the
 * link, the CPU locally), and then releases its own side by adding the carry. With the
 * default completion both leaders publish before they read, so the two crossings of the
 * link overlap; with a completion function the GPU leader reads first, runs it, and then
 * publishes. Only plain loads and stores with system-scope release/acquire cross the link:
 * on the H100 machine a CPU<->GPU round trip through memory costs about 2 us, while
 * atomics on one managed word migrate its page on every cross access (libcu++'s system
 * barrier: 495-596 us per phase). Many CPU waiters poll a hint line, stored after each
 * carry, before they look at the word the CPU's arrivals add to.
 *
 * How `expected` is split: the first phase runs on one central word in managed memory
 * (correct for any split, slow once) while each side also counts its own arrivals on its
 * word (the same addition that, once the side counts on its own, is its arrival); the
 * first phase's last arriver learns the split from those counts and arms the side words.
 * From then on each side expects the arrivals it had in the previous phase minus its
 * `arrive_and_drop()`s. Precondition: participants do not move between sides after the
 * first phase (the same threads arrive every phase, the ordinary use of a barrier). An
 * arrival beyond its side's share is reported (host: unisync::error, device: trap) when it
 * finds the side's phase armed, or when it is the phase's first arrival; one that slips
 * in before the arm is reported by the arming arrival.
 *
 * The completion function runs exactly once per phase, before anyone is released: in the
 * first phase (and always in flat mode) in the last arriving thread, on either side;
 * later on the GPU while GPU threads take part, on the CPU otherwise (so with both sides
 * it must be callable on both: `__host__ __device__`).
 *
 * Placement: construct it with `unisync::make_managed`, which advises each part for the
 * side that touches it; without the advice it is still correct, only slower. On a GPU
 * whose link has native host atomics (`hostNativeAtomicSupported`, NVLink-C2C) make_managed
 * selects the flat mode instead: every phase on the central word, since there one
 * system-scope atomic per arrival costs less than a cross-link handshake per phase, and
 * no page migrates (each arrival still counts itself on its side's word first, an atomic
 * in its own memory that then only tells it to go on to the central word).
 *
 * When to choose it (benchmark/results/h100, PCIe H100): the default barrier for CPU and
 * GPU participants together: 3.7 us per phase with 1 CPU thread and 1 block of 128
 * threads, 4.4 us with 4 and 132, 4.3 us with 15 and 132, 4.7 us with 15 and 528,
 * against libcu++'s system barrier's 503, 495, 596 and 559 us (mixed cells vary between
 * runs: 15 x 528 took 4.5-7.2 us in four). With GPU threads alone it is the fastest
 * system-scope barrier (132 blocks: 1.39 us against `barrier`'s 1.75 us; `barrier` at
 * device scope 1.12 us); with CPU threads alone it runs `barrier`'s algorithm on its CPU
 * word, but was slower with few threads on the H100 host (1 thread: 0.041 against
 * 0.018 us; 4 threads: 0.56 against 0.39 us; 15 threads 1.58 against 1.76 us). Its
 * arrival was then a call that returned the token through the stack; inlined since, one
 * thread costs what `barrier` does (2-core host: 0.014 us both, 0.027 before); the H100
 * cells have not been measured again since.
 *
 * Memory ordering: everything a participant did before arriving is visible to the
 * completion function and to every participant after its wait returns. Side arrivals are
 * acquire-release RMWs on the side's word (the arm acquires too; one release sequence,
 * device scope on the GPU, since after the first phase only GPU threads touch it), so the
 * addition that
 * completes the side's phase acquires every earlier one. A mixed side's leader then
 * publishes its report with a system-scope release and acquires the other side's report
 * at system scope (the GPU leader of the default completion with one fence.acq_rel.sys
 * between its read of the CPU's report and its store of its own); the completion runs
 * after both acquires; the leaders' release carries (and the GPU's report release) carry
 * everything to the waiters, who poll with acquire loads (many CPU waiters poll a hint
 * line first, then the word). Releases and acquires are cumulative under the PTX model and causality
 * order chains through synchronizations of different scopes, so the chain orders every
 * participant's writes before every participant's reads.
 *
 * @tparam CompletionFunction nothrow-invocable with no arguments, run once per phase.
 * @tparam Backoff            waiting policy; `proportional_backoff` (default).
 */
template <class CompletionFunction = empty_completion, class Backoff = proportional_backoff>
class basic_partitioned_barrier {
  static_assert(cuda::std::is_nothrow_invocable_v<CompletionFunction&>,
                "the barrier's CompletionFunction must be callable with no arguments and noexcept");

 public:
  /// Returned by arrive(); identifies the phase, and the word it was counted on.
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
      fetches_report = 2,     // the GPU side's first arriver: copies the CPU's report
      completed_phase = 4,    // this arrival completed (and acquired) the side's phase
      polls_open_parity = 8,  // a CPU waiter among many: polls cpu_.open_parity
    };
    UNISYNC_HOST_DEVICE arrival_token(cuda::std::uint32_t phase, cuda::std::uint32_t weight,
                                      cuda::std::uint32_t flags) noexcept
        : phase_(phase), weight_(weight), flags_(flags)
    {
    }
    UNISYNC_HOST_DEVICE bool has(flag which) const noexcept { return (flags_ & which) != 0; }
    cuda::std::uint32_t phase_ = 0;  // central: the phase number; on a side: its parity
    cuda::std::uint32_t weight_ = 1;
    cuda::std::uint32_t flags_ = central;
  };

  /// The largest expected count: 2^22 - 1 (in the first phase a side's drops count down
  /// from 2^23 in its word's participants field, and must not reach the flags above it).
  UNISYNC_HOST_DEVICE static constexpr cuda::std::ptrdiff_t max() noexcept { return field_mask; }

  /// Preconditions: 0 <= expected <= max(), checked in every build.
  UNISYNC_HOST_DEVICE constexpr explicit basic_partitioned_barrier(cuda::std::ptrdiff_t expected,
                                                                   CompletionFunction completion = CompletionFunction())
      : central_{static_cast<cuda::std::uint64_t>(expected), static_cast<cuda::std::uint32_t>(expected), 0, 0,
                 completion}
  {
    UNISYNC_EXPECTS(expected >= 0 && expected <= max(), "partitioned_barrier(expected) needs 0 <= expected <= max()");
  }
  basic_partitioned_barrier(basic_partitioned_barrier const&) = delete;
  basic_partitioned_barrier& operator=(basic_partitioned_barrier const&) = delete;

  /// Counts `update` arrivals of the calling thread's side. Preconditions: update > 0 and
  /// at most the arrivals still missing (debug builds); at most the side's share (always
  /// checked, see the class comment). Cost: one acquire-release fetch_add on the side's word
  /// (the phase's first arrival adds the arm with a second one); with both sides the
  /// side's last arriver also does the handshake: one store across the link, polls of the
  /// other side's report (local on the CPU, across the link on the GPU), and the carry.
  [[nodiscard]] UNISYNC_HOST_DEVICE arrival_token arrive(cuda::std::ptrdiff_t update = 1);

  /// Blocks until the phase of `token` has completed. Cost: acquire polls of a word in the
  /// calling side's own memory.
  UNISYNC_HOST_DEVICE void wait(arrival_token&& token) const;
  /// True once the phase of `token` has completed; never blocks.
  UNISYNC_HOST_DEVICE bool try_wait(arrival_token const& token) const;
  /// @{
  /// Waits for the phase of `token` at most `timeout`; the token stays valid.
  template <class Rep, class Period>
  UNISYNC_HOST_DEVICE bool try_wait_for(arrival_token const& token,
                                        cuda::std::chrono::duration<Rep, Period> const& timeout) const
  {
    return try_wait_within(token, detail::to_nanoseconds(timeout));
  }
  template <class Rep, class Period>
  bool try_wait_for(arrival_token const& token, std::chrono::duration<Rep, Period> const& timeout) const
  {
    return try_wait_within(token, detail::to_nanoseconds(timeout));
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

  // The central word: phase (bits 63..32) | arrivals missing (bits 31..0).
  static constexpr cuda::std::uint64_t missing_mask = 0xffffffffu;
  static constexpr int phase_shift = 32;
  // The largest share of a side, and max().
  static constexpr cuda::std::uint32_t field_mask = (1u << 22) - 1;
  // A side's word, as basic_barrier's: parity (bit 63) | arrival count (62..31) | learning
  // (30) | mixed (29) | participants (23..0). Learning: the first phase runs on the central
  // word, and the side's word only counts the side's arrivals (count) and drops (down from
  // learning_base in the participants field), so that the first phase's last arriver
  // learns the split; it stays set in flat mode. Mixed: the other side has participants,
  // so the side's leader does the handshake before it releases the side.
  static constexpr int side_count_shift = 31;
  static constexpr int side_parity_shift = 63;
  static constexpr cuda::std::uint64_t learning_flag = cuda::std::uint64_t{1} << 30;
  static constexpr cuda::std::uint64_t mixed_flag = cuda::std::uint64_t{1} << 29;
  static constexpr cuda::std::uint64_t side_participants_mask = (cuda::std::uint64_t{1} << 24) - 1;
  static constexpr cuda::std::uint32_t learning_base = 1u << 23;
  // Handshake phase numbers wrap at 20 bits.
  static constexpr cuda::std::uint32_t side_phase_mask = (1u << 20) - 1;
  // A report: the reporting side's next phase (bits 63..32) | its share of it (31..0).
  static constexpr int report_phase_shift = 32;
  // An empty report copy: bit 31, which no report sets (shares are below 2^22), so that it
  // never passes for a report, whatever the phase.
  static constexpr cuda::std::uint64_t no_report = cuda::std::uint64_t{1} << 31;
  // With the default completion a side that completes alone releases with the carry of
  // its last arrival, as basic_barrier; a leader with more to do (a handshake, a
  // completion function) stops one short of the carry and adds it when done.
  static constexpr bool completes_in_arrival = cuda::std::is_same_v<CompletionFunction, empty_completion>;

  /// One side's state, on a page of its own. The CPU's page is advised for the host, the
  /// GPU's for the device.
  struct alignas(4096) side_part {
    // Parity | count | flags | participants (layout above). Written by the side's
    // arrivals, arms and carries (fetch_add), and once by the first phase's last arriver
    // (the arming store); polled by the side's waiters.
    alignas(detail::cache_line_size) cuda::std::uint64_t word = learning_flag | learning_base;
    // The phase number of the side's last handshake. Written by the side's leaders, one
    // after another; read by the GPU's report copier (relaxed: if it reads its own
    // phase's leader's newer value, it polls for the next report until its phase ends,
    // which costs polls, not correctness).
    alignas(detail::cache_line_size) cuda::std::uint32_t handshake_phase = 0;
    // The CPU's report, copied into this side's memory by the phase's first arriver (used
    // on the GPU side only), or no_report. Written by that arriver; taken (exchanged for
    // no_report) by the leader, so that a copy is never older than the previous phase's.
    alignas(detail::cache_line_size) cuda::std::uint64_t cpu_report_copy = no_report;
    // The parity of the side's open phase, stored (relaxed) after each carry, CPU side
    // only: a hint, as basic_barrier's open_parity_. With many CPU participants
    // (tuning::host_hint_min_participants) the CPU's waiters poll this line and look at
    // the word, which decides, only once it changes (and at every 64th poll). Every poll
    // of the word takes a shared copy of its line, which the next arrival's
    // read-modify-write must then take back from every waiter.
    alignas(detail::cache_line_size) cuda::std::uint32_t open_parity = 0;
  };

  /// The reports, both in host memory: the CPU leader writes and reads them locally, the
  /// GPU leader writes its own and polls the CPU's across the link. A report is the phase
  /// its side has arrived in plus one (high half) and the side's share of that next phase.
  struct alignas(4096) report_part {
    alignas(detail::cache_line_size) cuda::std::uint64_t from_cpu = 0;  // written by CPU leaders
    alignas(detail::cache_line_size) cuda::std::uint64_t from_gpu = 0;  // written by GPU leaders
  };

  /// The central word, used by every arrival in the first phase (and always in flat mode),
  /// in managed memory without advice: both sides' read-modify-writes on it stay atomic
  /// because its page migrates to whichever side operates on it.
  struct alignas(4096) central_part {
    cuda::std::uint64_t phase_and_missing;  // written by every central arrival and the last one
    cuda::std::uint32_t expected;           // participants of the next central phase
    cuda::std::uint32_t drops;              // drops in a central phase
    cuda::std::uint32_t flat;               // 1: every phase stays central (set by make_managed)
    CompletionFunction completion;
  };

  UNISYNC_HOST_DEVICE side_part& my_side() const;
  UNISYNC_HOST_DEVICE arrival_token arrive_counting(cuda::std::uint32_t weight, bool drop);
  UNISYNC_HOST_DEVICE arrival_token arrive_on_side(side_part& side, cuda::std::uint64_t before,
                                                   cuda::std::uint32_t weight, bool drop);
  UNISYNC_HOST_DEVICE arrival_token arrive_central(cuda::std::uint32_t weight);
  UNISYNC_HOST_DEVICE void complete_central_phase(cuda::std::uint32_t phase);
  UNISYNC_HOST_DEVICE void complete_side_phase(side_part& side, cuda::std::uint32_t next_share, bool mixed);
  UNISYNC_HOST_DEVICE static void open_next_phase(side_part& side, cuda::std::uint64_t word_in_closed_phase);
  UNISYNC_HOST_DEVICE cuda::std::uint64_t report_gpu_then_read_cpu(cuda::std::uint64_t my_report,
                                                                   cuda::std::uint32_t next_phase);
  UNISYNC_HOST_DEVICE static constexpr cuda::std::uint32_t side_step(cuda::std::uint64_t word) noexcept;
  UNISYNC_HOST_DEVICE cuda::std::uint64_t wait_for_report(cuda::std::uint64_t const& report,
                                                          cuda::std::uint32_t next_phase) const;
  UNISYNC_HOST_DEVICE cuda::std::uint64_t cpu_report_for(cuda::std::uint32_t next_phase);
  UNISYNC_HOST_DEVICE void copy_cpu_report(arrival_token const& token);
  UNISYNC_HOST_DEVICE static constexpr bool reported_at_least(cuda::std::uint64_t report,
                                                              cuda::std::uint32_t next_phase) noexcept;
  UNISYNC_HOST_DEVICE cuda::std::uint32_t forecast_to_release(arrival_token const& token, cuda::std::memory_order order,
                                                               bool trust_hint) const;
  UNISYNC_HOST_DEVICE bool try_wait_within(arrival_token const& token, cuda::std::uint64_t timeout_ns) const;

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
