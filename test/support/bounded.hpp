#pragma once
// Bounded waits for conformance tests: a broken primitive fails the test instead of
// hanging it. A thread that does not finish in time is detached, so whatever it uses must
// outlive the test (hold it in a shared_ptr captured by value).

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <thread>
#include <utility>

namespace unisync::test {

/// Long enough for any correct primitive here on a loaded two-core CI machine.
inline constexpr std::chrono::seconds generous_wait{20};

/// Polls `condition` until it holds or `limit` passes; returns whether it held.
template <class Condition>
bool eventually(Condition condition, std::chrono::milliseconds limit = generous_wait)
{
  auto const give_up = std::chrono::steady_clock::now() + limit;
  while (!condition()) {
    if (std::chrono::steady_clock::now() > give_up) return false;
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
  return true;
}

/// Whether another thread could take the lock now (it tries, and lets go at once): the
/// guarantee behind "owns" and "holds".
template <class Mutex>
bool free_for_another_thread(Mutex& lock)
{
  bool taken = false;
  std::thread other([&] {
    taken = lock.try_lock();
    if (taken) lock.unlock();
  });
  other.join();
  return taken;
}

/// A thread running `body` that the test asks whether it returned in time.
class bounded_thread {
 public:
  explicit bounded_thread(std::function<void()> body) : returned_(std::make_shared<std::atomic<bool>>(false))
  {
    thread_ = std::thread([returned = returned_, body = std::move(body)] {
      body();
      returned->store(true, std::memory_order_release);
    });
  }
  bounded_thread(bounded_thread const&) = delete;
  bounded_thread& operator=(bounded_thread const&) = delete;
  ~bounded_thread() { static_cast<void>(returned_within(generous_wait)); }

  /// Whether the body returned within `limit`: joins the thread if so, detaches it if not.
  bool returned_within(std::chrono::milliseconds limit = generous_wait)
  {
    if (!thread_.joinable()) return returned_->load(std::memory_order_acquire);
    bool const returned = eventually([&] { return returned_->load(std::memory_order_acquire); }, limit);
    if (returned) {
      thread_.join();
    } else {
      thread_.detach();
    }
    return returned;
  }
  /// Whether the body has returned by now; never waits.
  bool has_returned() const { return returned_->load(std::memory_order_acquire); }

 private:
  std::shared_ptr<std::atomic<bool>> returned_;
  std::thread thread_;
};

/// A barrier's completion function that lets the test act while one of its runs goes on:
/// at run number `held_run` (0 is the first) it says it runs, then waits until the test
/// says it may return (at most generous_wait; held_too_long says if that ran out).
struct completion_holding_a_run {
  struct state {
    std::atomic<std::uint32_t> runs{0};
    std::atomic<bool> running{false};
    std::atomic<bool> may_return{false};
    std::atomic<bool> held_too_long{false};
  };
  state* shared;
  std::uint32_t held_run;
  void operator()() const noexcept
  {
    if (shared->runs.fetch_add(1) != held_run) return;
    shared->running = true;
    if (!eventually([this] { return shared->may_return.load(); })) shared->held_too_long = true;
  }
};

}  // namespace unisync::test
