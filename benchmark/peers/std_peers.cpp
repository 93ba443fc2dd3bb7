#include "std_peers.hpp"

#include <barrier>
#include <mutex>
#include <semaphore>

namespace unisync::bench {

struct std_mutex_peer::state {
  std::mutex mutex;
};
std_mutex_peer::std_mutex_peer() : state_(std::make_unique<state>()) {}
std_mutex_peer::~std_mutex_peer() = default;
void std_mutex_peer::lock() { state_->mutex.lock(); }
void std_mutex_peer::unlock() { state_->mutex.unlock(); }

struct std_semaphore_peer::state {
  explicit state(std::ptrdiff_t permits) : semaphore(permits) {}
  std::counting_semaphore<> semaphore;
};
std_semaphore_peer::std_semaphore_peer(std::ptrdiff_t permits) : state_(std::make_unique<state>(permits)) {}
std_semaphore_peer::~std_semaphore_peer() = default;
void std_semaphore_peer::acquire() { state_->semaphore.acquire(); }
void std_semaphore_peer::release() { state_->semaphore.release(); }

struct std_barrier_peer::state {
  explicit state(std::ptrdiff_t expected) : barrier(expected) {}
  std::barrier<> barrier;
};
std_barrier_peer::std_barrier_peer(std::ptrdiff_t expected) : state_(std::make_unique<state>(expected)) {}
std_barrier_peer::~std_barrier_peer() = default;
void std_barrier_peer::arrive_and_wait() { state_->barrier.arrive_and_wait(); }

}  // namespace unisync::bench
