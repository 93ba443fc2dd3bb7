// Diagnostic: P GPU producer blocks stream items into a ring of 64 (or 1024), C host
// consumers pop; reports items/s, gaps between pops over 500 us; steals print (patched
// headers).
#include "work_queue.cuh"
#include <unisync/partitioned_semaphore.hpp>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>
#ifndef RING
#define RING 64
#endif
using ring_type = work_queue::ring<unisync::partitioned_semaphore<RING>, RING>;

__global__ void produce(ring_type::view queue, unsigned items)
{
  if (threadIdx.x != 0) return;
  for (unsigned i = 0; i < items; ++i) {
    work_queue::item value{};
    value.payload[0] = blockIdx.x;
    queue.push(value);
  }
}

int main(int argc, char** argv)
{
  unsigned const producers = argc > 1 ? std::atoi(argv[1]) : 1;
  unsigned const items = argc > 2 ? std::atoi(argv[2]) : 100000;
  unsigned const consumers = argc > 3 ? std::atoi(argv[3]) : 4;
  ring_type ring;
  auto view = ring.get();
  std::atomic<unsigned long long> consumed{0};
  std::atomic<long long> last_ns{0};
  std::atomic<unsigned> gaps{0};
  std::atomic<long long> max_gap{0};
  auto t0 = std::chrono::steady_clock::now();
  auto now_ns = [&] { return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count(); };
  produce<<<producers, 32>>>(view, items);
  std::vector<std::thread> threads;
  unsigned long long const total = static_cast<unsigned long long>(producers) * items;
  for (unsigned c = 0; c < consumers; ++c) {
    threads.emplace_back([&] {
      for (;;) {
        work_queue::item const value = view.pop();
        if (value.sequence == work_queue::stop_sequence) return;
        long long const t = now_ns();
        long long const prev = last_ns.exchange(t);
        if (prev != 0 && t - prev > 500000) {
          gaps.fetch_add(1);
          std::fprintf(stderr, "[gap %.0f us at item %llu]\n", (t - prev) / 1e3, consumed.load());
        }
        long long m = max_gap.load();
        while (prev != 0 && t - prev > m && !max_gap.compare_exchange_weak(m, t - prev)) {}
        consumed.fetch_add(1);
      }
    });
  }
  while (consumed.load() < total) std::this_thread::sleep_for(std::chrono::microseconds(100));
  double const secs = now_ns() / 1e9;
  cudaError_t const error = cudaDeviceSynchronize();
  for (unsigned c = 0; c < consumers; ++c) {
    work_queue::item stop{};
    stop.sequence = work_queue::stop_sequence;
    view.push(stop);
  }
  for (auto& t : threads) t.join();
  std::printf("ring %d, %u producer blocks x %u items, %u consumers: %.3g items/s, gaps over 500 us: %u, max gap %.0f us (%s)\n",
              RING, producers, items, consumers, total / secs, gaps.load(), max_gap.load() / 1e3, cudaGetErrorString(error));
  return 0;
}
