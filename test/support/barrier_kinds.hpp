#pragma once
// The barrier types the barrier properties run over: the central barrier, the partitioned
// barrier, and the partitioned barrier in its flat mode (what it selects on a link with
// native host atomics), each given a completion function type.

#include "lockables.hpp"
#include "test_access.hpp"

#include <unisync/barrier.hpp>
#include <unisync/partitioned_barrier.hpp>

#include <gtest/gtest.h>

#include <string>

namespace unisync::test {

struct central_barrier_kind {
  template <class Completion>
  using type = unisync::barrier<Completion>;
  template <class Barrier>
  static void prepare(Barrier&)
  {
  }
};

/// Tuning that arms a barrier's next phase ahead on the host as on the GPU, so that host
/// threads (and ThreadSanitizer) race the arm ahead against the next phase's arrivals.
struct arming_ahead_on_host : unisync::tuning {
  static constexpr cuda::std::uint32_t host_barrier_arm_ahead_additions = 8;
};

/// The central barrier with the arm ahead on the host.
struct central_barrier_arming_ahead_kind {
  template <class Completion>
  using type = unisync::basic_barrier<cuda::thread_scope_system, Completion,
                                      unisync::basic_proportional_backoff<arming_ahead_on_host>>;
  template <class Barrier>
  static void prepare(Barrier&)
  {
  }
};

struct partitioned_barrier_kind {
  template <class Completion>
  using type = unisync::partitioned_barrier<Completion>;
  template <class Barrier>
  static void prepare(Barrier&)
  {
  }
};

struct flat_partitioned_barrier_kind {
  template <class Completion>
  using type = unisync::partitioned_barrier<Completion>;
  template <class Barrier>
  static void prepare(Barrier& barrier)
  {
    detail::test_access::make_flat(barrier);
  }
};

template <>
struct type_name<central_barrier_kind> {
  static std::string get() { return "barrier"; }
};
template <>
struct type_name<central_barrier_arming_ahead_kind> {
  static std::string get() { return "barrier_arming_ahead"; }
};
template <>
struct type_name<partitioned_barrier_kind> {
  static std::string get() { return "partitioned_barrier"; }
};
template <>
struct type_name<flat_partitioned_barrier_kind> {
  static std::string get() { return "partitioned_barrier_flat"; }
};

/// Every barrier kind, for the typed suites.
using barrier_kinds_tested = ::testing::Types<central_barrier_kind, partitioned_barrier_kind, flat_partitioned_barrier_kind>;

}  // namespace unisync::test
