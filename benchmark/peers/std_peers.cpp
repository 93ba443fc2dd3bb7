#include "std_peers.hpp"

#include <barrier>
#include <latch>
#include <mutex>
#include <semaphore>
#include <shared_mutex>
#include <vector>

namespace unisync::bench {

struct std_mutex_peer::state {
  std::mutex mutex;
};
std_mutex_peer::std_mutex_peer() : state_(std::make_unique<state>()) {}
std_mutex_peer::~std_mutex_peer() = default;
void std_mutex_peer::lock() { state_->mutex.lock(); }
void std_mutex_peer::unlock() { state_->mutex.unlock(); }

struct std_shared_mutex_peer::state {
  std::shared_mutex mutex;
};
std_shared_mutex_peer::std_shared_mutex_peer() : state_(std::make_unique<state>()) {}
std_shared_mutex_peer::~std_shared_mutex_peer() = default;
void std_shared_mutex_peer::lock() { state_->mutex.lock(); }
void std_shared_mutex_peer::unlock() { state_->mutex.unlock(); }
void std_shared_mutex_peer::lock_shared() { state_->mutex.lock_shared(); }
void std_shared_mutex_peer::unlock_shared() { state_->mutex.unlock_shared(); }

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

struct std_latch_ring_peer::state {
  struct alignas(128) padded_latch {
    explicit padded_latch(std::ptrdiff_t expected) : latch(expected) {}
    std::latch latch;
  };
  std::vector<std::unique_ptr<padded_latch>> latches;
};
std_latch_ring_peer::std_latch_ring_peer(std::ptrdiff_t expected, unsigned rounds) : state_(std::make_unique<state>())
{
  for (unsigned round = 0; round < rounds; ++round) {
    state_->latches.push_back(std::make_unique<state::padded_latch>(expected));
  }
}
std_latch_ring_peer::~std_latch_ring_peer() = default;
void std_latch_ring_peer::arrive_and_wait(unsigned round) { state_->latches[round]->latch.arrive_and_wait(); }

}  // namespace unisync::bench
