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
