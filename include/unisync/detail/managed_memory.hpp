#pragma once
// Managed-memory primitives of the host library (lib/managed.cpp) behind make_managed and
// managed_allocator.

#include <cstddef>
#include <type_traits>

namespace unisync {
enum class memory_advice;
}  // namespace unisync

namespace unisync::detail {

/// Allocates `bytes` plus `alignment` bytes of managed memory, so that an object of that
/// alignment fits after aligning. @throw unisync::error
void* allocate_managed(std::size_t bytes, std::size_t alignment);
void free_managed(void* allocation) noexcept;
/// Applies `advice` to the pages of [object, object + bytes). @throw unisync::error
void advise_managed(void const* object, std::size_t bytes, memory_advice advice, int device);

template <class T, class = void>
struct has_placement_hints : std::false_type {};
template <class T>
struct has_placement_hints<T, std::void_t<decltype(T::advise_placement(static_cast<T*>(nullptr), 0))>>
    : std::true_type {};

}  // namespace unisync::detail
