#pragma once
// CPU actors for stress tests: N threads that start together and run one body each.

#include <algorithm>
#include <atomic>
#include <functional>
#include <thread>
#include <vector>

namespace unisync::test {

/// Runs body(actor) on `count` threads released together, and joins them.
inline void run_cpu_actors(unsigned count, std::function<void(unsigned)> const& body)
{
  std::atomic<unsigned> ready{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  threads.reserve(count);
  for (unsigned actor = 0; actor < count; ++actor) {
    threads.emplace_back([&, actor] {
      ready.fetch_add(1);
      while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
      body(actor);
    });
  }
  while (ready.load() != count) std::this_thread::yield();
  go.store(true, std::memory_order_release);
  for (auto& thread : threads) thread.join();
}

/// The CPU thread counts the issues ask for: 2, 4 and every hardware thread.
inline std::vector<unsigned> cpu_thread_counts()
{
  unsigned const all = std::max(2u, std::thread::hardware_concurrency());
  std::vector<unsigned> counts{2, 4};
  if (all != 2 && all != 4) counts.push_back(all);
  return counts;
}

}  // namespace unisync::test
