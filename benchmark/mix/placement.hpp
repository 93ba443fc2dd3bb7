#pragma once
// Where a case's shared object lives: ordinary host memory in CPU-only cells (what a
// CPU-only user would do), as soon as a GPU takes part what make_managed gives it (what a
// user gets): managed memory with the type's own per-part advice where it has a placement
// hook (cohort_mutex, partitioned_barrier, partitioned_semaphore), without advice else.

#include "cell.hpp"

#include <unisync/managed.hpp>

#include <functional>
#include <memory>
#include <string>
#include <utility>

namespace unisync::bench {

template <class T>
using placed_ptr = std::unique_ptr<T, std::function<void(T*)>>;

template <class T, class... Args>
placed_ptr<T> place_for(mix_cell const& cell, Args&&... args)
{
  if (!cell.has_gpu()) return placed_ptr<T>(new T(std::forward<Args>(args)...), [](T* object) { delete object; });
  auto managed = unisync::make_managed<T>(std::forward<Args>(args)...);
  auto deleter = managed.get_deleter();
  return placed_ptr<T>(managed.release(), [deleter](T* object) { deleter(object); });
}

/// Whether make_managed advises T's parts itself (T declares a placement hook).
template <class T>
inline constexpr bool advises_itself = unisync::detail::has_placement_hints<T>::value;

/// The placement field of a case name: host, managed (make_managed, no advice) or
/// managed_advised (make_managed, the type's own per-part advice).
inline std::string placement_of(mix_cell const& cell, bool advised)
{
  if (!cell.has_gpu()) return "host";
  return advised ? "managed_advised" : "managed";
}

}  // namespace unisync::bench
