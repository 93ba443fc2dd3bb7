#pragma once
// Definitions of basic_shared_mutex; the contract is in unisync/shared_mutex.hpp, the
// algorithm checked in test/models/shared_mutex.pml (system scope) and
// test/models/shared_mutex_stripes.pml (below it).

#include <unisync/detail/managed_memory.hpp>
#include <unisync/detail/wait.hpp>

namespace unisync {

namespace detail {
/// The reader-word access of a shared mutex: at system scope each side's readers use their
/// own side's narrowest scope (own_side_word), at any other scope the object's, with
/// generic addressing: with the global-state-space forms of atomic_at one GPU thread's
/// loop of 90% reads and 10% writes took 670 ns per section against 617 (reads alone 433
/// against 488; H200, benchmark/results/h200-global-atomics).
template <cuda::thread_scope Scope>
using shared_reader_ref = cuda::std::conditional_t<Scope == cuda::thread_scope_system, own_side_word<cuda::std::uint64_t>,
                                                   cuda::atomic_ref<cuda::std::uint64_t, Scope>>;
}  // namespace detail

// ---- word fields and gate values

template <cuda::thread_scope Scope, class Backoff>
UNISYNC_HOST_DEVICE constexpr cuda::std::uint32_t basic_shared_mutex<Scope, Backoff>::registered(
    cuda::std::uint64_t word) noexcept
{
  return static_cast<cuda::std::uint32_t>(word & count_mask);
}

template <cuda::thread_scope Scope, class Backoff>
UNISYNC_HOST_DEVICE constexpr cuda::std::uint32_t basic_shared_mutex<Scope, Backoff>::late(
    cuda::std::uint64_t word, cuda::std::uint32_t slot) noexcept
{
  return static_cast<cuda::std::uint32_t>((word >> (count_bits * (1 + slot))) & count_mask);
}

template <cuda::thread_scope Scope, class Backoff>
UNISYNC_HOST_DEVICE constexpr cuda::std::uint64_t basic_shared_mutex<Scope, Backoff>::late_unit(
    cuda::std::uint32_t slot) noexcept
{
  return cuda::std::uint64_t{1} << (count_bits * (1 + slot));
}

template <cuda::thread_scope Scope, class Backoff>
UNISYNC_HOST_DEVICE constexpr bool basic_shared_mutex<Scope, Backoff>::closed(cuda::std::uint64_t gate) noexcept
{
  return (gate & 1u) != 0;
}

template <cuda::thread_scope Scope, class Backoff>
UNISYNC_HOST_DEVICE constexpr cuda::std::uint32_t basic_shared_mutex<Scope, Backoff>::late_slot(
    cuda::std::uint64_t gate) noexcept
{
  // Closed gate 2k - 1 is the k-th close: readers late for it count in slot k mod 2, so that
  // readers still late for it (not yet back from their wait) are not taken for late by the
  // next close, which must wait for them (a writer that gives up skips a close: see
  // reopen_abandoned_gate()).
  return static_cast<cuda::std::uint32_t>((gate + 1) >> 1) & 1u;
}

template <cuda::thread_scope Scope, class Backoff>
UNISYNC_HOST_DEVICE constexpr bool basic_shared_mutex<Scope, Backoff>::drained(cuda::std::uint64_t word,
                                                                              cuda::std::uint64_t gate) noexcept
{
  // Every registered reader is late for the writer that closed `gate`: none is inside or
  // about to enter.
  return registered(word) == late(word, late_slot(gate));
}

template <cuda::thread_scope Scope, class Backoff>
UNISYNC_HOST_DEVICE constexpr bool basic_shared_mutex<Scope, Backoff>::might_drain(cuda::std::uint64_t word) noexcept
{
  // Readers are late, and only late ones are left: a writer may be waiting for this.
  return (late(word, 0) != 0 && registered(word) == late(word, 0)) ||
         (late(word, 1) != 0 && registered(word) == late(word, 1));
}

template <cuda::thread_scope Scope, class Backoff>
UNISYNC_HOST_DEVICE constexpr cuda::std::uint64_t basic_shared_mutex<Scope, Backoff>::gate_seen_in(
    cuda::std::uint64_t word) noexcept
{
  // What a reader compares to tell whether the gate moved: the gate, or a kept copy without
  // its mark (system scope); a stripe's tag (other scopes).
  if constexpr (partitioned) {
    return word & ~kept_copy;
  } else {
    return word >> gate_tag_shift;
  }
}

// ---- where a thread registers

template <cuda::thread_scope Scope, class Backoff>
UNISYNC_HOST_DEVICE typename basic_shared_mutex<Scope, Backoff>::side_kind
basic_shared_mutex<Scope, Backoff>::running_side() noexcept
{
  return detail::running_on_device() ? side_kind::gpu : side_kind::cpu;
}

template <cuda::thread_scope Scope, class Backoff>
UNISYNC_HOST_DEVICE cuda::std::uint64_t& basic_shared_mutex<Scope, Backoff>::reader_word(side_kind side) noexcept
{
  if constexpr (partitioned) {
    return side == side_kind::gpu ? state_.gpu.readers.word : state_.cpu.readers.word;
  } else {
    return state_.stripes[detail::stripe_hint() % stripe_count].word;
  }
}

template <cuda::thread_scope Scope, class Backoff>
UNISYNC_HOST_DEVICE cuda::std::uint64_t& basic_shared_mutex<Scope, Backoff>::gate_word() noexcept
{
  return state_.link.gate;  // system scope only: below it, the writers' lock holds it
}

template <cuda::thread_scope Scope, class Backoff>
UNISYNC_HOST_DEVICE typename basic_shared_mutex<Scope, Backoff>::gate_view
basic_shared_mutex<Scope, Backoff>::load_reader_gate(side_kind side, cuda::std::memory_order order) noexcept
{
  // Acquire (or seq_cst, see fenceless_registration): a reader that finds the gate open (or
  // closed by the next writer, which it may pass) enters after the last writer's release.
  if constexpr (partitioned) {
    if (side == side_kind::gpu) {
      // GPU readers spread over the copies by block, then by warp of the block (host
      // threads that stand in for the GPU in tests, by thread), so that few of them read one
      // host line. Any kept copy serves any reader; a thread keeps to the word it read
      // within one call.
      cuda::std::uint32_t index = detail::stripe_hint();
      NV_IF_TARGET(NV_IS_DEVICE, (index += (threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) /
                                           32 * (gridDim.x * gridDim.y * gridDim.z);))
      cuda::std::uint64_t& copy = state_.link.reader_gates[index % gate_copies].word;
      cuda::std::uint64_t const value = detail::atomic_at<Scope>(copy).load(detail::memory_order_acquire);
      if ((value & kept_copy) != 0) return gate_view{&copy, value & ~kept_copy};
      // A writer has dropped the copies, and none has kept them since: ask writers to, and
      // read the gate itself this time.
      detail::atomic_at<Scope>(state_.link.copies_wanted).store(1, detail::memory_order_relaxed);
    }
    return gate_view{&gate_word(), detail::atomic_at<Scope>(gate_word()).load(order)};
  } else {
    // The gate's tag on the reader's own stripe.
    cuda::std::uint64_t& stripe = reader_word(side);
    return gate_view{&stripe, gate_seen_in(detail::atomic_at<Scope>(stripe).load(order))};
  }
}

template <cuda::thread_scope Scope, class Backoff>
UNISYNC_HOST_DEVICE bool basic_shared_mutex<Scope, Backoff>::reports(side_kind side) noexcept
{
  return partitioned && side == side_kind::gpu;
}

template <cuda::thread_scope Scope, class Backoff>
UNISYNC_HOST_DEVICE bool basic_shared_mutex<Scope, Backoff>::fenceless_registration(side_kind side) noexcept
{
  // A CPU reader on the host makes its registration (or un-late) a seq_cst read-modify-write
  // and its gate load a seq_cst load, with no fence between them: against a CPU writer's
  // seq_cst fence between its gate store and its reader-word loads, C++20 [atomics.order]
  // p4 and p4.2-4.3 order the two seq_cst operations and the fence in one total order, as
  // the reader's own fence did (p4.4); against a GPU writer's fence.sc.sys the processor's
  // ordering does, as it did for the fence (see the class comment). On x86 the
  // read-modify-write is a locked instruction and the load a plain one, where the fence was
  // a second locked instruction (GCC's `lock or`, clang's `mfence`): one thread's
  // lock_shared() and unlock_shared() took 14.9-15.7 ns instead of 17.2-18.6 on a Xeon
  // (benchmark/results/h200-shared-mutex-fenceless-reader). On the GPU a seq_cst operation
  // is a fence.sc and the operation, so there the fence stays, once; so it does where a
  // host thread stands in for the GPU side of a system-scope mutex (tests), whose presence
  // bookkeeping may come between the two.
  NV_IF_ELSE_TARGET(NV_IS_HOST, (return !reports(side);), (return false;))
}

// ---- readers

template <cuda::thread_scope Scope, class Backoff>
UNISYNC_HOST_DEVICE typename basic_shared_mutex<Scope, Backoff>::gate_view
basic_shared_mutex<Scope, Backoff>::register_reader(side_kind side)
{
  cuda::std::uint64_t& own_word = reader_word(side);
  detail::shared_reader_ref<Scope> const word(own_word);
  bool const fenceless = partitioned && fenceless_registration(side);
  // Acquire: a GPU reader that finds the presence bit acquires its publication; below
  // system scope, a reader that finds the gate open enters after the last writer's reopen,
  // released before its read-modify-writes.
  cuda::std::uint64_t const before =
      word.fetch_add(1, fenceless ? detail::memory_order_seq_cst : detail::memory_order_acquire);
  UNISYNC_ASSERT(registered(before) < count_mask, "shared_mutex: more than 2^20 - 1 readers registered on one word");
  if constexpr (!partitioned) {
    // The same read-modify-write read the gate's tag, and each writer moves the tag of
    // every stripe by a read-modify-write: in the stripe's modification order either the
    // writer's close comes first and this reader sees it closed, or this registration does
    // and the writer's polls of the stripe (after its own read-modify-write) see it. No
    // fence: a registration costs what libcu++'s semaphore acquire does.
    return gate_view{&own_word, gate_seen_in(before)};
  }
  if (fenceless) return load_reader_gate(side, detail::memory_order_seq_cst);
  if (reports(side) && (before & present_bit) == 0) await_presence(before + 1);
  // Dekker: this registration before the gate load; a writer's gate store before its loads
  // of the reader words. Whichever fence comes first, the other side sees it.
  cuda::atomic_thread_fence(detail::memory_order_seq_cst, Scope);
  return load_reader_gate(side, detail::memory_order_acquire);
}

template <cuda::thread_scope Scope, class Backoff>
UNISYNC_HOST_DEVICE void basic_shared_mutex<Scope, Backoff>::deregister(side_kind side, cuda::std::uint64_t units)
{
  // Release: the shared section before the writer that reads this word, or the report.
  cuda::std::uint64_t const after =
      detail::shared_reader_ref<Scope>(reader_word(side)).fetch_sub(units, detail::memory_order_release) - units;
  if (reports(side) && ((registered(after) == 0 && (after & present_bit) != 0) || might_drain(after))) {
    settle_or_leave();
  }
}

template <cuda::thread_scope Scope, class Backoff>
UNISYNC_HOST_DEVICE bool basic_shared_mutex<Scope, Backoff>::wait_for_gate_change(side_kind side, gate_view seen,
                                                                                 detail::deadline const* limit,
                                                                                 bool trust_hint)
{
  if constexpr (partitioned) {
    if (side == side_kind::gpu) return wait_for_gate_change_on_gpu(seen, limit, trust_hint);
  }
  static_cast<void>(trust_hint);
  // The word `seen` was read from, without the copy's mark (a copy kept and closed stays
  // kept: a GPU reader asked for the copies, and every later writer keeps them).
  auto const gate = detail::atomic_at<Scope>(*seen.word);
  cuda::std::uint32_t const wait_ns =
      partitioned ? Backoff::tuning::link_handoff_ns : Backoff::tuning::ticket_handoff_ns;
  auto const forecast = [&](cuda::std::memory_order order) {
    return gate_seen_in(gate.load(order)) == seen.value ? wait_ns : 0u;
  };
  if (limit == nullptr) {
    detail::wait_for_turn<Backoff>(forecast);
    return true;
  }
  return detail::wait_for_turn_until<Backoff>(*limit, forecast);
}

template <cuda::thread_scope Scope, class Backoff>
UNISYNC_HOST_DEVICE bool basic_shared_mutex<Scope, Backoff>::wait_for_gate_change_on_gpu(gate_view seen,
                                                                                        detail::deadline const* limit,
                                                                                        bool trust_hint)
{
  // GPU readers that wait for a writer wait together: one at a time, the watcher, polls
  // its copy of the gate across the link and raises the hint, in device memory, to every
  // newer value it reads; the others poll the hint, or take the role when nobody holds it.
  // Each poll across the link is a PCIe round trip, and with every waiting reader polling
  // its own copy those polls crowd the link that the writers' stores and the entering
  // readers' gate loads cross as well (H200 machine, 528 blocks alone at 99% reads: 6.1e6
  // sections/s, 2.0e7 with the watcher; benchmark/results/h200-shared-mutex-gate-watcher).
  // The hint only wakes: a woken waiter reads its own copy again, and what follows rests
  // on that read. Copies are separate words that a writer stores one after another, so a
  // waiter's may still lag the watcher's: a waiter that found its copy unchanged after the
  // hint woke it waits without trusting the hint (`trust_hint` false), on its own copy,
  // so that it does not go round at once (a read of the copy at every wake-up instead took
  // 0.81-0.87x the sections/s with 4 and 15 CPU threads and 132 blocks at 99% reads, H200
  // machine, the cohort_mutex control 1.00-1.01x; this form 0.93-0.96x, and trusting the
  // hint again 1.00-1.02x, but that one goes round at once while its copy lags).
  // No move is missed: once the gate has moved past a waiter's value, the watcher of the
  // moment raises the hint past it when its own copy shows the move (at once if its own
  // value is already past the waiter's), and it leaves the role only after such a raise
  // or at its deadline; with the role free the next waiter's poll takes it. Only the
  // role's holder writes the hint, and only a larger value; the exchange that takes the
  // role reads the release that gave it back, so each holder's stores follow the previous
  // holder's and the hint only grows (test/models/shared_mutex_gate_watch.pml). A
  // waiter's wake-up thus rests on the watcher's polls; the watcher is a waiting GPU
  // thread itself.
  detail::own_side_word<cuda::std::uint64_t> const hint(state_.gpu.gate_hint);
  detail::own_side_word<cuda::std::uint32_t> const watcher(state_.gpu.gate_watcher);
  auto const gate = detail::atomic_at<Scope>(*seen.word);
  bool watching = false;
  auto const forecast = [&](cuda::std::memory_order order) -> cuda::std::uint32_t {
    if (!watching) {
      if (trust_hint ? hint.load(detail::memory_order_relaxed) > seen.value
                     : gate_seen_in(gate.load(order)) != seen.value) {
        return 0;
      }
      if (watcher.load(detail::memory_order_relaxed) != 0 || watcher.exchange(1, detail::memory_order_acquire) != 0) {
        // Not trusting the hint, its copy lags a move already made, a few of the writer's
        // stores away: it polls again at once.
        return trust_hint ? Backoff::tuning::link_handoff_ns : Backoff::tuning::ticket_handoff_ns;
      }
      watching = true;
    }
    cuda::std::uint64_t const now = gate_seen_in(gate.load(order));
    if (now > hint.load(detail::memory_order_relaxed)) hint.store(now, detail::memory_order_release);
    if (now == seen.value) return Backoff::tuning::link_handoff_ns;
    watcher.store(0, detail::memory_order_release);
    watching = false;
    return 0;
  };
  if (limit == nullptr) {
    detail::wait_for_turn<Backoff>(forecast);
    return true;
  }
  bool const moved = detail::wait_for_turn_until<Backoff>(*limit, forecast);
  if (watching) watcher.store(0, detail::memory_order_release);
  return moved;
}

template <cuda::thread_scope Scope, class Backoff>
UNISYNC_HOST_DEVICE bool basic_shared_mutex<Scope, Backoff>::wait_out_writers(side_kind side, gate_view seen,
                                                                             detail::deadline const* limit)
{
  detail::shared_reader_ref<Scope> const word(reader_word(side));
  cuda::std::uint64_t gate = seen.value;
  bool trust_hint = true;
  for (;;) {
    // Late for the writer that closed `gate`: it does not wait for this reader, the next
    // writer does. The registration stays.
    cuda::std::uint32_t const slot = late_slot(gate);
    cuda::std::uint64_t const after =
        word.fetch_add(late_unit(slot), detail::memory_order_acq_rel) + late_unit(slot);
    if (reports(side) && registered(after) == late(after, slot)) settle_or_leave();
    if (!wait_for_gate_change(side, gate_view{seen.word, gate}, limit, trust_hint)) {
      deregister(side, 1 + late_unit(slot));  // gives up: no trace left
      return false;
    }
    // Active again; as a registration: on a stripe the same read-modify-write reads the
    // gate's tag (acquire, as a registration); otherwise ordered before the gate load by the
    // fence (or as seq_cst operations, see fenceless_registration).
    cuda::std::uint64_t now = 0;
    if constexpr (!partitioned) {
      now = gate_seen_in(word.fetch_sub(late_unit(slot), detail::memory_order_acquire));
    } else {
      bool const fenceless = fenceless_registration(side);
      word.fetch_sub(late_unit(slot), fenceless ? detail::memory_order_seq_cst : detail::memory_order_relaxed);
      if (!fenceless) cuda::atomic_thread_fence(detail::memory_order_seq_cst, Scope);
      now = gate_seen_in(detail::atomic_at<Scope>(*seen.word).load(fenceless ? detail::memory_order_seq_cst
                                                                              : detail::memory_order_acquire));
    }
    // Open, or closed by a writer of the other parity, which saw this registration as
    // active (it was visible to every writer after the one that closed `gate`) and waits
    // for this reader: enter. Closed by a writer of the same parity: that one may have
    // counted this reader as late, so it is late for it.
    if (!closed(now) || late_slot(now) != slot) return true;
    trust_hint = now != gate;  // unchanged: its copy lags the hint that woke it
    gate = now;
  }
}

template <cuda::thread_scope Scope, class Backoff>
UNISYNC_HOST_DEVICE void basic_shared_mutex<Scope, Backoff>::lock_shared()
{
  lock_shared_as(running_side());
}

template <cuda::thread_scope Scope, class Backoff>
UNISYNC_HOST_DEVICE void basic_shared_mutex<Scope, Backoff>::lock_shared_as(side_kind side)
{
  gate_view const seen = register_reader(side);
  if (!closed(seen.value)) return;
  wait_out_writers(side, seen, nullptr);
}

template <cuda::thread_scope Scope, class Backoff>
UNISYNC_HOST_DEVICE bool basic_shared_mutex<Scope, Backoff>::try_lock_shared()
{
  return try_lock_shared_as(running_side());
}

template <cuda::thread_scope Scope, class Backoff>
UNISYNC_HOST_DEVICE bool basic_shared_mutex<Scope, Backoff>::try_lock_shared_as(side_kind side)
{
  // A gate already closed fails the try without registering: a registration for an instant
  // at every failed try kept a draining writer polling for as long as tries failed back to
  // back (test/models: shared_mutex.bug_try_registers_first). Now only a try that found the
  // gate open as the writer closed it can delay the writer, once per thread and close.
  if (closed(load_reader_gate(side, detail::memory_order_acquire).value)) return false;
  if (!closed(register_reader(side).value)) return true;
  deregister(side, 1);
  return false;
}

template <cuda::thread_scope Scope, class Backoff>
UNISYNC_HOST_DEVICE bool basic_shared_mutex<Scope, Backoff>::try_lock_shared_within(cuda::std::uint64_t timeout_ns)
{
  return try_lock_shared_within_as(running_side(), timeout_ns);
}

template <cuda::thread_scope Scope, class Backoff>
UNISYNC_HOST_DEVICE bool basic_shared_mutex<Scope, Backoff>::try_lock_shared_within_as(side_kind side,
                                                                                      cuda::std::uint64_t timeout_ns)
{
  if (timeout_ns == 0) return try_lock_shared_as(side);
  detail::deadline const limit = detail::deadline::after(timeout_ns);
  // A gate already closed is waited out before registering, as try_lock_shared_as() fails
  // then: timed tries that give up back to back would otherwise each register for an
  // instant. From its registration on the reader waits for at most one batch, as before.
  gate_view const before = load_reader_gate(side, detail::memory_order_acquire);
  if (closed(before.value) && !wait_for_gate_change(side, before, &limit)) return false;
  gate_view const seen = register_reader(side);
  if (!closed(seen.value)) return true;
  return wait_out_writers(side, seen, &limit);
}

template <cuda::thread_scope Scope, class Backoff>
UNISYNC_HOST_DEVICE void basic_shared_mutex<Scope, Backoff>::unlock_shared()
{
  unlock_shared_as(running_side());
}

template <cuda::thread_scope Scope, class Backoff>
UNISYNC_HOST_DEVICE void basic_shared_mutex<Scope, Backoff>::unlock_shared_as(side_kind side)
{
#if UNISYNC_ENABLE_ASSERTIONS
  cuda::std::uint64_t const word = detail::shared_reader_ref<Scope>(reader_word(side)).load(detail::memory_order_relaxed);
  UNISYNC_ASSERT(registered(word) > late(word, 0) + late(word, 1),
                 "unlock_shared() of a shared_mutex that no reader of this side holds shared");
#endif  // UNISYNC_ENABLE_ASSERTIONS
  deregister(side, 1);
}

// ---- the GPU's report (system scope)

template <cuda::thread_scope Scope, class Backoff>
UNISYNC_HOST_DEVICE void basic_shared_mutex<Scope, Backoff>::await_presence(cuda::std::uint64_t word_value)
{
  // Registered, but the report does not say GPU readers are present: a CPU writer would
  // not wait for this reader. Publish it (or wait for the transition's holder to) before
  // looking at the gate.
  detail::shared_reader_ref<Scope> const word(reader_word(side_kind::gpu));
  Backoff backoff;
  while ((word_value & present_bit) == 0) {
    if ((word_value & transition_bit) == 0) {
      if (word.compare_exchange_strong(word_value, word_value | transition_bit, detail::memory_order_acquire,
                                       detail::memory_order_acquire)) {
        settle_report();  // publishes: this reader is registered
        word_value = word.load(detail::memory_order_acquire);
      }
      continue;
    }
    backoff.pause(Backoff::tuning::link_handoff_ns);
    word_value = word.load(detail::memory_order_acquire);
  }
}

template <cuda::thread_scope Scope, class Backoff>
UNISYNC_HOST_DEVICE void basic_shared_mutex<Scope, Backoff>::settle_or_leave()
{
  // Takes the transition bit and settles the report, unless another GPU thread holds the
  // bit: then that holder sees this thread's change before it lets go (its release is a
  // compare-and-swap that fails on any change to the word).
  detail::shared_reader_ref<Scope> const word(reader_word(side_kind::gpu));
  cuda::std::uint64_t value = word.load(detail::memory_order_relaxed);
  do {
    if ((value & transition_bit) != 0) return;
  } while (!word.compare_exchange_strong(value, value | transition_bit, detail::memory_order_acquire,
                                         detail::memory_order_relaxed));
  settle_report();
}

template <cuda::thread_scope Scope, class Backoff>
UNISYNC_HOST_DEVICE void basic_shared_mutex<Scope, Backoff>::settle_report()
{
  if constexpr (partitioned) {
    using detail::memory_order_acq_rel;
    using detail::memory_order_acquire;
    using detail::memory_order_release;
    detail::shared_reader_ref<Scope> const word(reader_word(side_kind::gpu));
    auto const report = detail::atomic_at<cuda::thread_scope_system>(state_.link.gpu_report);
    auto const gate_ref = detail::atomic_at<cuda::thread_scope_system>(state_.link.gate);
    // Only the transition bit's holder reads or writes reported_gate and the report; its
    // acquire when taking the bit and release when leaving it order them.
    cuda::std::uint64_t& reported = state_.gpu.reported_gate;
    cuda::std::uint64_t value = word.load(memory_order_acquire);
    for (;;) {
      cuda::std::uint64_t const reported_part = reported << report_gate_shift;
      if (registered(value) != 0 && (value & present_bit) == 0) {
        // Publish before the presence bit: a reader that finds the bit has the report
        // ordered before its fence.
        report.store(reported_part | report_present, memory_order_release);
        value = word.fetch_add(present_bit, memory_order_acq_rel) + present_bit;
        continue;
      }
      if (registered(value) == 0 && (value & present_bit) != 0) {
        // Withdraw the bit first (the exchange checks nobody registered), then the report.
        if (!word.compare_exchange_strong(value, value - present_bit, memory_order_acq_rel, memory_order_acquire)) {
          continue;
        }
        value -= present_bit;
        report.store(reported_part, memory_order_release);
        continue;
      }
      if ((value & present_bit) != 0 && might_drain(value)) {
        cuda::std::uint64_t const gate = gate_ref.load(memory_order_acquire);
        if (closed(gate) && drained(value, gate) && gate > reported) {
          // The exchange (a no-op) checks that nothing changed since the word was read, and
          // orders the gate load before every later registration, which then finds the gate
          // (and its copy, stored before it) closed: the drain holds until this writer
          // reopens.
          if (!word.compare_exchange_strong(value, value, memory_order_acq_rel, memory_order_acquire)) continue;
          reported = gate;
          report.store((gate << report_gate_shift) | report_present, memory_order_release);
          continue;
        }
        cuda::std::uint32_t const late_for = late(value, 0) != 0 ? 0u : 1u;  // might_drain: one slot
        if (!closed(gate) && late_slot(gate + 1) == late_for && closing_copies_ahead_of(gate)) {
          // Only late readers, the gate open, and the first copy already closed by the next
          // writer, for their slot: they may have read their copies closed, and the writer
          // has not stored the gate yet, a few stores away. Look again rather than let go:
          // no one else would report them drained. Otherwise they are late for a writer
          // that has reopened (or given up), will find their copies changed, and need no
          // report: the gate's parity alone would have looked again for good after a
          // give-up, once no writer came any more (test/models/shared_mutex.pml -DTIMED).
          Backoff backoff;
          backoff.pause(Backoff::tuning::link_handoff_ns);
          value = word.load(memory_order_acquire);
          continue;
        }
      }
      if (word.compare_exchange_strong(value, value - transition_bit, memory_order_release, memory_order_acquire)) {
        return;
      }
    }
  }
}

template <cuda::thread_scope Scope, class Backoff>
UNISYNC_HOST_DEVICE bool basic_shared_mutex<Scope, Backoff>::closing_copies_ahead_of(cuda::std::uint64_t open_gate)
{
  if constexpr (partitioned) {
    // The first copy is the one a writer stores first. A CPU writer releases each copy in
    // turn, so a GPU reader that acquired a later copy closed, then wrote the GPU word this
    // thread acquired, has the first copy's store ordered before this load. (A GPU writer's
    // copies are ordered by one fence only, but a GPU writer reads the GPU word itself and
    // waits for no report.)
    cuda::std::uint64_t const first =
        detail::atomic_at<cuda::thread_scope_system>(state_.link.reader_gates[0].word).load(detail::memory_order_acquire);
    return first == ((open_gate + 1) | kept_copy);
  } else {
    return false;
  }
}

// ---- writers

template <cuda::thread_scope Scope, class Backoff>
UNISYNC_HOST_DEVICE cuda::std::uint64_t basic_shared_mutex<Scope, Backoff>::close_gate()
{
  auto const gate_ref = detail::atomic_at<Scope>(gate_word());
  // Only the writers' lock holder writes the gate: the lock orders the previous value.
  cuda::std::uint64_t const open_gate = gate_ref.load(detail::memory_order_relaxed);
  // Closed here would mean a predecessor left it closed for a batch this writer did not
  // see (its side's count): closing again would open it.
  UNISYNC_ASSERT(!closed(open_gate), "shared_mutex: a writer found the gate closed without inheriting it");
  cuda::std::uint64_t const gate = open_gate + 1;
  // Released: a reader that passes this closed gate (a late reader of the previous writer)
  // enters after that writer's section.
  store_gate(gate);
  // Dekker: the gate store before the loads of the reader words (see register_reader).
  cuda::atomic_thread_fence(detail::memory_order_seq_cst, Scope);
  return gate;
}

template <cuda::thread_scope Scope, class Backoff>
UNISYNC_HOST_DEVICE void basic_shared_mutex<Scope, Backoff>::store_gate(cuda::std::uint64_t value)
{
  // The copies are kept once GPU readers have asked for them (until then they read the
  // gate; the request is never withdrawn, so from the first writer that keeps them on,
  // every writer does: the writers' lock orders their loads of it). Without a request,
  // a writer that finds them still kept from the start (only writers write them: the
  // lock orders this load too) drops them, once. First the copies, in index order, each
  // released (a reader that acquires a copy synchronizes with it; on the GPU by one
  // fence for all of them, see begin_released_stores): the GPU's report holder reads the
  // first to tell a writer between its copies and its gate (closing_copies_ahead_of()).
  // Then the gate, released after them, so that the GPU's report holder, which acquires
  // the gate, orders every later GPU registration after the copies too (see
  // settle_report).
  bool const keep = detail::atomic_at<Scope>(state_.link.copies_wanted).load(detail::memory_order_relaxed) != 0;
  if (keep ||
      (detail::atomic_at<Scope>(state_.link.reader_gates[0].word).load(detail::memory_order_relaxed) & kept_copy) != 0) {
    cuda::std::uint64_t const copy_value = keep ? value | kept_copy : 0;
    cuda::std::memory_order const copy_order = detail::begin_released_stores<Scope>();
    for (auto& copy : state_.link.reader_gates) {
      detail::atomic_at<Scope>(copy.word).store(copy_value, copy_order);
    }
  }
  detail::atomic_at<Scope>(gate_word()).store(value, detail::memory_order_release);
}

template <cuda::thread_scope Scope, class Backoff>
UNISYNC_HOST_DEVICE bool basic_shared_mutex<Scope, Backoff>::move_stripe_tags(cuda::std::uint64_t gate,
                                                                             cuda::std::uint64_t steps)
{
  // Every stripe's tag moves by a read-modify-write (see register_reader), released: a
  // reader that finds the gate reopened, or closed by the next writer and passes it,
  // enters after this writer's section (one fence on the device, see
  // begin_released_stores).
  cuda::std::uint64_t const step = steps << gate_tag_shift;
  cuda::std::memory_order const released = detail::begin_released_stores<Scope>();
  if (!closed(gate)) {
    for (auto& stripe : state_.stripes) detail::atomic_at<Scope>(stripe.word).fetch_add(step, released);
    return false;
  }
  // A close reads each stripe as it moves its tag: when every registered reader is
  // already late for it, the writer is in without polling (one round trip to L2 fewer on
  // the GPU). Acquire, for the readers' sections: on the host each read-modify-write
  // (acq_rel), on the device one fence once they show no reader.
  cuda::std::memory_order const order =
      released == detail::memory_order_release ? detail::memory_order_acq_rel : released;
  cuda::std::uint32_t active = 0;
  for (auto& stripe : state_.stripes) {
    cuda::std::uint64_t const before = detail::atomic_at<Scope>(stripe.word).fetch_add(step, order);
    active += registered(before) - late(before, late_slot(gate));
  }
  if (active != 0) return false;
  NV_IF_TARGET(NV_IS_DEVICE, (cuda::atomic_thread_fence(detail::memory_order_acquire, Scope);))
  return true;
}

template <cuda::thread_scope Scope, class Backoff>
UNISYNC_HOST_DEVICE bool basic_shared_mutex<Scope, Backoff>::close_stripes(cuda::std::uint64_t held)
{
  // Closed here would mean a predecessor left it closed without counting the batch.
  UNISYNC_ASSERT(!closed(held_gate(held)), "shared_mutex: a writer found the gate closed without inheriting it");
  return move_stripe_tags(held_gate(held) + 1, 1);
}

template <cuda::thread_scope Scope, class Backoff>
UNISYNC_HOST_DEVICE void basic_shared_mutex<Scope, Backoff>::abandon_stripes(cuda::std::uint64_t held)
{
  // As reopen_abandoned_gate(): the next close has this one's parity. Only a writer that
  // closed the gate gives up: a try never inherits one (the gate is kept closed only for a
  // writer that queued), so `held` names the open gate it closed from.
  UNISYNC_ASSERT(held_batch(held) == 0, "shared_mutex: a writer gave up a gate it inherited");
  cuda::std::uint64_t const reopened = held_gate(held) + 1 + 3;
  move_stripe_tags(reopened, 3);
  writers_.unlock(held, writer_state(reopened, 0));
}

template <cuda::thread_scope Scope, class Backoff>
UNISYNC_HOST_DEVICE void basic_shared_mutex<Scope, Backoff>::reopen_gate(cuda::std::uint64_t closed_gate)
{
  store_gate(closed_gate + 1);
}

template <cuda::thread_scope Scope, class Backoff>
UNISYNC_HOST_DEVICE void basic_shared_mutex<Scope, Backoff>::reopen_abandoned_gate(cuda::std::uint64_t closed_gate)
{
  // A close waits for every registered reader that is not late for its parity, so each
  // reader still late for the close before it (the other parity) finds the gate changed
  // and enters, or goes late for this one. A writer that gives up skipped that wait:
  // reopened to closed_gate + 1, the next close would have the other parity and count a
  // reader still late for the close before this one as late for itself, a second batch
  // for that reader to wait out (test/models/shared_mutex.pml -DTIMED). Skipping one open
  // and one closed value makes the next close of this one's parity instead.
  store_gate(closed_gate + 3);
}

template <cuda::thread_scope Scope, class Backoff>
UNISYNC_HOST_DEVICE cuda::std::uint32_t& basic_shared_mutex<Scope, Backoff>::inherited_writers() noexcept
{
  // The calling writer's side: a batch never crosses the link (see unlock()). System scope
  // only: below it, the writers' lock holds the count.
  return detail::running_on_device() ? state_.gpu.inherited_writers : state_.cpu.inherited_writers;
}

template <cuda::thread_scope Scope, class Backoff>
UNISYNC_HOST_DEVICE bool basic_shared_mutex<Scope, Backoff>::inherits_closed_gate()
{
  // Called by a new holder of the writers' lock: its predecessor left the gate closed and
  // drained for it (relaxed: the writers' lock orders the predecessor's store).
  return detail::own_side_word<cuda::std::uint32_t>(inherited_writers()).load(detail::memory_order_relaxed) != 0;
}

template <cuda::thread_scope Scope, class Backoff>
UNISYNC_HOST_DEVICE bool basic_shared_mutex<Scope, Backoff>::keeps_gate_for_successor(bool next_holder_on_this_side)
{
  // A writer whose writers' lock goes next to a writer of its side that has queued (taken
  // a ticket) leaves the gate closed for it, unless `shared_mutex_writer_batch` writers
  // have held this gate: the successor skips the close and the drain, a round of the
  // readers (and at system scope crossings of the link) per writer. Readers that found the
  // gate closed stay late until the batch's last writer reopens it, so a reader waits for
  // at most a batch. The count lives on the side's own page, so that a batch of GPU writers
  // does not cross the link.
  detail::own_side_word<cuda::std::uint32_t> const inherited(inherited_writers());
  cuda::std::uint32_t const before = inherited.load(detail::memory_order_relaxed);
  if (next_holder_on_this_side && before + 1 < Backoff::tuning::shared_mutex_writer_batch) {
    inherited.store(before + 1, detail::memory_order_relaxed);
    return true;
  }
  if (before != 0) inherited.store(0, detail::memory_order_relaxed);
  return false;
}

template <cuda::thread_scope Scope, class Backoff>
UNISYNC_HOST_DEVICE cuda::std::uint32_t basic_shared_mutex<Scope, Backoff>::forecast_to_drain(
    cuda::std::uint64_t gate, cuda::std::memory_order order)
{
  cuda::std::uint32_t active = 0;
  auto count_active = [&](cuda::std::uint64_t word) { active += registered(word) - late(word, late_slot(gate)); };
  if constexpr (partitioned) {
    count_active(detail::atomic_at<cuda::thread_scope_system>(state_.cpu.readers.word).load(order));
    if (detail::running_on_device()) {
      count_active(detail::atomic_at<cuda::thread_scope_device>(state_.gpu.readers.word).load(order));
    } else {
      // The GPU's word is on a device page: read the report the GPU side keeps for this.
      cuda::std::uint64_t const report =
          detail::atomic_at<cuda::thread_scope_system>(state_.link.gpu_report).load(order);
      bool const gpu_done =
          (report & report_present) == 0 || (report >> report_gate_shift) == gate;
      if (!gpu_done) return Backoff::tuning::link_handoff_ns;
    }
  } else {
    // On the GPU each acquire load waits for the one before it, one round trip to L2 a
    // stripe: there the loads are relaxed, and one fence with the poll's order follows a
    // poll that finds no reader. The host keeps acquire loads, as cheap as relaxed ones on
    // x86 and what ThreadSanitizer sees (it does not model fences).
    cuda::std::memory_order each = order;
    NV_IF_TARGET(NV_IS_DEVICE, (each = detail::memory_order_relaxed;))
    for (cuda::std::uint32_t stripe = 0; stripe < stripe_count; ++stripe) {
      count_active(detail::atomic_at<Scope>(state_.stripes[stripe].word).load(each));
    }
    NV_IF_TARGET(NV_IS_DEVICE, (if (active == 0) cuda::atomic_thread_fence(order, Scope);))
  }
  // Each active reader finishes one section; their sections run in parallel, so forecast
  // one handoff, whatever their number.
  return active == 0 ? 0u : Backoff::tuning::ticket_handoff_ns;
}

template <cuda::thread_scope Scope, class Backoff>
UNISYNC_HOST_DEVICE void basic_shared_mutex<Scope, Backoff>::lock()
{
  if constexpr (partitioned) {
    writers_.lock();
    if (inherits_closed_gate()) return;
    cuda::std::uint64_t const gate = close_gate();
    detail::wait_for_turn<Backoff>([&](cuda::std::memory_order order) { return forecast_to_drain(gate, order); });
  } else {
    cuda::std::uint64_t const held = writers_.lock();
    if (held_batch(held) != 0 || close_stripes(held)) return;  // inherited closed, or no reader in
    cuda::std::uint64_t const gate = held_gate(held) + 1;
    detail::wait_for_turn<Backoff>([&](cuda::std::memory_order order) { return forecast_to_drain(gate, order); });
  }
}

template <cuda::thread_scope Scope, class Backoff>
UNISYNC_HOST_DEVICE bool basic_shared_mutex<Scope, Backoff>::try_lock()
{
  if constexpr (partitioned) {
    if (!writers_.try_lock()) return false;
    if (inherits_closed_gate()) return true;
    cuda::std::uint64_t const gate = close_gate();
    if (forecast_to_drain(gate, detail::memory_order_acquire) == 0) return true;
    reopen_abandoned_gate(gate);
    writers_.unlock();
    return false;
  } else {
    cuda::std::uint64_t held = 0;
    if (!writers_.try_lock(&held)) return false;
    if (held_batch(held) != 0 || close_stripes(held) ||
        forecast_to_drain(held_gate(held) + 1, detail::memory_order_acquire) == 0) {
      return true;
    }
    abandon_stripes(held);
    return false;
  }
}

template <cuda::thread_scope Scope, class Backoff>
UNISYNC_HOST_DEVICE bool basic_shared_mutex<Scope, Backoff>::try_lock_within(cuda::std::uint64_t timeout_ns)
{
  if (timeout_ns == 0) return try_lock();
  detail::deadline const limit = detail::deadline::after(timeout_ns);
  if constexpr (partitioned) {
    if (!writers_.try_lock_for(cuda::std::chrono::nanoseconds(static_cast<cuda::std::int64_t>(timeout_ns)))) {
      return false;
    }
    if (inherits_closed_gate()) return true;
    cuda::std::uint64_t const gate = close_gate();
    if (detail::wait_for_turn_until<Backoff>(
            limit, [&](cuda::std::memory_order order) { return forecast_to_drain(gate, order); })) {
      return true;
    }
    reopen_abandoned_gate(gate);  // gives up: the readers that found it closed go on
    writers_.unlock();
    return false;
  } else {
    cuda::std::uint64_t held = 0;
    if (!writers_.try_lock_within(timeout_ns, &held)) return false;
    cuda::std::uint64_t const gate = held_gate(held) + 1;
    if (held_batch(held) != 0 || close_stripes(held) ||
        detail::wait_for_turn_until<Backoff>(
            limit, [&](cuda::std::memory_order order) { return forecast_to_drain(gate, order); })) {
      return true;
    }
    abandon_stripes(held);
    return false;
  }
}

template <cuda::thread_scope Scope, class Backoff>
UNISYNC_HOST_DEVICE void basic_shared_mutex<Scope, Backoff>::unlock()
{
  if constexpr (partitioned) {
    // Only the writers' lock holder writes the gate: the lock orders the value loaded.
    auto const load_gate = [this] { return detail::atomic_at<Scope>(gate_word()).load(detail::memory_order_relaxed); };
    UNISYNC_ASSERT(closed(load_gate()), "unlock() of a shared_mutex that is not held exclusively");
    // Loads the gate only to reopen it: a batch of GPU writers then never reads across
    // the link. The cohort decides whether it passes within the side and says so before
    // it releases.
    writers_.unlock_after([&](bool next_holder_on_this_side) {
      if (!keeps_gate_for_successor(next_holder_on_this_side)) reopen_gate(load_gate());
    });
  } else {
    // The state the predecessor handed over and the queue, in one round trip: the gate
    // this writer holds closed is the predecessor's when it inherited it (a batch count),
    // else the next one, which it closed.
    detail::ticket_holder_view const view = writers_.view_as_holder();
    UNISYNC_ASSERT(view.queued != 0, "unlock() of a shared_mutex that is not held exclusively");
    cuda::std::uint32_t const batch = held_batch(view.state);
    cuda::std::uint64_t const gate = held_gate(view.state) + (batch != 0 ? 0 : 1);
    // As keeps_gate_for_successor(): the gate stays closed for a writer that has queued,
    // unless shared_mutex_writer_batch writers have held it.
    if (view.queued > 1 && batch + 1 < Backoff::tuning::shared_mutex_writer_batch) {
      writers_.unlock(view.state, writer_state(gate, batch + 1));
      return;
    }
    move_stripe_tags(gate + 1, 1);
    writers_.unlock(view.state, writer_state(gate + 1, 0));
  }
}

// ---- group overloads

#if defined(__CUDACC__)
template <cuda::thread_scope Scope, class Backoff>
template <class Group, class>
__device__ void basic_shared_mutex<Scope, Backoff>::lock(Group const& group)
{
  detail::leader_takes_for_group(group, [this] { lock(); });
}

template <cuda::thread_scope Scope, class Backoff>
template <class Group, class>
__device__ bool basic_shared_mutex<Scope, Backoff>::try_lock(Group const& group)
{
  return detail::leader_tries_for_group(group, [this] { return try_lock(); });
}

template <cuda::thread_scope Scope, class Backoff>
template <class Group, class>
__device__ void basic_shared_mutex<Scope, Backoff>::unlock(Group const& group)
{
  detail::leader_gives_for_group(group, [this] { unlock(); });
}

template <cuda::thread_scope Scope, class Backoff>
template <class Group, class>
__device__ void basic_shared_mutex<Scope, Backoff>::lock_shared(Group const& group)
{
  detail::leader_takes_for_group(group, [this] { lock_shared(); });
}

template <cuda::thread_scope Scope, class Backoff>
template <class Group, class>
__device__ bool basic_shared_mutex<Scope, Backoff>::try_lock_shared(Group const& group)
{
  return detail::leader_tries_for_group(group, [this] { return try_lock_shared(); });
}

template <cuda::thread_scope Scope, class Backoff>
template <class Group, class>
__device__ void basic_shared_mutex<Scope, Backoff>::unlock_shared(Group const& group)
{
  detail::leader_gives_for_group(group, [this] { unlock_shared(); });
}
#endif  // defined(__CUDACC__)

template <cuda::thread_scope Scope, class Backoff>
void basic_shared_mutex<Scope, Backoff>::advise_placement(basic_shared_mutex* object, int device)
{
  if constexpr (partitioned) {
    writer_lock::advise_placement(&object->writers_, device);
    detail::advise_managed(&object->state_.cpu, sizeof(cpu_part), memory_advice::prefer_host, device);
    detail::advise_managed(&object->state_.link, sizeof(link_part), memory_advice::prefer_host, device);
    detail::advise_managed(&object->state_.gpu, sizeof(gpu_part), memory_advice::prefer_device, device);
  } else {
    // GPU threads only: the whole object in device memory.
    detail::advise_managed(object, sizeof(basic_shared_mutex), memory_advice::prefer_device, device);
  }
}

}  // namespace unisync
