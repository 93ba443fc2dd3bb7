// The program as written for CPU threads only: std types, ordinary allocations.

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
  auto lock = std::make_unique<std::mutex>();
  auto computing = std::make_unique<std::counting_semaphore<slots>>(slots);
  auto round_end = std::make_unique<std::barrier<>>(workers);
  auto total = std::make_unique<long long>(1);
  state const shared{lock.get(), computing.get(), round_end.get(), total.get()};
  std::vector<std::thread> threads;
  for (int worker = 0; worker < workers; ++worker) {
    threads.emplace_back([shared, worker, rounds] { run_worker(shared, worker, rounds); });
  }
  for (std::thread& thread : threads) thread.join();
  return *total;
}

}  // namespace moved_program
