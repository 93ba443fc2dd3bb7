// CPU threads and GPU blocks increment one counter under one lock in managed memory.
// Exit status: 0 when the count is exact, 1 when updates were lost, 77 without a GPU.

#include <unisync/unisync.hpp>

#include <cstdio>
#include <mutex>
#include <thread>
#include <vector>

__global__ void add_on_gpu(unisync::cohort_mutex* lock, long* counter, int rounds)
{
  for (int i = 0; i < rounds; ++i) {
    unisync::lock_guard<unisync::cohort_mutex> guard(*lock);  // one thread per block
    ++*counter;
  }
}

int main()
{
  if (!unisync::gpu_available()) return std::puts("no GPU: nothing to share"), 77;
  auto lock = unisync::make_managed<unisync::cohort_mutex>();
  auto counter = unisync::make_managed<long>(0);
  constexpr int blocks = 132, cpu_threads = 4, rounds = 1000;
  add_on_gpu<<<blocks, 1>>>(lock.get(), counter.get(), rounds);  // runs while the CPU adds
  std::vector<std::thread> threads;
  for (int t = 0; t < cpu_threads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < rounds; ++i) {
        std::lock_guard<unisync::cohort_mutex> guard(*lock);
        ++*counter;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  if (cudaDeviceSynchronize() != cudaSuccess) return std::puts("kernel failed"), 1;
  long const expected = long{blocks + cpu_threads} * rounds;
  std::printf("counter %ld, expected %ld\n", *counter, expected);
  return *counter == expected ? 0 : 1;
}
