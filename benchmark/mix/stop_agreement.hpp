#pragma once
// How barrier participants agree to stop: one participant, the decider, turns the host's
// stop request into a last phase at least two check intervals ahead; every participant
// reads it at its next check. The decider writes between two of its arrivals, so the
// barrier itself carries the decision to everyone, and every barrier measured (ours,
// libcu++'s, std::barrier, grid.sync) runs with its default completion: a completion
// function would measure that path instead of the one most users take.
// Host-compilable, so host-only peers (std::barrier) take the same agreement.

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

/// Run by the decider after passing `phase`, a multiple of `check_interval`: once the host
/// asks to stop, chooses the last phase and writes both copies of it.
UNISYNC_HOST_DEVICE inline void decide_last_phase(phase_control& control, unsigned phase, unsigned check_interval)
{
  cuda::atomic_ref<unsigned, cuda::thread_scope_system> last(control.last_phase);
  bool const requested = cuda::atomic_ref<unsigned, cuda::thread_scope_system>(control.stop_requested)
                             .load(cuda::std::memory_order_relaxed) != 0;
  if (requested && last.load(cuda::std::memory_order_relaxed) == phase_control::never) {
    unsigned const chosen = phase + 2 * check_interval;
    last.store(chosen, cuda::std::memory_order_relaxed);
    cuda::atomic_ref<unsigned, cuda::thread_scope_system>(*control.last_phase_for_gpu)
        .store(chosen, cuda::std::memory_order_relaxed);
  }
}

}  // namespace unisync::bench
