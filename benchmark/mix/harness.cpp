#include "harness.hpp"

#include <unisync/error.hpp>
#include <unisync/topology.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <thread>
#include <utility>

namespace unisync::bench {

run_settings& settings()
{
  static run_settings shared;
  return shared;
}

namespace {

/// Runs `body(actor)` on `threads` CPU threads pinned near the GPU; each first signals
/// `ready`, then waits for `go`. Joins them.
void run_cpu_actors(unsigned threads, std::atomic<unsigned>& ready, std::atomic<bool> const& go,
                    std::function<void(unsigned)> const& body)
{
  std::vector<std::thread> actors;
  actors.reserve(threads);
  std::vector<unsigned> const& cpus = settings().cpus_near_gpu;
  for (unsigned actor = 0; actor < threads; ++actor) {
    actors.emplace_back([&, actor] {
      if (!cpus.empty()) {
        try {
          unisync::pin_this_thread(cpus[actor % cpus.size()]);
        } catch (unisync::error const&) {
          // Unpinned is slower to reproduce but still measures the same thing.
        }
      }
      ready.fetch_add(1, std::memory_order_acq_rel);
      while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
      body(actor);
    });
  }
  for (auto& actor : actors) actor.join();
}

}  // namespace

cpu_actor_threads::cpu_actor_threads(unsigned threads, std::function<void(unsigned)> body,
                                     gpu_failure_probe gpu_failed)
    : threads_(threads), body_(std::move(body)), gpu_failed_(std::move(gpu_failed)), runner_([this] {
        run_cpu_actors(threads_, ready_, go_, [this](unsigned actor) {
          // Read once per actor, before its body's loop; go's release and acquire order it.
          if (!abandoned_.load(std::memory_order_relaxed)) body_(actor);
          actor_left();
        });
      })
{
}

cpu_actor_threads::~cpu_actor_threads()
{
  if (!go_.load(std::memory_order_relaxed)) abandon();  // go is written by the owner alone
  if (runner_.joinable()) join();
}

void cpu_actor_threads::abandon()
{
  abandoned_.store(true, std::memory_order_relaxed);  // published by go's release store
  go_.store(true, std::memory_order_release);
  runner_.join();
}

void cpu_actor_threads::actor_left()
{
  std::lock_guard<std::mutex> const hold(left_mutex_);
  if (++left_ == threads_) all_left_.notify_one();
}

void cpu_actor_threads::join()
{
  // Looks at the GPU between waits short enough to catch a failure soon, and long enough
  // to cost the window nothing (the last actor's notification ends the wait at once).
  constexpr std::chrono::milliseconds poll{10};
  constexpr std::chrono::seconds grace{2};  // for actors that wait for no GPU actor
  std::string failure;
  auto failed_at = std::chrono::steady_clock::time_point{};
  std::unique_lock<std::mutex> hold(left_mutex_);
  while (!all_left_.wait_for(hold, poll, [this] { return left_ == threads_; })) {
    if (!gpu_failed_) continue;
    if (failure.empty()) {
      hold.unlock();  // actors that leave meanwhile need not wait for the probe
      failure = gpu_failed_();
      failed_at = std::chrono::steady_clock::now();
      hold.lock();
    } else if (std::chrono::steady_clock::now() - failed_at > grace) {
      std::fprintf(stderr,
                   "unisync_contention: the GPU actors failed during the window (%s) and %u of %u CPU actors "
                   "still wait for them; nothing can release them, and the CUDA context is unusable for the "
                   "cases after this one: exiting\n",
                   failure.c_str(), threads_ - left_, threads_);
      std::fflush(nullptr);
      std::_Exit(EXIT_FAILURE);
    }
  }
  hold.unlock();
  runner_.join();
}

void report_operations(benchmark::State& state, std::vector<actor_result> const& cpu_actors,
                       std::vector<actor_result> const& gpu_actors, double window_seconds)
{
  auto sum_of = [](std::vector<actor_result> const& actors) {
    return std::accumulate(actors.begin(), actors.end(), 0.0,
                           [](double sum, actor_result const& actor) { return sum + double(actor.operations); });
  };
  double const cpu_operations = sum_of(cpu_actors);
  double const total = cpu_operations + sum_of(gpu_actors);
  double squares = 0;
  double fewest = 0;
  double most = 0;
  std::uint64_t longest_wait_ns = 0;
  bool first = true;
  for (auto const* actors : {&cpu_actors, &gpu_actors}) {
    for (actor_result const& actor : *actors) {
      double const operations = double(actor.operations);
      squares += operations * operations;
      fewest = first ? operations : std::min(fewest, operations);
      most = first ? operations : std::max(most, operations);
      longest_wait_ns = std::max(longest_wait_ns, actor.longest_wait_ns);
      first = false;
    }
  }
  double const actors = double(cpu_actors.size() + gpu_actors.size());
  state.counters["ops_per_s"] = benchmark::Counter(total, benchmark::Counter::kIsRate);
  state.counters["ns_per_op"] = total > 0 ? window_seconds * 1e9 / total : 0.0;
  state.counters["cpu_share"] = total > 0 ? cpu_operations / total : 0.0;
  state.counters["jain"] = squares > 0 ? total * total / (actors * squares) : 0.0;
  state.counters["actor_min"] = fewest;
  state.counters["actor_max"] = most;
  state.counters["max_wait_us"] = double(longest_wait_ns) * 1e-3;
  state.counters["window_s"] = window_seconds;
}

void report_phases(benchmark::State& state, std::uint64_t phases, double window_seconds)
{
  state.counters["phases_per_s"] = benchmark::Counter(double(phases), benchmark::Counter::kIsRate);
  state.counters["us_per_phase"] = phases > 0 ? window_seconds * 1e6 / double(phases) : 0.0;
  state.counters["window_s"] = window_seconds;
}

benchmark::internal::Benchmark* register_case(std::string const& name, std::function<void(benchmark::State&)> run)
{
  return benchmark::RegisterBenchmark(name.c_str(), [run](benchmark::State& state) { run(state); })
      ->Iterations(1)
      ->UseManualTime()
      ->Unit(benchmark::kMicrosecond);
}

}  // namespace unisync::bench
