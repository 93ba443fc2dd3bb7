#pragma once
// The mix harness's host side: the measurement window, CPU actors pinned near the GPU,
// per-actor results and the counters every case reports.

#include "cell.hpp"

#include <benchmark/benchmark.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <vector>

namespace unisync::bench {

/// What one actor (a CPU thread, a GPU thread or block) did in the window.
struct actor_result {
  std::uint64_t operations = 0;
  std::uint64_t longest_wait_ns = 0;  // longest acquisition, for locks and semaphores
};

/// Settings shared by every case of a run.
struct run_settings {
  double window_seconds = 0.1;
  std::vector<unsigned> cpus_near_gpu;  // OS indices to pin CPU actors to, round robin
};

run_settings& settings();

/// Runs `body(actor)` on `threads` CPU threads pinned near the GPU; each first signals
/// `ready`, then waits for `go`. Joins them.
void run_cpu_actors(unsigned threads, std::atomic<unsigned>& ready, std::atomic<bool> const& go,
                    std::function<void(unsigned)> const& body);

/// The counters of an operation case (locks, semaphores): ops/s over the window, ns per
/// operation, the CPU's share of operations, Jain's fairness index over actors, the least
/// and most served actor, and the longest wait for acquisition.
void report_operations(benchmark::State& state, std::vector<actor_result> const& cpu_actors,
                       std::vector<actor_result> const& gpu_actors, double window_seconds);

/// The counters of a barrier case: phases per second and microseconds per phase.
void report_phases(benchmark::State& state, std::uint64_t phases, double window_seconds);

/// Google Benchmark registration with the settings every contention case shares: one
/// iteration (the window), manual time (the window as the harness measured it).
benchmark::internal::Benchmark* register_case(std::string const& name, std::function<void(benchmark::State&)> run);

}  // namespace unisync::bench
