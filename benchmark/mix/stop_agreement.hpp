#pragma once
// How barrier participants agree to stop: the completion function, which runs once per
// phase on whichever side arrives last, turns the host's stop request into a last phase
// at least two check intervals ahead; every participant reads it at its next check.
// Host-compilable, so host-only peers (std::barrier) take the same completion function.

#include "control.hpp"

#include <unisync/detail/config.hpp>

#include <cuda/atomic>
#include <nv/target>

namespace unisync::bench {

/// The last phase as this side sees it: each side reads the copy in its own memory.
UNISYNC_HOST_DEVICE inline unsigned last_phase_seen(phase_control const& control)
{
  unsigned const* copy = nullptr;
  NV_IF_ELSE_TARGET(NV_IS_DEVICE, (copy = control.last_phase_for_gpu;), (copy = &control.last_phase;))
  return cuda::atomic_ref<unsigned, cuda::thread_scope_system>(*const_cast<unsigned*>(copy))
      .load(cuda::std::memory_order_relaxed);
}

struct stop_deciding_completion {
  phase_control* control = nullptr;
  unsigned check_interval = 32;
  unsigned phases = 0;

  UNISYNC_HOST_DEVICE void operator()() noexcept
  {
    ++phases;
    if (phases % check_interval != 0) return;
    cuda::atomic_ref<unsigned, cuda::thread_scope_system> last(control->last_phase);
    bool const requested = cuda::atomic_ref<unsigned, cuda::thread_scope_system>(control->stop_requested)
                               .load(cuda::std::memory_order_relaxed) != 0;
    if (requested && last.load(cuda::std::memory_order_relaxed) == phase_control::never) {
      unsigned const chosen = phases + 2 * check_interval;
      last.store(chosen, cuda::std::memory_order_relaxed);
      cuda::atomic_ref<unsigned, cuda::thread_scope_system>(*control->last_phase_for_gpu)
          .store(chosen, cuda::std::memory_order_relaxed);
    }
  }
};

}  // namespace unisync::bench
