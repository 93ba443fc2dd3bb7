#pragma once
// The shared-mutex variants the shared properties run over, and the record that checks
// them: a writer's section never overlaps any other section, readers do overlap.

#include "test_access.hpp"

#include <unisync/detail/atomic.hpp>
#include <unisync/shared_mutex.hpp>

#include <cuda/std/cstdint>

#include <string>

namespace unisync::test {

/// Checks sections as they run, from CPU and GPU threads alike (system-scope atomics, the
/// record in managed memory when both sides share it). Writers also add to a counter with
/// increment_slowly-style plain accesses, so a lost update shows an overlap too.
struct section_record {
  cuda::std::int32_t readers_inside = 0;
  cuda::std::int32_t writers_inside = 0;
  cuda::std::int32_t most_readers = 0;      // the most readers seen inside at once
  cuda::std::uint32_t overlaps = 0;         // a writer beside anyone, or a reader beside a writer
  cuda::std::uint64_t reads = 0;
  cuda::std::uint64_t writes = 0;           // counted under the lock with plain accesses
  cuda::std::uint64_t protected_value = 0;  // written by writers only, read by readers

  UNISYNC_HOST_DEVICE void enter_shared()
  {
    using detail::atomic_at;
    cuda::std::int32_t const now =
        atomic_at<cuda::thread_scope_system>(readers_inside).fetch_add(1, detail::memory_order_relaxed) + 1;
    atomic_at<cuda::thread_scope_system>(most_readers).fetch_max(now, detail::memory_order_relaxed);
    if (atomic_at<cuda::thread_scope_system>(writers_inside).load(detail::memory_order_relaxed) != 0) overlap();
    // A reader sees the value every writer left: the writes so far, as counted.
    static_cast<void>(*static_cast<cuda::std::uint64_t volatile*>(&protected_value));
    atomic_at<cuda::thread_scope_system>(reads).fetch_add(1, detail::memory_order_relaxed);
  }
  UNISYNC_HOST_DEVICE void leave_shared()
  {
    if (detail::atomic_at<cuda::thread_scope_system>(writers_inside).load(detail::memory_order_relaxed) != 0) overlap();
    detail::atomic_at<cuda::thread_scope_system>(readers_inside).fetch_sub(1, detail::memory_order_relaxed);
  }
  UNISYNC_HOST_DEVICE void exclusive_section()
  {
    using detail::atomic_at;
    if (atomic_at<cuda::thread_scope_system>(writers_inside).fetch_add(1, detail::memory_order_relaxed) != 0 ||
        atomic_at<cuda::thread_scope_system>(readers_inside).load(detail::memory_order_relaxed) != 0) {
      overlap();
    }
    // Slowly, so that a second writer inside loses an update.
    auto* const value = static_cast<cuda::std::uint64_t volatile*>(&writes);
    cuda::std::uint64_t const seen = *value;
    for (int delay = 0; delay < 8; ++delay) *value = seen;
    *value = seen + 1;
    *static_cast<cuda::std::uint64_t volatile*>(&protected_value) = seen + 1;
    if (atomic_at<cuda::thread_scope_system>(readers_inside).load(detail::memory_order_relaxed) != 0) overlap();
    atomic_at<cuda::thread_scope_system>(writers_inside).fetch_sub(1, detail::memory_order_relaxed);
  }
  UNISYNC_HOST_DEVICE void overlap()
  {
    detail::atomic_at<cuda::thread_scope_system>(overlaps).fetch_add(1, detail::memory_order_relaxed);
  }
};

/// A pseudo-random read/write choice per actor: xorshift, seeded by the actor.
struct read_write_choice {
  cuda::std::uint32_t state;
  UNISYNC_HOST_DEVICE explicit read_write_choice(cuda::std::uint32_t actor) : state(actor * 2654435761u + 1u) {}
  /// True with probability about `read_percent` / 100.
  UNISYNC_HOST_DEVICE bool reads(cuda::std::uint32_t read_percent)
  {
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    return state % 100u < read_percent;
  }
};

using device_shared_mutex = basic_shared_mutex<cuda::thread_scope_device>;

/// The device-scope shared mutex over four reader stripes (the tuning's default is one), so
/// that the writers' loops over the stripes, and readers on different stripes, run in the
/// tests too.
struct four_stripes_backoff : proportional_backoff {
  struct tuning : proportional_backoff::tuning {
    static constexpr cuda::std::uint32_t shared_mutex_reader_stripes = 4;
  };
};
using striped_shared_mutex = basic_shared_mutex<cuda::thread_scope_device, four_stripes_backoff>;

template <class T>
struct shared_type_name;
template <>
struct shared_type_name<shared_mutex> {
  static std::string get() { return "shared_mutex"; }
};
template <>
struct shared_type_name<device_shared_mutex> {
  static std::string get() { return "device_scope_shared_mutex"; }
};
template <>
struct shared_type_name<striped_shared_mutex> {
  static std::string get() { return "device_scope_shared_mutex_four_stripes"; }
};

/// GoogleTest's name generator for typed suites over shared-mutex types.
struct shared_type_names {
  template <class T>
  static std::string GetName(int)
  {
    return shared_type_name<T>::get();
  }
};

}  // namespace unisync::test
