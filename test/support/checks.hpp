#pragma once
// The stress checkers, written once for CPU and GPU actors alike. Each lives in plain
// memory (managed memory when both sides share it) and is touched through system-scope
// atomics, so a CPU thread and a GPU thread can check the same record.

#include <unisync/detail/atomic.hpp>
#include <unisync/detail/config.hpp>

#include <cuda/std/cstddef>
#include <cuda/std/cstdint>
#include <cuda/std/type_traits>

namespace unisync::test {

/// A critical section long enough that two actors inside at once lose an update: read,
/// give the other actor time to read the same value, write back plus one.
template <class Counter>
UNISYNC_HOST_DEVICE void increment_slowly(Counter& counter)
{
  Counter const seen = *static_cast<Counter volatile*>(&counter);
  for (int delay = 0; delay < 16; ++delay) {
    // Opaque to the compiler, so the delay stays and the read is not merged with the write.
    *static_cast<Counter volatile*>(&counter) = seen;
  }
  *static_cast<Counter volatile*>(&counter) = seen + 1;
}

/// Counts how many holders are inside a semaphore at once, and the most ever seen.
struct occupancy_record {
  cuda::std::int32_t inside = 0;
  cuda::std::int32_t most_seen = 0;
  cuda::std::int32_t entries = 0;

  UNISYNC_HOST_DEVICE void enter()
  {
    using detail::atomic_at;
    cuda::std::int32_t const now =
        atomic_at<cuda::thread_scope_system>(inside).fetch_add(1, detail::memory_order_relaxed) + 1;
    atomic_at<cuda::thread_scope_system>(most_seen).fetch_max(now, detail::memory_order_relaxed);
    atomic_at<cuda::thread_scope_system>(entries).fetch_add(1, detail::memory_order_relaxed);
  }
  UNISYNC_HOST_DEVICE void leave()
  {
    detail::atomic_at<cuda::thread_scope_system>(inside).fetch_sub(1, detail::memory_order_relaxed);
  }
};

/// The phase checker: one slot per participant; phases are numbered from 1. A
/// participant writes phase k into its slot before arriving at phase k; after passing it
/// checks that every slot it probes holds k or k + 1: k - 1 would mean it passed before
/// that participant arrived, and k + 2 cannot happen without this participant arriving
/// again. The completion function checks that every slot holds exactly the phase it
/// completes, and counts itself. A participant that drops out marks its slot `dropped`.
struct phase_record {
  static constexpr cuda::std::uint32_t dropped = ~cuda::std::uint32_t{0};

  cuda::std::uint32_t* slots = nullptr;
  cuda::std::uint32_t participants = 0;
  cuda::std::uint32_t* violations = nullptr;   // failed checks
  cuda::std::uint32_t* completions = nullptr;  // completion-function runs = phases completed

  UNISYNC_HOST_DEVICE void before_arriving(cuda::std::uint32_t participant, cuda::std::uint32_t phase) const
  {
    slot(participant).store(phase, detail::memory_order_relaxed);
  }
  /// Checks `probes` slots starting at `first` (every slot when probes >= participants).
  UNISYNC_HOST_DEVICE void after_passing(cuda::std::uint32_t first, cuda::std::uint32_t probes,
                                         cuda::std::uint32_t phase) const
  {
    if (probes > participants) probes = participants;
    for (cuda::std::uint32_t probe = 0; probe < probes; ++probe) {
      cuda::std::uint32_t const seen = slot((first + probe) % participants).load(detail::memory_order_relaxed);
      if (seen != phase && seen != phase + 1 && seen != dropped) record_violation();
    }
  }
  /// Called by the completion function, which runs alone between phases.
  UNISYNC_HOST_DEVICE void on_completion() const
  {
    auto completed = detail::atomic_at<cuda::thread_scope_system>(*completions);
    cuda::std::uint32_t const phase = completed.load(detail::memory_order_relaxed) + 1;
    for (cuda::std::uint32_t participant = 0; participant < participants; ++participant) {
      cuda::std::uint32_t const seen = slot(participant).load(detail::memory_order_relaxed);
      if (seen != phase && seen != dropped) record_violation();
    }
    completed.store(phase, detail::memory_order_relaxed);
  }
  UNISYNC_HOST_DEVICE void record_violation() const
  {
    detail::atomic_at<cuda::thread_scope_system>(*violations).fetch_add(1, detail::memory_order_relaxed);
  }

 private:
  UNISYNC_HOST_DEVICE cuda::atomic_ref<cuda::std::uint32_t, cuda::thread_scope_system> slot(
      cuda::std::uint32_t participant) const
  {
    return detail::atomic_at<cuda::thread_scope_system>(slots[participant]);
  }
};

/// A completion function that runs the phase checker's completion check.
struct checking_completion {
  phase_record record;
  UNISYNC_HOST_DEVICE void operator()() const noexcept { record.on_completion(); }
};

/// Whether a barrier type runs checking_completion. The default completion is checked too:
/// without a completion function the barrier completes phases differently (the last
/// arrival itself releases), and then only the slots are checked.
template <class Barrier>
inline constexpr bool counts_completions =
    cuda::std::is_constructible_v<Barrier, cuda::std::ptrdiff_t, checking_completion>;

/// Builds a barrier for the phase checker: `make(expected, completion...)` is the
/// allocation (make_unique, make_managed); checking_completion is passed where it is taken.
template <class Barrier, class Make>
auto make_checked_barrier(Make make, cuda::std::ptrdiff_t expected, phase_record const& record)
{
  if constexpr (counts_completions<Barrier>) {
    return make(expected, checking_completion{record});
  } else {
    return make(expected);
  }
}

}  // namespace unisync::test
