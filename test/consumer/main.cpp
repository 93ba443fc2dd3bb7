// Uses the installed headers and host library from a plain C++ file: CPU threads share a
// ticket_mutex and a barrier; the capability query answers with or without a GPU.

#include <unisync/unisync.hpp>

#include <cstdio>
#include <mutex>
#include <thread>
#include <vector>

int main()
{
  unisync::ticket_mutex lock;
  unisync::barrier<> barrier(4);
  long long counter = 0;
  std::vector<std::thread> threads;
  for (int thread = 0; thread < 4; ++thread) {
    threads.emplace_back([&] {
      for (int phase = 0; phase < 100; ++phase) {
        {
          std::lock_guard<unisync::ticket_mutex> guard(lock);
          ++counter;
        }
        barrier.arrive_and_wait();
      }
    });
  }
  for (auto& thread : threads) thread.join();
  std::printf("counter %lld, GPU available: %s\n", counter, unisync::gpu_available() ? "yes" : "no");
  return counter == 400 ? 0 : 1;
}
