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

/// Where each side finds the agreement's words, each in its own memory. Held by value (in
/// a kernel's arguments on the GPU), so that a GPU participant reaches its words without
/// first reading a pointer across the link: every warp reading `phase_control`'s pointer
/// from pinned memory at each check made 132-block phases up to 3x slower.
struct phase_agreement {
  phase_control* host;          // the host's words (pinned with a GPU, ordinary without)
  unsigned* gpu_last_phase;     // the GPU's copy of the last phase (managed, preferring the GPU)
  unsigned const* gpu_stop;     // the stop request in device memory (gpu_control::stop); null without a GPU
};

namespace detail {
UNISYNC_HOST_DEVICE inline unsigned load_word(unsigned const& word)
{
  return cuda::atomic_ref<unsigned, cuda::thread_scope_system>(const_cast<unsigned&>(word))
      .load(cuda::std::memory_order_relaxed);
}
UNISYNC_HOST_DEVICE inline void store_word(unsigned& word, unsigned value)
{
  cuda::atomic_ref<unsigned, cuda::thread_scope_system>(word).store(value, cuda::std::memory_order_relaxed);
}
}  // namespace detail

/// The last phase as this side sees it: each side reads the copy in its own memory.
UNISYNC_HOST_DEVICE inline unsigned last_phase_seen(phase_agreement const& agreement)
{
  NV_IF_ELSE_TARGET(NV_IS_DEVICE, (return detail::load_word(*agreement.gpu_last_phase);),
                    (return detail::load_word(agreement.host->last_phase);))
}

/// Run by the decider after passing `phase`, a multiple of `check_interval`: once the host
/// asks to stop, chooses the last phase and writes both copies of it.
UNISYNC_HOST_DEVICE inline void decide_last_phase(phase_agreement const& agreement, unsigned phase,
                                                  unsigned check_interval)
{
  bool requested = false;
  NV_IF_ELSE_TARGET(NV_IS_DEVICE, (requested = detail::load_word(*agreement.gpu_stop) != 0;),
                    (requested = detail::load_word(agreement.host->stop_requested) != 0;))
  if (requested && last_phase_seen(agreement) == phase_control::never) {
    unsigned const chosen = phase + 2 * check_interval;
    detail::store_word(agreement.host->last_phase, chosen);
    detail::store_word(*agreement.gpu_last_phase, chosen);
  }
}

}  // namespace unisync::bench
