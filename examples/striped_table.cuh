#pragma once
// A hash table that CPU threads and GPU threads update together: open addressing in
// managed memory, its slots split into stripes, each stripe under its own lock. More
// stripes mean less contention and more memory spent on locks: the lock's size decides
// how far a user can go. examples/striped_table.cu checks it against a host replay; the
// contention binary times it (benchmark/cases/application_cases.cu).

#include "cuda_memory.cuh"

#include <unisync/error.hpp>

#include <cuda_runtime.h>

#include <cstdint>
#include <new>
#include <type_traits>

namespace striped_table {

/// A 64-bit mix (splitmix64's finalizer): spreads keys over stripes and slots.
__host__ __device__ inline std::uint64_t mix(std::uint64_t key)
{
  key = (key ^ (key >> 30)) * 0xbf58476d1ce4e5b9ull;
  key = (key ^ (key >> 27)) * 0x94d049bb133111ebull;
  return key ^ (key >> 31);
}

/// A small per-actor generator (xorshift64*): the keys an actor adds are a function of its
/// seed, so that a host replay knows every key that was added.
struct key_stream {
  std::uint64_t state;

  __host__ __device__ explicit key_stream(std::uint64_t seed) : state(mix(seed + 1) | 1) {}
  /// The next key, in [1, key_range].
  __host__ __device__ std::uint64_t next(std::uint64_t key_range)
  {
    state ^= state >> 12;
    state ^= state << 25;
    state ^= state >> 27;
    return 1 + (state * 0x2545f4914f6cdd1dull) % key_range;
  }
};

/// What kernels and threads use: the table's arrays, passed by value. Key 0 marks an
/// empty slot. A key's stripe and its first slot in the stripe come from its hash; probing
/// stays inside the stripe, so the stripe's lock covers every slot the key can be in.
template <class Lock>
struct table_view {
  Lock* locks;
  std::uint64_t* keys;
  std::uint64_t* counts;
  std::uint32_t stripe_mask;      // stripes - 1 (a power of two)
  std::uint32_t slots_per_stripe;

  /// Adds one to the key's count, inserting it at 1; false when its stripe is full.
  __host__ __device__ bool add(std::uint64_t key) const
  {
    std::uint64_t const hash = mix(key);
    std::uint32_t const stripe = static_cast<std::uint32_t>(hash) & stripe_mask;
    std::uint64_t* const stripe_keys = keys + static_cast<std::uint64_t>(stripe) * slots_per_stripe;
    std::uint64_t* const stripe_counts = counts + static_cast<std::uint64_t>(stripe) * slots_per_stripe;
    bool added = false;
    locks[stripe].lock();
    for (std::uint32_t probe = 0, slot = static_cast<std::uint32_t>(hash >> 32) % slots_per_stripe;
         probe < slots_per_stripe; ++probe, slot = slot + 1 == slots_per_stripe ? 0 : slot + 1) {
      if (stripe_keys[slot] == key || stripe_keys[slot] == 0) {
        stripe_keys[slot] = key;
        ++stripe_counts[slot];
        added = true;
        break;
      }
    }
    locks[stripe].unlock();
    return added;
  }

  /// The key's count (0 when absent).
  __host__ __device__ std::uint64_t count_of(std::uint64_t key) const
  {
    std::uint64_t const hash = mix(key);
    std::uint32_t const stripe = static_cast<std::uint32_t>(hash) & stripe_mask;
    std::uint64_t const* const stripe_keys = keys + static_cast<std::uint64_t>(stripe) * slots_per_stripe;
    std::uint64_t count = 0;
    locks[stripe].lock();
    for (std::uint32_t probe = 0, slot = static_cast<std::uint32_t>(hash >> 32) % slots_per_stripe;
         probe < slots_per_stripe; ++probe, slot = slot + 1 == slots_per_stripe ? 0 : slot + 1) {
      if (stripe_keys[slot] == key) {
        count = counts[static_cast<std::uint64_t>(stripe) * slots_per_stripe + slot];
        break;
      }
      if (stripe_keys[slot] == 0) break;
    }
    locks[stripe].unlock();
    return count;
  }
};

/// Whether `Lock` asks make_managed for placement advice (a platform-aware lock does).
template <class Lock, class = void>
struct has_placement_hook : std::false_type {};
template <class Lock>
struct has_placement_hook<Lock, std::void_t<decltype(Lock::advise_placement(static_cast<Lock*>(nullptr), 0))>>
    : std::true_type {};

/// Owns the table's managed memory: 2^slot_bits slots in `stripes` stripes (a power of
/// two), each lock constructed in place and placed as make_managed would place it.
template <class Lock>
class table {
 public:
  table(unsigned slot_bits, std::uint32_t stripes)
  {
    std::uint64_t const slots = std::uint64_t{1} << slot_bits;
    if (stripes == 0 || (stripes & (stripes - 1)) != 0 || stripes > slots) {
      throw unisync::error("striped_table: the stripe count must be a power of two no larger than the slot count");
    }
    view_.stripe_mask = stripes - 1;
    view_.slots_per_stripe = static_cast<std::uint32_t>(slots / stripes);
    keys_ = zeroed<std::uint64_t>(slots);
    counts_ = zeroed<std::uint64_t>(slots);
    lock_memory_ = zeroed<unsigned char>(stripes * sizeof(Lock));
    if (reinterpret_cast<std::uintptr_t>(lock_memory_.get()) % alignof(Lock) != 0) {
      throw unisync::error("striped_table: cudaMallocManaged returned memory the lock type cannot be aligned in");
    }
    view_.keys = keys_.get();
    view_.counts = counts_.get();
    view_.locks = reinterpret_cast<Lock*>(lock_memory_.get());
    for (std::uint32_t stripe = 0; stripe < stripes; ++stripe) new (&view_.locks[stripe]) Lock();
    stripes_ = stripes;
    int device = 0;
    cudaGetDevice(&device);
    if constexpr (has_placement_hook<Lock>::value) {
      for (std::uint32_t stripe = 0; stripe < stripes; ++stripe) Lock::advise_placement(&view_.locks[stripe], device);
    }
  }
  ~table()
  {
    for (std::uint32_t stripe = 0; stripe < stripes_; ++stripe) view_.locks[stripe].~Lock();
  }
  table(table const&) = delete;
  table& operator=(table const&) = delete;

  table_view<Lock> view() const { return view_; }
  /// Bytes of lock per stripe, as allocated.
  static constexpr std::size_t lock_bytes() { return sizeof(Lock); }

 private:
  /// `count` Ts of managed memory, zeroed with cudaMemset.
  template <class T>
  static cuda_memory::device_array<T> zeroed(std::size_t count)
  {
    cuda_memory::device_array<T> memory = cuda_memory::allocate_managed<T>(count);
    cudaMemset(memory.get(), 0, count * sizeof(T));
    cudaDeviceSynchronize();
    return memory;
  }

  // Freed after the destructor has destroyed the locks (members go in reverse order).
  cuda_memory::device_array<std::uint64_t> keys_;
  cuda_memory::device_array<std::uint64_t> counts_;
  cuda_memory::device_array<unsigned char> lock_memory_;
  table_view<Lock> view_{};
  std::uint32_t stripes_ = 0;  // locks constructed in lock_memory_
};

}  // namespace striped_table
