#pragma once

#include <unisync/detail/config.hpp>

#include <cuda/std/cstdint>

namespace unisync {

/**
 * @brief Every tunable constant of unisync, in one place, each with the measurement that
 * chose it (H100 machine: x86 host, PCIe, driver 580).
 *
 * To tune, derive from this struct, change what you measured, and instantiate the waiting
 * policies with it (`basic_exponential_backoff<YourTuning>`,
 * `basic_proportional_backoff<YourTuning>`); primitives read their constants from their
 * policy's `tuning`.
 */
struct tuning {
  /// Shortest delay of the exponential policy. One L2 round trip of a contended word on
  /// the H100 is about 0.5-1 us, so shorter sleeps only add polls.
  static constexpr cuda::std::uint32_t exponential_floor_ns = 256;
  /// The exponential policy's history grows by this much plus the last delay.
  static constexpr cuda::std::uint32_t exponential_growth_ns = 256;
  /// Longest delay of every policy: bounds the oversleep after the awaited event, and keeps
  /// a forecast in the wrong unit (CPU waiters of a barrier missing GPU threads) from
  /// sleeping for milliseconds.
  static constexpr cuda::std::uint32_t ceiling_ns = 256 * 1000;
  /// Forecast per ticket ahead (locks, semaphores): one handoff. A system-scope acq_rel
  /// block-to-block round trip measured 1.9-2.1 us on the H100, a device-scope one 1.1-1.4 us:
  /// a handoff is half of that or less.
  static constexpr cuda::std::uint32_t ticket_handoff_ns = 256;
  /// Forecast per missing arrival (per block for block-collective arrivals): arrivals do
  /// not wait for each other, they only serialize at the counter's L2 atomic unit, a few
  /// ns each. Scaling by the handoff cost instead made a 528-block barrier sleep ~135 us.
  static constexpr cuda::std::uint32_t barrier_arrival_ns = 2;
  /// A device waiter of `basic_barrier` polls again at once while its forecast is at most
  /// this (768 missing blocks, or warps of a per-thread call), above
  /// device_spin_threshold_ns: its sleeps of the forecast outlasted the last arrivals.
  /// H200, device scope, three interleaved rounds against sleeping above 256 ns
  /// (benchmark/results/h200-barrier-device-spin): per thread with 132 and 264 blocks
  /// 0.86x and 0.92x the time per phase, one arrival per block with 528 blocks 0.93x (1.25
  /// against 1.33 us); per thread with 528 blocks, whose last 768 of 2112 warps then poll
  /// one line together, 1.05x slower (4.69 against 4.46 us). Spinning only in phases of
  /// at most 1536 units gained that cell back at device scope but lost it at system scope
  /// and changed no cell's winner (benchmark/results/h200-device-drain-and-spin-bounds).
  static constexpr cuda::std::uint32_t device_barrier_spin_ns = 1536;
  /// Forecast while a cohort mutex's side waits for the other side to pass the top lock:
  /// half the 2.0-2.2 us CPU<->GPU round trip through memory measured on the H100 machine.
  static constexpr cuda::std::uint32_t link_handoff_ns = 1000;
  /// Below this delay the host yields instead of sleeping: Linux cannot sleep for much
  /// less than 50 us, so a shorter sleep_for would oversleep by 50 us or more.
  static constexpr cuda::std::uint32_t host_sleep_threshold_ns = 32 * 1000;
  /// A device waiter of the proportional policy whose forecast is at most this polls again
  /// at once instead of sleeping: one ticket handoff, or 128 missing arrivals of a barrier.
  /// Block-collective barrier at device scope on the H100, medians of three in one run:
  /// 1.69 us per phase at 132 blocks against 1.76 us sleeping every forecast, 2.48 against
  /// 2.74 us at 528.
  static constexpr cuda::std::uint32_t device_spin_threshold_ns = 256;
  /// A host waiter of the proportional policy whose forecast is at most this spins instead
  /// of yielding: four ticket handoffs (a semaphore's waiter within four handoffs of its
  /// permit) or 512 missing arrivals of a barrier. H100 machine's host, 15 threads, medians
  /// of three in one run: one-permit semaphore 2.4e6 against 1.7e6 acquisitions/s
  /// yielding, barrier 2.2 against 4.1 us per phase.
  static constexpr cuda::std::uint32_t host_spin_threshold_ns = 1024;
  /// ... for at most this long per wait, then yields as before. Bounds the processor time a
  /// waiter takes from other threads, the driver's threads that serve the GPU's page faults
  /// on managed memory among them (CPU waiters that never yielded made mixed cells 2-100x
  /// slower there).
  static constexpr cuda::std::uint32_t host_spin_budget_ns = 16 * 1000;
  /// From this many participants on, a host waiter of a barrier polls a line of its own
  /// that the completing thread stores to after its carry, instead of the word the
  /// arrivals add to. H100 machine's host, CPU-only barrier, medians of five in one run:
  /// 8 threads 0.95 against 1.16 us per phase, 15 threads 1.59 against 2.66 us; but 4
  /// threads 0.57 against 0.38 us (a second line crosses on each release).
  static constexpr cuda::std::uint32_t host_hint_min_participants = 8;
  /// On the GPU the thread whose addition completes a phase of `basic_barrier` arms the
  /// next phase (instead of leaving that to its first arrival, a second dependent atomic on
  /// that phase's critical path) when the phase takes at most this many additions of that
  /// weight, or when its addition was the arm. H100, device scope, block arrival, five
  /// interleaved rounds (benchmark/results/h100-barrier-arm-ahead): one block 0.935 against
  /// 1.061 us per phase, 8 blocks 0.975x; 33-528 blocks, where an arm ahead at every phase
  /// cost 3-11% (H200 machine; up to 5% on the H100, h100-gpu-arrival-experiments), get
  /// none and measured 1.00-1.01x (33 and 132 blocks 1.01x in two leases).
  static constexpr cuda::std::uint32_t barrier_arm_ahead_additions = 8;
  /// The same on the host, where it is off: a host thread's arm follows its own addition on
  /// a line its core already holds, while an arm ahead takes the line back from the waiters
  /// as they leave. Measured with it on (same folder, host-armed/): no CPU-only cell gained
  /// beyond the rounds' noise, 4 threads 1.11-1.19x slower.
  static constexpr cuda::std::uint32_t host_barrier_arm_ahead_additions = 0;
  /// A waiter of a partitioned barrier that is not its side's leader reads the reports
  /// (on the GPU, across the link) only at every this-many-th poll of its side's word once
  /// every arrival of the side is in: the leader reads them at every poll when it waits,
  /// the others only in case it does not (then about every 0.1-2 ms). H100, 15 CPU threads
  /// and 528 blocks of 128 threads arriving per thread: 1640 us per phase with every waiter
  /// reading them at every 64th poll (the link saturated), 8.6 us before waiters read them.
  static constexpr cuda::std::uint32_t report_poll_interval = 4096;
  /// The cohort mutex passes the lock within one side (CPU or GPU) at most this many
  /// times in a row while the other side waits, then hands it across.
  static constexpr cuda::std::uint32_t cohort_pass_bound = 64;
  /// A partitioned semaphore's acquirer whose ticket is a multiple of this (CPU side) gives
  /// its permit to a hungry GPU side and queues again: with N = 1, the CPU's turn. Twice
  /// the GPU's, because a CPU acquire/release pair costs about a tenth of a GPU one (H100
  /// machine, flat counting_semaphore alone, N = 1: 9.3e6 pairs/s on one CPU thread, 8.4e5
  /// on one block): longer CPU turns raise the pairs per second of a mixed cell. Measured
  /// (benchmark/results/h100-new-types, N = 8, 2-15 CPU threads x 8-528 blocks): the CPU
  /// side took 0.46-0.71 of the acquisitions. Turns of 256 / 128 measured 0.99x (N = 1)
  /// and 0.98x (N = 8) in mixed cells, 192 / 64 1.10x and 0.95x with a wait past 10 ms
  /// (H100, benchmark/results/h100-semaphore-turns).
  static constexpr cuda::std::uint32_t cpu_turn_acquisitions = 128;
  /// The same for the GPU side: a turn of 64 GPU acquisitions (about 70 us at 1.1 us per
  /// handoff) is many times the 4-6 us a permit takes across the link and back.
  static constexpr cuda::std::uint32_t gpu_turn_acquisitions = 64;
  /// A host thread alone on a partitioned semaphore's CPU side (it took each of the side's
  /// last cpu_turn_acquisitions tickets itself) takes its turn only at every this-many-th
  /// turn ticket, or at the first one lone_turn_ns after its last turn: it does a pair in
  /// about 0.1 us (1.2e7 pairs/s alone), so turns of 128 left the link and the GPU's turn
  /// most of each round. The aim of 25% of the acquisitions for each side applies from 4
  /// actors a side.
  static constexpr cuda::std::uint32_t lone_turn_factor = 8;
  /// ... so that its turn lasts about as long as the GPU's (64 handoffs of 1-1.6 us).
  /// Measured with these two values only (H100, benchmark/results/h100-semaphore-lone-turns:
  /// one CPU thread with 1-528 blocks, N = 1, 2.2x the pairs/s of turns of 128).
  static constexpr cuda::std::uint32_t lone_turn_ns = 64 * 1000;
  /// A GPU release that leaves permits no GPU waiter takes reads the CPU's wants across
  /// the link (about 1 us) at most this often; between two reads it leaves them in the
  /// GPU's pool (a side that only releases reads it sooner, once half of max() is over).
  /// One block alone would otherwise pay the read on every release (flat semaphore, one
  /// block: 1.2 us per pair); a CPU waiter that asks just after a read gets the permits
  /// from the next release, or by taking them (steal_after_ns).
  static constexpr cuda::std::uint32_t link_check_interval_ns = 16 * 1000;
  /// A hungry side takes free permits from the other side's pool once the other side's
  /// heartbeat has not changed for this long: a busy side changes it every turn (tens of
  /// us), and each take migrates the other side's page (about 1 ms on the H100 machine),
  /// so it must be rare; far below the 10 ms longest wait the issue allows.
  static constexpr cuda::std::uint32_t steal_after_ns = 1000 * 1000;
  /// A partitioned semaphore's GPU waiter this few tickets from its turn leaves its side's
  /// import role (or does not take it) while the side's grants keep moving: reading the
  /// link takes about a microsecond a load from the GPU, and a role holder still busy with
  /// it when its turn comes holds its permit that long. Measured on an H200 machine (same
  /// binary otherwise, benchmark/results/h200-partitioned-semaphore-import): 132 GPU blocks
  /// alone, N = 1, 4.1e5 pairs/s before, 7.0e5 with 4; other values untried.
  static constexpr cuda::std::uint32_t import_near_turn_tickets = 4;
  /// ... unless the side's grants have stood still this long: then the other side holds
  /// them, and the waiter near its turn reads the link itself (a single waiter must, or
  /// nobody asks for them). Four link crossings; untuned.
  static constexpr cuda::std::uint32_t import_stall_ns = 4 * link_handoff_ns;
  /// A partitioned semaphore that moves free permits out of a pool (a steal, or leftovers
  /// sent to a hungry side) tries its compare-exchange on the pool at most this many times:
  /// each failure means the pool's own acquirers took permits meanwhile, and the move is
  /// tried again later (at the next release that leaves permits over, or after the next
  /// steal_after_ns), so it never needs to win. Not measured.
  static constexpr cuda::std::uint32_t pool_transfer_attempts = 4;
  /// A partitioned semaphore's CPU send role holder serves the forwarding releases that
  /// found it held (one more forward round each time any came) at most this many rounds,
  /// then lets go, so that a stream of other releases does not hold a release longer; the
  /// requests of the last round wait for the next forward. With 8, four host producers
  /// feeding 132 GPU blocks moved 0.91-0.93x the items/s of the code without requests
  /// (one holder forwarding for all), with 2 0.94-1.02x in three A/Bs (H200 machine,
  /// benchmark/results/h200-semaphore-send-requests).
  static constexpr cuda::std::uint32_t send_role_rounds = 2;
  /// The same for its GPU send role, whose requests come from releases that forward without
  /// reading the link (a GPU side that only releases to a side that asked). With 2, bursts
  /// of one item from each of 8 and 32 GPU blocks to host consumers ended with a permit
  /// left in the GPU's pool (the host's steal, over 1 ms) in 16-25% of 1000; with 16 in
  /// 0.1-0.8% (H200 machine, benchmark/results/h200-semaphore-gpu-bursts).
  static constexpr cuda::std::uint32_t gpu_send_role_rounds = 16;
  /// A device-scope shared_mutex spreads its readers over this many reader words, by block
  /// (a reader registers on the word of its block index modulo this count), and a writer
  /// moves the gate's tag on every one of them with a read-modify-write to close and
  /// another to reopen: stripes make every writer dearer, and the readers, one
  /// read-modify-write each, gained nothing from them in the cells measured. H200
  /// machine, blocks of one GPU thread, ns per section with 16 / 8 / 4 / 2 / 1 words
  /// (benchmark/results/h200-shared-mutex-stripe-tags): 90% reads, one block 1706 / 1521 /
  /// 1430 / 1376 / 1245, 132 blocks 161 / 157 / 154 / 153 / 151; 99% reads, one block 1302
  /// / 1280 / 1270 / 1264 / 1145, 132 blocks 32.3 / 31.5 / 30.4 / 29.9 / 28.5, 528 blocks
  /// 20.5 / 19.9 / 19.7 / 19.7 / 19.6.
  static constexpr cuda::std::uint32_t shared_mutex_reader_stripes = 1;
  /// A system-scope shared_mutex keeps this many copies of its gate on host lines (16 KiB),
  /// and a GPU reader loads the copy of its block (and warp) modulo this count: the GPU's
  /// loads of one host line serialize, about 0.5 us each on the H100 machine. H100, 132
  /// blocks of one GPU reader, 99% reads: 1.2e5 sections/s with one line (a gate load took
  /// 40-60 us), 9.4e5 with 16 copies, 2.5e6 with 32, 4.4e6 with 64; writers store every copy.
  static constexpr cuda::std::uint32_t shared_mutex_gate_copies = 128;
  /// At most this many writers in a row hold a shared_mutex under one closed gate (each
  /// leaves it closed for a writer of its side queued behind it), so a reader waits for at
  /// most this many writers' sections. 1: every writer closes and reopens the gate itself,
  /// paying a round of the readers (and, across the link, its crossings) per writer. H100,
  /// 99% reads, sections/s with this and the pass bound below against neither
  /// (benchmark/results/h100-shared-mutex-writer-batch): 4 CPU threads x 132 blocks 2.15e6
  /// against 9.6e5, GPU blocks alone at device scope
  /// 2.2e7 against 1.2e7 (132) and 3.6e7 against 1.2e7 (528). 8 measured close to 32 with
  /// CPU threads, below it at device scope (90% reads, 132 blocks: 4.0e6 against 5.2e6).
  static constexpr cuda::std::uint32_t shared_mutex_writer_batch = 32;
  /// The system-scope shared_mutex's writers' lock (a cohort mutex) passes within one side
  /// at most this many times in a row while the other side's writers wait: a side's queued
  /// writers hold its readers back too, so with the cohort's 64 the CPU side got 3-7% of
  /// the sections at 99% reads (4 CPU threads x 132 blocks), 54% with 4 and the batch. 8
  /// and 16 left that cell at 1.02x and 1.00x the sections/s, and at 90% reads cut the CPU's
  /// share with 4 threads and 132 blocks from 0.46 to 0.32 and 0.20 (H200 machine,
  /// benchmark/results/h200-shared-mutex-pass-bound).
  static constexpr cuda::std::uint32_t shared_mutex_writer_pass_bound = 4;
};

}  // namespace unisync
