#pragma once
// The latch types the latch properties run over: the system-scope latch (partitioned
// between the sides), the same in its flat mode (what it selects on a link with native
// host atomics), and the device-scope latch (one word); and the release checker.

#include "lockables.hpp"
#include "test_access.hpp"

#include <unisync/detail/atomic.hpp>
#include <unisync/latch.hpp>
#include <unisync/managed.hpp>

#include <gtest/gtest.h>

#include <cuda/std/cstdint>

#include <string>
#include <vector>

namespace unisync::test {

struct partitioned_latch_kind {
  using type = unisync::latch;
  static constexpr bool partitioned = true;
  static void prepare(type&) {}
};

struct flat_latch_kind {
  using type = unisync::latch;
  static constexpr bool partitioned = false;
  static void prepare(type& latch) { detail::test_access::make_flat(latch); }
};

struct device_latch_kind {
  using type = unisync::basic_latch<cuda::thread_scope_device>;
  static constexpr bool partitioned = false;
  static void prepare(type&) {}
};

template <>
struct type_name<partitioned_latch_kind> {
  static std::string get() { return "latch"; }
};
template <>
struct type_name<flat_latch_kind> {
  static std::string get() { return "latch_flat"; }
};
template <>
struct type_name<device_latch_kind> {
  static std::string get() { return "device_latch"; }
};

/// Every latch kind, for the typed suites; the system-scope kinds, for mixed suites.
using latch_kinds_tested = ::testing::Types<partitioned_latch_kind, flat_latch_kind, device_latch_kind>;
using system_latch_kinds = ::testing::Types<partitioned_latch_kind, flat_latch_kind>;

/// The release checker: one slot per counting actor. An actor writes the round (numbered
/// from 1) into its slot before its count_down of that round's latch; a thread released
/// from that latch checks that every slot it probes holds the round or a later one: an
/// earlier round means it was released before that actor counted down. The slots are
/// relaxed atomics (an actor may already write the next round while another checks), so
/// only the latch's release and acquire order them.
struct release_record {
  cuda::std::uint32_t* slots = nullptr;
  cuda::std::uint32_t actors = 0;
  cuda::std::uint32_t* violations = nullptr;

  UNISYNC_HOST_DEVICE void before_count_down(cuda::std::uint32_t actor, cuda::std::uint32_t round) const
  {
    detail::atomic_at<cuda::thread_scope_system>(slots[actor]).store(round, detail::memory_order_relaxed);
  }
  /// Probes `count` slots from `first` (wrapping), after a wait for `round` returned.
  UNISYNC_HOST_DEVICE void after_release(cuda::std::uint32_t first, cuda::std::uint32_t count,
                                         cuda::std::uint32_t round) const
  {
    for (cuda::std::uint32_t probe = 0; probe < count && probe < actors; ++probe) {
      cuda::std::uint32_t const slot = (first + probe) % actors;
      if (detail::atomic_at<cuda::thread_scope_system>(slots[slot]).load(detail::memory_order_relaxed) < round) {
        detail::atomic_at<cuda::thread_scope_system>(*violations).fetch_add(1, detail::memory_order_relaxed);
      }
    }
  }
};

/// A fresh latch per round, each made and placed by make_managed; their pointers in
/// managed memory for the kernel.
template <class Kind>
struct latch_rounds {
  using latch_type = typename Kind::type;
  latch_rounds(unsigned rounds, std::ptrdiff_t expected) : pointers(rounds, nullptr)
  {
    for (unsigned round = 0; round < rounds; ++round) {
      owners.push_back(unisync::make_managed<latch_type>(expected));
      Kind::prepare(*owners.back());
      pointers[round] = owners.back().get();
    }
  }
  std::vector<unisync::managed_ptr<latch_type>> owners;
  std::vector<latch_type*, unisync::managed_allocator<latch_type*>> pointers;
};

/// Slots, violations and the checker, in managed memory.
struct managed_release_record {
  explicit managed_release_record(unsigned actors) : slots(actors, 0)
  {
    record = release_record{slots.data(), actors, violations.get()};
  }
  std::vector<cuda::std::uint32_t, unisync::managed_allocator<cuda::std::uint32_t>> slots;
  unisync::managed_ptr<cuda::std::uint32_t> violations = unisync::make_managed<cuda::std::uint32_t>(0u);
  release_record record;
};

}  // namespace unisync::test
