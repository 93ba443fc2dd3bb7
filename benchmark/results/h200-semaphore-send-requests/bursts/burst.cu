// Diagnostic outside the tree: bursts of one item from each of P host producers into the
// work queue ring (partitioned_semaphore<1024>), 132 consumer blocks on the GPU. The host
// waits until the burst's items are consumed, then starts the next burst: an item whose
// permit stays in the CPU's pool is forwarded only by the GPU's steal (1 ms+).
#include "work_queue.cuh"
#include <unisync/partitioned_semaphore.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>

// -DLIBCUDACXX: the same ring on libcu++'s counting_semaphore at system scope.
#if defined(LIBCUDACXX)
#include <cuda/semaphore>
using ring_type = work_queue::ring<cuda::counting_semaphore<cuda::thread_scope_system, 1024>, 1024>;
#else
using ring_type = work_queue::ring<unisync::partitioned_semaphore<1024>, 1024>;
#endif

// Each block counts its items in a pinned host slot of its own (stores only).
__global__ void consume(ring_type::view queue, unsigned long long* consumed)
{
  if (threadIdx.x != 0) return;
  unsigned long long mine = 0;
  for (;;) {
    work_queue::item const value = queue.pop();
    if (value.sequence == work_queue::stop_sequence) return;
    cuda::atomic_ref<unsigned long long, cuda::thread_scope_system>(consumed[blockIdx.x])
        .store(++mine, cuda::std::memory_order_release);
  }
}

int main(int argc, char** argv)
{
  unsigned const producers = argc > 1 ? std::atoi(argv[1]) : 4;
  unsigned const bursts = argc > 2 ? std::atoi(argv[2]) : 2000;
  unsigned const blocks = 132;
  ring_type ring;
  auto view = ring.get();
  unsigned long long* consumed;
  cudaMallocHost(&consumed, blocks * sizeof(unsigned long long));
  for (unsigned i = 0; i < blocks; ++i) consumed[i] = 0;
  consume<<<blocks, 32>>>(view, consumed);
  std::atomic<unsigned> go{0};
  std::atomic<unsigned> done{0};
  std::vector<std::thread> threads;
  for (unsigned p = 0; p < producers; ++p) {
    threads.emplace_back([&, p] {
      for (unsigned b = 1; b <= bursts; ++b) {
        while (go.load(std::memory_order_acquire) < b) {
        }
        work_queue::item value{};
        value.payload[0] = p;
        view.push(value);
        done.fetch_add(1, std::memory_order_acq_rel);
      }
    });
  }
  std::vector<double> us;
  auto const total = [&] {
    unsigned long long sum = 0;
    for (unsigned i = 0; i < blocks; ++i) {
      sum += cuda::atomic_ref<unsigned long long, cuda::thread_scope_system>(consumed[i]).load(
          cuda::std::memory_order_acquire);
    }
    return sum;
  };
  for (unsigned b = 1; b <= bursts; ++b) {
    auto const start = std::chrono::steady_clock::now();
    go.store(b, std::memory_order_release);
    while (total() < static_cast<unsigned long long>(b) * producers) {
    }
    us.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count());
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
  for (auto& t : threads) t.join();
  for (unsigned i = 0; i < blocks; ++i) {
    work_queue::item stop{};
    stop.sequence = work_queue::stop_sequence;
    view.push(stop);
  }
  cudaError_t const error = cudaDeviceSynchronize();
  std::vector<double> sorted = us;
  std::sort(sorted.begin(), sorted.end());
  auto at = [&](double q) { return sorted[static_cast<std::size_t>(q * (sorted.size() - 1))]; };
  unsigned over_500 = 0;
  for (double v : us) over_500 += v > 500;
  std::printf("stalls over 500 us at bursts:");
  for (std::size_t i = 0; i < us.size(); ++i) {
    if (us[i] > 500) std::printf(" %zu", i + 1);
  }
  std::printf("\n");
  std::printf("%u producers x %u bursts, %u blocks: burst done in median %.1f us, p99 %.1f, p99.9 %.1f, max %.1f; over 500 us: %u (%s)\n",
              producers, bursts, blocks, at(0.5), at(0.99), at(0.999), sorted.back(), over_500,
              cudaGetErrorString(error));
  return error == cudaSuccess ? 0 : 1;
}
