#pragma once
// std:: peers, host only, in the same case shape as ours so the same harness measures
// them. std::counting_semaphore, std::barrier and std::latch are C++20: they live in std_peers.cpp
// (built as C++20) behind these small classes, so CUDA files can stay C++17.

#include "../mix/cell.hpp"
#include "../mix/placement.hpp"

#include <cstddef>
#include <memory>

namespace unisync::bench {

class std_mutex_peer {
 public:
  std_mutex_peer();
  ~std_mutex_peer();
  void lock();
  void unlock();

 private:
  struct state;
  std::unique_ptr<state> state_;
};

class std_shared_mutex_peer {
 public:
  std_shared_mutex_peer();
  ~std_shared_mutex_peer();
  void lock();
  void unlock();
  void lock_shared();
  void unlock_shared();

 private:
  struct state;
  std::unique_ptr<state> state_;
};

class std_semaphore_peer {
 public:
  explicit std_semaphore_peer(std::ptrdiff_t permits);
  ~std_semaphore_peer();
  void acquire();
  void release();

 private:
  struct state;
  std::unique_ptr<state> state_;
};

class std_barrier_peer {
 public:
  explicit std_barrier_peer(std::ptrdiff_t expected);
  ~std_barrier_peer();
  void arrive_and_wait();

 private:
  struct state;
  std::unique_ptr<state> state_;
};

/// One std::latch per round (a latch is single-use), each on lines of its own.
class std_latch_ring_peer {
 public:
  std_latch_ring_peer(std::ptrdiff_t expected, unsigned rounds);
  ~std_latch_ring_peer();
  void arrive_and_wait(unsigned round);

 private:
  struct state;
  std::unique_ptr<state> state_;
};

struct std_mutex_case {
  struct object {
    std_mutex_peer lock;
    alignas(128) unsigned long long protected_counter = 0;
  };
  static constexpr bool on_host = true;
  static constexpr bool on_device = false;
  static placed_ptr<object> create(mix_cell const& cell) { return place_for<object>(cell); }
  static void acquire(object& shared) { shared.lock.lock(); }
  static void critical_section(object& shared) { ++shared.protected_counter; }
  static void release(object& shared) { shared.lock.unlock(); }
};

template <std::ptrdiff_t Permits>
struct std_semaphore_case {
  struct object {
    std_semaphore_peer semaphore{Permits};
  };
  static constexpr bool on_host = true;
  static constexpr bool on_device = false;
  static placed_ptr<object> create(mix_cell const& cell) { return place_for<object>(cell); }
  static void acquire(object& shared) { shared.semaphore.acquire(); }
  static void critical_section(object&) {}
  static void release(object& shared) { shared.semaphore.release(); }
};

struct std_barrier_case {
  using object = std_barrier_peer;
  static constexpr bool on_host = true;
  static constexpr bool on_device = false;
  static placed_ptr<object> create(mix_cell const& cell)
  {
    return place_for<object>(cell, static_cast<std::ptrdiff_t>(cell.cpu_threads));
  }
  static void arrive_and_wait_cpu(object& shared) { shared.arrive_and_wait(); }
};

}  // namespace unisync::bench
