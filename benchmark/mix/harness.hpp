#pragma once
// The mix harness's host side: the measurement window, CPU actors pinned near the GPU,
// per-actor results and the counters every case reports.

#include "cell.hpp"

#include <benchmark/benchmark.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
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

/// Describes how the GPU actors of a window failed, or returns an empty string while they
/// run or after they finished well.
using gpu_failure_probe = std::function<std::string()>;

/// A window's CPU actors: `threads` threads pinned near the GPU, which a thread of their
/// own starts and joins. Each signals ready, then waits until `start()` lets it run
/// `body(actor)` or `abandon()` lets it leave without running it. Destruction abandons
/// actors not yet started and joins them, so that a failure thrown before the start (a
/// CUDA call of the window's signalling) neither waits forever nor destroys a joinable
/// std::thread (std::terminate); actors already started must have been told to stop.
/// Joining started actors watches `gpu_failed`: once the GPU actors have failed, actors
/// still waiting for them (a barrier's or a latch's participants, a lock's waiters behind
/// a GPU holder) can never be released, so after a grace period the process exits with a
/// message rather than hang (a failed kernel also leaves the CUDA context unusable for
/// every later case).
class cpu_actor_threads {
 public:
  cpu_actor_threads(unsigned threads, std::function<void(unsigned)> body, gpu_failure_probe gpu_failed = {});
  ~cpu_actor_threads();
  cpu_actor_threads(cpu_actor_threads const&) = delete;
  cpu_actor_threads& operator=(cpu_actor_threads const&) = delete;

  /// Blocks until every actor has signalled ready.
  void wait_until_ready() const
  {
    while (ready_.load() != threads_) std::this_thread::yield();
  }
  /// Lets every actor run its body.
  void start() { go_.store(true, std::memory_order_release); }
  /// Lets every actor leave without running its body (once the GPU actors failed, a
  /// barrier's or latch's CPU participants would wait for their arrivals forever) and
  /// waits until they have.
  void abandon();
  /// Blocks until every actor has left; exits the process if the GPU actors failed and
  /// some still wait for them (see the class).
  void join();

 private:
  void actor_left();

  unsigned threads_;
  std::function<void(unsigned)> body_;
  gpu_failure_probe gpu_failed_;
  std::atomic<unsigned> ready_{0};
  std::atomic<bool> go_{false};
  std::atomic<bool> abandoned_{false};
  std::mutex left_mutex_;
  std::condition_variable all_left_;
  unsigned left_ = 0;  // guarded by left_mutex_
  std::thread runner_;  // last: its actors use every member above
};

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
