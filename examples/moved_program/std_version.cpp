// The program as written for CPU threads only: std types, an ordinary allocation.

#include "program.hpp"

#include <barrier>
#include <memory>
#include <mutex>
#include <semaphore>
#include <thread>
#include <vector>

namespace moved_program {

long long run_with_std(int workers, int rounds)
{
  using state = shared_state<std::mutex, std::counting_semaphore<slots>, std::barrier<>, std::lock_guard>;
  auto shared = std::make_unique<state>(workers);
  std::vector<std::thread> threads;
  for (int worker = 0; worker < workers; ++worker) {
    threads.emplace_back([&shared, worker, rounds] { run_worker(*shared, worker, rounds); });
  }
  for (std::thread& thread : threads) thread.join();
  return shared->total;
}

}  // namespace moved_program
