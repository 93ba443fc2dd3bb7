#pragma once

#include <unisync/capabilities.hpp>
#include <unisync/detail/managed_memory.hpp>

#include <cstddef>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

namespace unisync {

/**
 * @brief Where the driver should keep managed pages (cudaMemAdvise). Advice changes speed,
 * never correctness. Measured on an x86 + PCIe H100 (DESIGN.md §3):
 */
enum class memory_advice {
  /// No advice: pages migrate to whichever side touches them. Read-modify-writes from both
  /// sides stay atomic because the page moves to the side that operates on it.
  none,
  /// Preferred location CPU, mapped for the GPU: GPU loads and stores cross the link
  /// without migrating (CPU<->GPU round trip 2.0-2.2 us). For words the CPU polls.
  prefer_host,
  /// Preferred location GPU: CPU accesses fault every time (about 1 ms round trip). Only
  /// for words the CPU never touches.
  prefer_device
};

/// Deleter of make_managed's pointers: runs the destructor, then frees the allocation.
template <class T>
class managed_deleter {
 public:
  managed_deleter() noexcept = default;
  /// Frees `allocation`, the block the object was constructed in.
  explicit managed_deleter(void* allocation) noexcept : allocation_(allocation) {}

  /// Runs `object`'s destructor, then frees the allocation.
  void operator()(T* object) const noexcept
  {
    object->~T();
    detail::free_managed(allocation_);
  }

 private:
  void* allocation_ = nullptr;
};

template <class T>
using managed_ptr = std::unique_ptr<T, managed_deleter<T>>;

/**
 * @brief Constructs a T in CUDA managed memory, where CPU threads and GPU threads can
 * both operate on it, and returns the owning pointer.
 *
 * The type's own placement hints apply: a type that declares
 * `static void advise_placement(T*, int device)` places its parts itself (each on its own
 * page) and may adapt to the device. Otherwise `advice` applies to the whole object
 * (default: none).
 *
 * @throw unisync::error when no GPU is available or the allocation fails.
 */
template <class T, class... Args>
managed_ptr<T> make_managed(memory_advice advice, Args&&... args)
{
  void* const allocation = detail::allocate_managed(sizeof(T), alignof(T));
  void* aligned = allocation;
  std::size_t space = sizeof(T) + alignof(T);
  std::align(alignof(T), sizeof(T), aligned, space);
  T* object = nullptr;
  try {
    object = ::new (aligned) T(std::forward<Args>(args)...);
  } catch (...) {
    detail::free_managed(allocation);
    throw;
  }
  managed_ptr<T> owner(object, managed_deleter<T>(allocation));
  if constexpr (detail::has_placement_hints<T>::value) {
    T::advise_placement(object, current_device);
  } else {
    detail::advise_managed(object, sizeof(T), advice, current_device);
  }
  return owner;
}

template <class T, class... Args>
managed_ptr<T> make_managed(Args&&... args)
{
  return make_managed<T>(memory_advice::none, std::forward<Args>(args)...);
}

/**
 * @brief A std allocator of CUDA managed memory, for containers whose elements CPU and
 * GPU threads share (`std::vector<int, unisync::managed_allocator<int>>`).
 */
template <class T>
class managed_allocator {
 public:
  /// The element type.
  using value_type = T;

  managed_allocator() noexcept = default;
  /// Rebinding copy: every managed_allocator draws from the same managed memory.
  template <class U>
  managed_allocator(managed_allocator<U> const&) noexcept
  {
  }

  /// Managed memory for `count` objects of T. @throw std::bad_array_new_length when
  /// the size overflows; unisync::error when no GPU is available or the allocation fails.
  [[nodiscard]] T* allocate(std::size_t count)
  {
    if (count > static_cast<std::size_t>(-1) / sizeof(T)) throw std::bad_array_new_length();
    return static_cast<T*>(detail::allocate_managed(count * sizeof(T), 0));
  }
  /// Frees memory that allocate() returned.
  void deallocate(T* pointer, std::size_t) noexcept { detail::free_managed(pointer); }

  /// @{
  /// Always equal: memory from one can be freed by any other.
  template <class U>
  bool operator==(managed_allocator<U> const&) const noexcept
  {
    return true;
  }
  template <class U>
  bool operator!=(managed_allocator<U> const&) const noexcept
  {
    return false;
  }
  /// @}
};

}  // namespace unisync
