// Diagnostic outside the tree: bursts of one item from each of P GPU producer blocks into
// the work queue ring (partitioned_semaphore<1024>), consumed by C host threads. The host
// starts a burst through a pinned word, waits until its items are consumed, sleeps 50 us
// and starts the next: an item whose permit stays in the GPU's pool waits for a later GPU
// release that reads the link, or the CPU side's steal (1 ms+).
#include "work_queue.cuh"
#include <unisync/partitioned_semaphore.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

// -DLIBCUDACXX: the same ring on libcu++'s counting_semaphore at system scope.
#if defined(LIBCUDACXX)
#include <cuda/semaphore>
using ring_type = work_queue::ring<cuda::counting_semaphore<cuda::thread_scope_system, 1024>, 1024>;
#else
using ring_type = work_queue::ring<unisync::partitioned_semaphore<1024>, 1024>;
#endif

__global__ void produce(ring_type::view queue, unsigned* go, unsigned bursts)
{
  if (threadIdx.x != 0) return;
  for (unsigned b = 1; b <= bursts; ++b) {
    while (cuda::atomic_ref<unsigned, cuda::thread_scope_system>(*go).load(cuda::std::memory_order_acquire) < b) {
    }
    work_queue::item value{};
    value.payload[0] = blockIdx.x;
    queue.push(value);
  }
}

int main(int argc, char** argv)
{
  unsigned const producers = argc > 1 ? std::atoi(argv[1]) : 8;
  unsigned const bursts = argc > 2 ? std::atoi(argv[2]) : 2000;
  unsigned const consumers = argc > 3 ? std::atoi(argv[3]) : 4;
  ring_type ring;
  auto view = ring.get();
  unsigned* go;
  cudaMallocHost(&go, sizeof(unsigned));
  *go = 0;
  produce<<<producers, 32>>>(view, go, bursts);
  std::atomic<unsigned long long> consumed{0};
  std::vector<std::thread> threads;
  for (unsigned c = 0; c < consumers; ++c) {
    threads.emplace_back([&] {
      for (;;) {
        work_queue::item const value = view.pop();
        if (value.sequence == work_queue::stop_sequence) return;
        consumed.fetch_add(1, std::memory_order_acq_rel);
      }
    });
  }
  std::vector<double> us;
  for (unsigned b = 1; b <= bursts; ++b) {
    auto const start = std::chrono::steady_clock::now();
    cuda::atomic_ref<unsigned, cuda::thread_scope_system>(*go).store(b, cuda::std::memory_order_release);
    while (consumed.load(std::memory_order_acquire) < static_cast<unsigned long long>(b) * producers) {
    }
    us.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count());
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
  cudaError_t const error = cudaDeviceSynchronize();
  for (unsigned c = 0; c < consumers; ++c) {
    work_queue::item stop{};
    stop.sequence = work_queue::stop_sequence;
    view.push(stop);
  }
  for (auto& t : threads) t.join();
  std::vector<double> sorted = us;
  std::sort(sorted.begin(), sorted.end());
  auto at = [&](double q) { return sorted[static_cast<std::size_t>(q * (sorted.size() - 1))]; };
  unsigned over_500 = 0;
  for (double v : us) over_500 += v > 500;
  std::printf("%u producer blocks x %u bursts, %u host consumers: burst done in median %.1f us, p90 %.1f, p99 %.1f, max %.1f; over 500 us: %u (%s, %llu consumed)\n",
              producers, bursts, consumers, at(0.5), at(0.9), at(0.99), sorted.back(), over_500,
              cudaGetErrorString(error), consumed.load());
  return error == cudaSuccess ? 0 : 1;
}
