#pragma once
// What every scope-parameterized type's init() does: construct the object anew where it
// lies, for a `__shared__` variable, whose constructor nvcc never runs (README, "Objects in
// shared memory").

#include <unisync/detail/config.hpp>
#include <unisync/detail/platform.hpp>

#include <cuda/std/utility>

#include <new>

namespace unisync::detail {

/// Constructs a T from `args` at `object`, over whatever is there (the types that call it
/// are trivially destructible but for a barrier's completion function, which, as in
/// libcu++, is not destroyed). Preconditions: `object` is not null (checked in every
/// build) and no thread uses the object meanwhile.
template <class T, class... Args>
UNISYNC_HOST_DEVICE void construct_in_place(T* object, Args&&... args)
{
  UNISYNC_EXPECTS(object != nullptr, "init() needs the address of the object to initialize, not null");
  ::new (static_cast<void*>(object)) T(cuda::std::forward<Args>(args)...);
}

}  // namespace unisync::detail
