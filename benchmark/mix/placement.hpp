#pragma once
// Where a case's shared object lives: ordinary host memory in CPU-only cells (what a
// CPU-only user would do), managed memory as soon as a GPU takes part.

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

/// The placement field of a case name.
inline std::string placement_of(mix_cell const& cell) { return cell.has_gpu() ? "managed" : "host"; }

}  // namespace unisync::bench
