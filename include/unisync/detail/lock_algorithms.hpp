#pragma once
// The algorithms behind unisync::lock, unisync::try_lock and scoped_lock
// (include/unisync/scoped_lock.hpp).

#include <unisync/backoff.hpp>
#include <unisync/detail/config.hpp>
#include <unisync/detail/platform.hpp>
#include <unisync/tuning.hpp>

#include <cuda/std/cstddef>
#include <cuda/std/cstdint>
#include <cuda/std/memory>
#include <cuda/std/tuple>
#include <cuda/std/utility>

namespace unisync::detail {

/// Lockables named by a call, reached by their position at run time.
template <class... Lockables>
class lockable_list {
 public:
  static constexpr cuda::std::size_t size = sizeof...(Lockables);

  UNISYNC_HOST_DEVICE explicit lockable_list(Lockables&... lockables) : items_(cuda::std::addressof(lockables)...) {}

  UNISYNC_HOST_DEVICE void lock(cuda::std::size_t position) { lock_at(position, indices{}); }
  UNISYNC_HOST_DEVICE bool try_lock(cuda::std::size_t position) { return try_lock_at(position, indices{}); }
  UNISYNC_HOST_DEVICE void unlock(cuda::std::size_t position) { unlock_at(position, indices{}); }
  /// Positions in the order of the lockables' addresses (one named twice: in the order
  /// given); returns whether each lockable is named once.
  UNISYNC_HOST_DEVICE bool by_address(cuda::std::size_t (&order)[size]) const
  {
    cuda::std::uintptr_t addresses[size];
    addresses_of(addresses, indices{});
    for (cuda::std::size_t position = 0; position < size; ++position) {
      cuda::std::size_t slot = position;
      for (; slot > 0 && addresses[order[slot - 1]] > addresses[position]; --slot) order[slot] = order[slot - 1];
      order[slot] = position;
    }
    for (cuda::std::size_t step = 1; step < size; ++step) {
      if (addresses[order[step - 1]] == addresses[order[step]]) return false;
    }
    return true;
  }

 private:
  using indices = cuda::std::index_sequence_for<Lockables...>;

  template <cuda::std::size_t... Index>
  UNISYNC_HOST_DEVICE void addresses_of(cuda::std::uintptr_t (&addresses)[size],
                                        cuda::std::index_sequence<Index...>) const
  {
    ((addresses[Index] = reinterpret_cast<cuda::std::uintptr_t>(cuda::std::get<Index>(items_))), ...);
  }
  template <cuda::std::size_t... Index>
  UNISYNC_HOST_DEVICE void lock_at(cuda::std::size_t position, cuda::std::index_sequence<Index...>)
  {
    ((Index == position ? static_cast<void>(cuda::std::get<Index>(items_)->lock()) : void()), ...);
  }
  template <cuda::std::size_t... Index>
  UNISYNC_HOST_DEVICE bool try_lock_at(cuda::std::size_t position, cuda::std::index_sequence<Index...>)
  {
    bool taken = false;
    ((Index == position ? static_cast<void>(taken = cuda::std::get<Index>(items_)->try_lock()) : void()), ...);
    return taken;
  }
  template <cuda::std::size_t... Index>
  UNISYNC_HOST_DEVICE void unlock_at(cuda::std::size_t position, cuda::std::index_sequence<Index...>)
  {
    ((Index == position ? static_cast<void>(cuda::std::get<Index>(items_)->unlock()) : void()), ...);
  }

  cuda::std::tuple<Lockables*...> items_;
};

/// What a lock or try of a list has taken so far: unlocked when it goes out of scope unless
/// kept, so that an attempt that fails, or an exception from a Lockable's member (host),
/// leaves nothing held.
template <class List>
class taken_so_far {
 public:
  UNISYNC_HOST_DEVICE explicit taken_so_far(List& list) noexcept : list_(list) {}
  UNISYNC_HOST_DEVICE ~taken_so_far()
  {
    for (cuda::std::size_t position = 0; position < List::size; ++position) {
      if ((taken_[position / 32] >> (position % 32)) & 1u) list_.unlock(position);
    }
  }
  taken_so_far(taken_so_far const&) = delete;
  taken_so_far& operator=(taken_so_far const&) = delete;

  UNISYNC_HOST_DEVICE void add(cuda::std::size_t position) noexcept
  {
    taken_[position / 32] |= cuda::std::uint32_t{1} << (position % 32);
  }
  /// The caller keeps everything taken.
  UNISYNC_HOST_DEVICE void keep() noexcept
  {
    for (cuda::std::uint32_t& bits : taken_) bits = 0;
  }

 private:
  List& list_;
  // One bit per position: any number of lockables, as std::lock takes.
  cuda::std::uint32_t taken_[(List::size + 31) / 32] = {};
};

/// std::try_lock's algorithm: tries in order; returns the first that failed, or -1.
template <class List>
UNISYNC_HOST_DEVICE int try_lock_all(List list)
{
  taken_so_far<List> taken(list);
  for (cuda::std::size_t position = 0; position < List::size; ++position) {
    if (!list.try_lock(position)) return static_cast<int>(position);
    taken.add(position);
  }
  taken.keep();
  return -1;
}

/// std::lock's algorithm, in the order of the lockables' addresses: locks the first
/// (waiting for it while it holds nothing), tries the others in that order, and when a try
/// fails lets go of all, pauses (exponential backoff) and starts over. It never waits while
/// it holds a lockable, so it cannot deadlock, whatever other threads do; and the one order
/// keeps threads that want the same lockables from failing each other's tries: they all
/// queue for the first, and whoever gets it finds the rest held only while another thread
/// is still letting go of them. Each thread starting from its own first lockable (std's
/// usual form) left a FIFO mutex that many threads queued for never free, so that the
/// others' tries kept failing: 132 GPU blocks and 4 CPU threads taking three ticket
/// mutexes, half in the opposite order (the mixed conformance test), did not finish in
/// four minutes (H200 machine); with tries only, each thread starting again from the one
/// that failed, 132 blocks of 32 threads on three `mutex`es did not finish in 30 s.
template <class List>
UNISYNC_HOST_DEVICE void lock_all(List list)
{
  cuda::std::size_t order[List::size];
  bool const each_once = list.by_address(order);
  UNISYNC_EXPECTS(each_once,
                  "unisync::lock (or scoped_lock) names one lockable twice; name each lockable once "
                  "(a mutex that is not recursive would wait for itself forever)");
  basic_exponential_backoff<tuning> backoff;
  for (;;) {
    {
      taken_so_far<List> taken(list);
      list.lock(order[0]);
      taken.add(order[0]);
      cuda::std::size_t step = 1;
      for (; step < List::size && list.try_lock(order[step]); ++step) taken.add(order[step]);
      if (step == List::size) {
        taken.keep();
        return;
      }
    }
    backoff.pause(0);
  }
}

}  // namespace unisync::detail
