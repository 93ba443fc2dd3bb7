#pragma once
// Definitions of basic_latch; the contract is in unisync/latch.hpp.

#include <unisync/capabilities.hpp>
#include <unisync/detail/managed_memory.hpp>
#include <unisync/detail/wait.hpp>

namespace unisync {

template <cuda::thread_scope Scope, class Backoff>
UNISYNC_HOST_DEVICE typename basic_latch<Scope, Backoff>::side_kind basic_latch<Scope, Backoff>::running_side() noexcept
{
  return detail::running_on_device() ? side_kind::gpu : side_kind::cpu;
}

template <cuda::thread_scope Scope, class Backoff>
UNISYNC_HOST_DEVICE constexpr cuda::std::uint32_t basic_latch<Scope, Backoff>::counted_of(
    cuda::std::uint64_t word) noexcept
{
  return static_cast<cuda::std::uint32_t>(word >> counted_shift);
}

template <cuda::thread_scope Scope, class Backoff>
UNISYNC_HOST_DEVICE bool basic_latch<Scope, Backoff>::flat_mode(side_kind side) const noexcept
{
  if constexpr (across_link) {
    // Set once by make_managed before the latch is shared; each side reads its own memory
    // (the host's flag is a read-only line of host memory, the GPU's is the mark).
    if (side == side_kind::cpu) return state_.host.flat != 0;
    auto& self = const_cast<basic_latch&>(*this);
    return (detail::own_side_word<cuda::std::uint64_t>(self.state_.device.word).load(detail::memory_order_relaxed) &
            flat_mark) != 0;
  } else {
    return true;
  }
}

template <cuda::thread_scope Scope, class Backoff>
void basic_latch<Scope, Backoff>::select_flat_mode() noexcept
{
  if constexpr (across_link) {
    state_.host.flat = 1;
    state_.device.word = flat_mark;
  }
}

template <cuda::thread_scope Scope, class Backoff>
UNISYNC_HOST_DEVICE cuda::std::uint32_t& basic_latch<Scope, Backoff>::remaining_word() const noexcept
{
  auto& self = const_cast<basic_latch&>(*this);
  if constexpr (across_link) {
    return self.state_.host.remaining;
  } else {
    return self.state_.remaining;
  }
}

template <cuda::thread_scope Scope, class Backoff>
UNISYNC_HOST_DEVICE cuda::std::uint32_t basic_latch<Scope, Backoff>::forecast_ns(cuda::std::uint32_t missing,
                                                                               cuda::std::uint32_t weight) const
{
  // Missing count_downs in units of the waiter's own (a block that counted down for its
  // threads waits for blocks), each an arrival's worth (tuning::barrier_arrival_ns).
  cuda::std::uint32_t const units = missing / weight + (missing % weight != 0 ? 1u : 0u);
  cuda::std::uint32_t const forecast = detail::forecast_ns(units, Backoff::tuning::barrier_arrival_ns);
  if constexpr (across_link) {
    // At system scope the count left may be the other side's, which arrives in batches (a
    // block counts down for 128 threads, a report for a whole side): it says how many
    // count_downs are missing, not how soon they come. A waiter that slept in proportion
    // to 528 blocks of 128 threads would oversleep their last count_down by 100 us.
    return forecast < Backoff::tuning::link_handoff_ns ? forecast : Backoff::tuning::link_handoff_ns;
  } else {
    return forecast;
  }
}

template <cuda::thread_scope Scope, class Backoff>
UNISYNC_HOST_DEVICE void basic_latch<Scope, Backoff>::count_down(cuda::std::ptrdiff_t update)
{
  UNISYNC_ASSERT(update >= 0 && update <= max(), "latch::count_down(update) needs 0 <= update <= max()");
  auto const units = static_cast<cuda::std::uint64_t>(update);
  NV_IF_ELSE_TARGET(NV_IS_DEVICE,
                    (detail::one_call_for_alike_lanes(this, units, [&](cuda::std::uint32_t lanes) {
                      count_down_as(side_kind::gpu, cuda::std::uint64_t{lanes} * units);
                    });),
                    (count_down_as(side_kind::cpu, units);))
}

template <cuda::thread_scope Scope, class Backoff>
UNISYNC_HOST_DEVICE typename basic_latch<Scope, Backoff>::counted_down basic_latch<Scope, Backoff>::count_down_as(
    side_kind side, cuda::std::uint64_t update, bool then_waits)
{
  [[maybe_unused]] char const* const too_many = "latch::count_down(update) with update above the count left";
  UNISYNC_ASSERT(update <= count_mask, too_many);
  // Changes nothing, releases no one; a wait that follows needs the mode.
  if (update == 0) return counted_down{flat_mode(side), false};
  auto const amount = static_cast<cuda::std::uint32_t>(update);
  if constexpr (across_link) {
    if (side == side_kind::gpu) {
      cuda::std::uint64_t report_due = 0;
      counted_down const counted = count_down_on_gpu(amount, then_waits, report_due);
      if (report_due != 0) report_gpu_total(report_due);
      return counted;
    }
    if (!flat_mode(side_kind::cpu)) {
      [[maybe_unused]] cuda::std::uint32_t const before =
          detail::own_side_word<cuda::std::uint32_t>(state_.host.counted).fetch_add(amount, detail::memory_order_release);
      // The GPU's report is a lower bound of its total, and host memory: a cheap check.
      UNISYNC_ASSERT(cuda::std::uint64_t{before} + amount +
                             detail::atomic_at<cuda::thread_scope_system>(state_.host.gpu_report)
                                 .load(detail::memory_order_relaxed) <=
                         state_.host.expected,
                     too_many);
      return counted_down{};
    }
  }
  return count_down_flat(amount, then_waits);
}

template <cuda::thread_scope Scope, class Backoff>
UNISYNC_HOST_DEVICE typename basic_latch<Scope, Backoff>::counted_down basic_latch<Scope, Backoff>::count_down_flat(
    cuda::std::uint32_t amount, bool then_waits)
{
  // Release: every waiter's acquire load that reads zero reads the end of the release
  // sequence of all count_downs. A group's count_down that waits next acquires too: if it
  // is the one that reaches zero it has synchronized with every other, as such a load
  // would, and need not load the word again (one L2 round trip less for the last block,
  // on the critical path of every round). Per thread the same measured 1.24-1.27x the
  // time per round with one block of 4 warps (0.77-0.88x with 132-528 blocks; H100,
  // benchmark/results/h100-latch-group-last-arrival): not used there.
  cuda::std::uint32_t const before = detail::atomic_at<Scope>(remaining_word())
                                         .fetch_sub(amount, then_waits ? detail::memory_order_acq_rel
                                                                       : detail::memory_order_release);
  UNISYNC_ASSERT(amount <= before, "latch::count_down(update) with update above the count left");
  return counted_down{true, then_waits && before == amount};
}

template <cuda::thread_scope Scope, class Backoff>
UNISYNC_HOST_DEVICE typename basic_latch<Scope, Backoff>::counted_down basic_latch<Scope, Backoff>::count_down_on_gpu(
    cuda::std::uint32_t amount, bool then_waits, cuda::std::uint64_t& report_due)
{
  if constexpr (across_link) {
    // One count_down and `amount` more counted. Release publishes it; acquire: if this
    // count_down becomes the reporter, its report carries every count_down it counts. The
    // result also says the mode: flat mode's mark sends it to the flat word.
    cuda::std::uint64_t const delta = (static_cast<cuda::std::uint64_t>(amount) << counted_shift) + 1;
    cuda::std::uint64_t const before =
        detail::own_side_word<cuda::std::uint64_t>(state_.device.word).fetch_add(delta, detail::memory_order_acq_rel);
    if ((before & flat_mark) != 0) return count_down_flat(amount, then_waits);
    UNISYNC_ASSERT(cuda::std::uint64_t{counted_of(before)} + amount <= state_.device.expected,
                   "latch::count_down(update) with update above the count left");
    // Unreported count_downs before this one: a reporter's turn is under way, and its
    // compare-and-swap will fail on this addition and report it. Otherwise the word to
    // report, never 0 (its unreported count is at least 1).
    report_due = (before & unreported_mask) == 0 ? before + delta : 0;
    return counted_down{};
  } else {
    return count_down_flat(amount, then_waits);
  }
}

template <cuda::thread_scope Scope, class Backoff>
UNISYNC_NOINLINE UNISYNC_HOST_DEVICE void basic_latch<Scope, Backoff>::report_gpu_total(cuda::std::uint64_t word)
{
  if constexpr (across_link) {
    // This count_down's addition found no report under way: it reports until the total it
    // stored is still the total when it ends its turn. Reporters take turns: a turn ends
    // with the exchange that clears the unreported count (release), the next begins with
    // the addition that finds it clear (acquire), so each reporter's stores happen before
    // the next one's, and every report is at least as new as the one before it. Any
    // count_down that lands during a turn makes the exchange fail, and the reporter stores
    // the newer total: the last report stored is the final total. The retries are bounded
    // by the count_downs that land during the turn (test/models/latch.pml).
    auto const report = detail::atomic_at<cuda::thread_scope_system>(state_.host.gpu_report);
    detail::own_side_word<cuda::std::uint64_t> const gpu_word(state_.device.word);
    cuda::std::uint64_t now = word;
    do {
      // Release at system scope: cumulative over every count_down this thread acquired
      // through the word (or, handed the report by its block's leader, that the leader
      // acquired: the block's sync carries it), so a CPU waiter that reads the report sees
      // their writes.
      report.store(counted_of(now), detail::memory_order_release);
    } while (!gpu_word.compare_exchange_strong(now, now & ~unreported_mask, detail::memory_order_acq_rel,
                                               detail::memory_order_acquire));
  }
}

template <cuda::thread_scope Scope, class Backoff>
UNISYNC_HOST_DEVICE cuda::std::uint32_t basic_latch<Scope, Backoff>::forecast_to_release(
    side_kind side, bool flat, cuda::std::memory_order order, cuda::std::uint32_t weight, gpu_role& role,
    cuda::std::uint32_t& cpu_seen) const
{
  [[maybe_unused]] char const* const too_many = "latch: more count_downs than expected (a count_down(update) above the count left)";
  if (!across_link || flat) {  // below system scope every call is flat: no branch to keep
    cuda::std::uint32_t const remaining = detail::atomic_at<Scope>(remaining_word()).load(order);
    UNISYNC_ASSERT(remaining <= count_mask, too_many);  // a fetch_sub beyond zero wrapped it
    return remaining == 0 ? 0u : forecast_ns(remaining, weight);
  }
  if constexpr (across_link) {
    auto& self = const_cast<basic_latch&>(*this);
    if (side == side_kind::cpu) {
      // Both words are host memory; both totals only grow, so the sum of two readings is a
      // lower bound of the count, exact once it reaches `expected`.
      cuda::std::uint32_t const total =
          detail::atomic_at<cuda::thread_scope_system>(self.state_.host.counted).load(order) +
          detail::atomic_at<cuda::thread_scope_system>(self.state_.host.gpu_report).load(order);
      cuda::std::uint32_t const expected = state_.host.expected;
      UNISYNC_ASSERT(total <= expected, too_many);
      return total >= expected ? 0u : forecast_ns(expected - total, weight);
    }
    device_part& gpu = self.state_.device;
    detail::own_side_word<cuda::std::uint32_t> const released(gpu.released);
    // The GPU's other waiters poll the released line alone, again at once: its line is
    // read-only until a watcher's store.
    if (role == gpu_role::released_line) return released.load(order) != 0 ? 0u : 1u;
    auto const cpu_total = detail::atomic_at<cuda::thread_scope_system>(self.state_.host.counted);
    detail::own_side_word<cuda::std::uint32_t> const mirror(gpu.cpu_mirror);
    detail::own_side_word<cuda::std::uint64_t> const word(gpu.word);
    cuda::std::uint32_t const expected = gpu.expected;
    if (role == gpu_role::link_watcher) {
      // Across the link, then the GPU's word: its own sum decides for it, so it never
      // needs the released line. It mirrors a short reading for the watcher (a release:
      // the watcher's acquire of the mirror carries what this thread acquired from the
      // CPU's count_downs); the reading that completes its sum it does not: that store
      // would delay its release, and the watcher sees the released line instead.
      cuda::std::uint32_t const cpu_now = cpu_total.load(order);
      cuda::std::uint32_t const total = counted_of(word.load(order)) + cpu_now;
      if (total < expected) {
        if (cpu_now != cpu_seen) {
          mirror.store(cpu_now, detail::memory_order_release);
          cpu_seen = cpu_now;
        }
        return forecast_ns(expected - total, weight);
      }
      UNISYNC_ASSERT(total == expected, too_many);
      released.store(1, detail::memory_order_release);
      return 0;
    }
    // The watcher. Relaxed looks first, in flight with the word's acquire load: whether the
    // link watcher (or a GPU try_wait) released the side, and whether a link watcher keeps
    // the mirror.
    bool const released_by_other = released.load(detail::memory_order_relaxed) != 0;
    bool const link_watched =
        role == gpu_role::watcher &&
        detail::own_side_word<cuda::std::uint32_t>(gpu.watchers).load(detail::memory_order_relaxed) > 1;
    cuda::std::uint64_t const now = word.load(order);
    if (released_by_other) {
      released.load(order);  // reads a store of 1 (coherence), and synchronizes with it
      return 0;
    }
    if (link_watched) role = gpu_role::watcher_of_mirror;
    cuda::std::uint32_t total = counted_of(now) + cpu_seen;
    if (total < expected) {
      // A reading of the CPU's total stays a valid lower bound, so it is read again only
      // while the sum is short: from the mirror once a link watcher keeps it, else across
      // the link. The mirror may lag a reading this thread made across the link itself.
      cuda::std::uint32_t const cpu_now =
          role == gpu_role::watcher_of_mirror ? mirror.load(order) : cpu_total.load(order);
      if (cpu_now > cpu_seen) cpu_seen = cpu_now;
      total = counted_of(now) + cpu_seen;
    }
    if (total < expected) return forecast_ns(expected - total, weight);
    UNISYNC_ASSERT(total == expected, too_many);
    // Releases the other GPU waiters: cumulative over what this thread acquired on both
    // sides.
    released.store(1, detail::memory_order_release);
    return 0;
  }
  return 1;  // not reached: below system scope every call is flat
}

template <cuda::thread_scope Scope, class Backoff>
UNISYNC_HOST_DEVICE bool basic_latch<Scope, Backoff>::try_wait_as(side_kind side) const
{
  // No precondition check here: try_wait is noexcept, and wait() reports a count beyond
  // `expected`.
  if (flat_mode(side)) return detail::atomic_at<Scope>(remaining_word()).load(detail::memory_order_acquire) == 0;
  if constexpr (across_link) {
    auto& self = const_cast<basic_latch&>(*this);
    auto const cpu_total = detail::atomic_at<cuda::thread_scope_system>(self.state_.host.counted);
    if (side == side_kind::cpu) {
      return cpu_total.load(detail::memory_order_acquire) +
                 detail::atomic_at<cuda::thread_scope_system>(self.state_.host.gpu_report)
                     .load(detail::memory_order_acquire) >=
             state_.host.expected;
    }
    detail::own_side_word<cuda::std::uint32_t> const released(self.state_.device.released);
    if (released.load(detail::memory_order_acquire) != 0) return true;
    cuda::std::uint64_t const now =
        detail::own_side_word<cuda::std::uint64_t>(self.state_.device.word).load(detail::memory_order_acquire);
    if (counted_of(now) + cpu_total.load(detail::memory_order_acquire) < state_.device.expected) return false;
    // Released: says so to the GPU's waiters and later try_waits, which then need not cross
    // the link.
    released.store(1, detail::memory_order_release);
    return true;
  }
  return false;  // not reached: below system scope every call is flat
}

template <cuda::thread_scope Scope, class Backoff>
UNISYNC_HOST_DEVICE void basic_latch<Scope, Backoff>::wait_as(side_kind side, cuda::std::uint32_t weight,
                                                             bool flat) const
{
  gpu_role role = gpu_role::released_line;
  if constexpr (across_link) {
    if (side == side_kind::gpu && !flat) {
      auto& self = const_cast<basic_latch&>(*this);
      if (detail::own_side_word<cuda::std::uint32_t>(self.state_.device.released).load(detail::memory_order_acquire) !=
          0) {
        return;
      }
      // The first two GPU waiters to claim become the watcher and the link watcher; one
      // that loads 2 or more skips the claim. Relaxed: a claim carries no data; the
      // watchers synchronize through their acquire polls.
      detail::own_side_word<cuda::std::uint32_t> const claims(self.state_.device.watchers);
      if (claims.load(detail::memory_order_relaxed) < 2) {
        cuda::std::uint32_t const claim = claims.fetch_add(1, detail::memory_order_relaxed);
        role = claim == 0 ? gpu_role::watcher : claim == 1 ? gpu_role::link_watcher : gpu_role::released_line;
      }
    }
  }
  cuda::std::uint32_t cpu_seen = 0;
  detail::wait_for_turn<Backoff>(
      [&](cuda::std::memory_order order) { return forecast_to_release(side, flat, order, weight, role, cpu_seen); });
}

template <cuda::thread_scope Scope, class Backoff>
UNISYNC_HOST_DEVICE bool basic_latch<Scope, Backoff>::try_wait() const noexcept
{
  return try_wait_as(running_side());
}

template <cuda::thread_scope Scope, class Backoff>
UNISYNC_HOST_DEVICE void basic_latch<Scope, Backoff>::wait() const
{
  // On the device, the converged lanes of a warp that wait on this latch wait as one: one
  // of them polls, the warp's sync spreads its acquire to the others.
  NV_IF_ELSE_TARGET(NV_IS_DEVICE,
                    (detail::one_call_for_alike_lanes(this, 0ull,
                                                      [&](cuda::std::uint32_t) {
                                                        wait_as(side_kind::gpu, 1, flat_mode(side_kind::gpu));
                                                      });),
                    (wait_as(side_kind::cpu, 1, flat_mode(side_kind::cpu));))
}

template <cuda::thread_scope Scope, class Backoff>
UNISYNC_HOST_DEVICE void basic_latch<Scope, Backoff>::arrive_and_wait(cuda::std::ptrdiff_t update)
{
  UNISYNC_ASSERT(update >= 0 && update <= max(), "latch::arrive_and_wait(update) needs 0 <= update <= max()");
  auto const units = static_cast<cuda::std::uint64_t>(update);
  auto weight_of = [](cuda::std::uint64_t total) {
    return total == 0 ? 1u : static_cast<cuda::std::uint32_t>(total > count_mask ? count_mask : total);
  };
  NV_IF_ELSE_TARGET(NV_IS_DEVICE,
                    (detail::one_call_for_alike_lanes(this, units, [&](cuda::std::uint32_t lanes) {
                      cuda::std::uint64_t const total = cuda::std::uint64_t{lanes} * units;
                      counted_down const counted = count_down_as(side_kind::gpu, total);
                      wait_as(side_kind::gpu, weight_of(total), counted.flat);
                    });),
                    (counted_down const counted = count_down_as(side_kind::cpu, units);
                     wait_as(side_kind::cpu, weight_of(units), counted.flat);))
}

#if defined(__CUDACC__)
template <cuda::thread_scope Scope, class Backoff>
template <class Group, class>
__device__ void basic_latch<Scope, Backoff>::count_down(Group const& group, cuda::std::ptrdiff_t update)
{
  UNISYNC_ASSERT(update >= 0 && update <= max(), "latch::count_down(group, update) needs 0 <= update <= max()");
  // The count synchronizes the group: every thread's writes come before the leader's
  // release. The other threads return without waiting for the leader's atomic.
  cuda::std::uint32_t const threads = detail::group_count(group);
  if (detail::is_group_leader(group)) {
    count_down_as(side_kind::gpu, cuda::std::uint64_t{threads} * static_cast<cuda::std::uint64_t>(update));
  }
}

template <cuda::thread_scope Scope, class Backoff>
template <class Group, class>
__device__ void basic_latch<Scope, Backoff>::wait(Group const& group) const
{
  if (detail::is_group_leader(group)) wait_as(side_kind::gpu, 1, flat_mode(side_kind::gpu));
  group.sync();
}

template <cuda::thread_scope Scope, class Backoff>
template <class Group, class>
__device__ void basic_latch<Scope, Backoff>::arrive_and_wait(Group const& group, cuda::std::ptrdiff_t update)
{
  UNISYNC_ASSERT(update >= 0 && update <= max(), "latch::arrive_and_wait(group, update) needs 0 <= update <= max()");
  cuda::std::uint32_t const threads = detail::group_count(group);
  cuda::std::uint64_t const total = cuda::std::uint64_t{threads} * static_cast<cuda::std::uint64_t>(update);
  // Waits in units of the group's count_down: a block waits for blocks.
  cuda::std::uint32_t const weight =
      total == 0 ? 1u : static_cast<cuda::std::uint32_t>(total > count_mask ? count_mask : total);
  if constexpr (across_link) {
    // The same in every thread of the group (`threads`), so that all take the same path
    // through its syncs.
    unsigned const reporter = detail::rank_in_second_warp(group, threads);
    if (reporter != 0) {
      // A block of several warps: when the leader's addition makes it the GPU's reporter,
      // a thread of the second warp stores the report across the link (a system-scope
      // fence, the store, a compare-and-swap) while the leader waits, instead of the
      // leader reporting before it waits. Causality chains from the leader's acquiring
      // addition through the block's sync to the reporter's cumulative release, as for a
      // group's arrival. Every thread of the block calls this together, so one call at a
      // time uses the slot, and it is read before the block syncs again. In flat mode the
      // leader's addition finds the mark and subtracts instead: nothing to report.
      __shared__ cuda::std::uint64_t report_due;
      UNISYNC_ASSERT(total <= count_mask, "latch::count_down(update) with update above the count left");
      counted_down counted;
      if (detail::is_group_leader(group)) {
        cuda::std::uint64_t due = 0;
        counted = total == 0 ? counted_down{flat_mode(side_kind::gpu), false}
                             : count_down_on_gpu(static_cast<cuda::std::uint32_t>(total), true, due);
        report_due = due;
      }
      group.sync();
      if (detail::is_group_leader(group)) {
        if (!counted.released) wait_as(side_kind::gpu, weight, counted.flat);
      } else if (group.thread_rank() == reporter && report_due != 0) {
        report_gpu_total(report_due);
      }
      group.sync();
      return;
    }
  }
  if (detail::is_group_leader(group)) {
    counted_down const counted = count_down_as(side_kind::gpu, total, true);
    if (!counted.released) wait_as(side_kind::gpu, weight, counted.flat);
  }
  group.sync();
}
#endif  // defined(__CUDACC__)

template <cuda::thread_scope Scope, class Backoff>
template <cuda::thread_scope S, class>
void basic_latch<Scope, Backoff>::advise_placement(basic_latch* placed, int device)
{
  if (device_capabilities(device).host_native_atomic_supported) {
    // One coherent system-wide word: no side prefers any memory.
    placed->select_flat_mode();
    return;
  }
  detail::advise_managed(&placed->state_.host, sizeof(host_part), memory_advice::prefer_host, device);
  detail::advise_managed(&placed->state_.device, sizeof(device_part), memory_advice::prefer_device, device);
}

}  // namespace unisync
