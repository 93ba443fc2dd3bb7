// A plain C++ translation unit, compiled by the host compiler alone, includes the umbrella
// header and uses the types with std::thread and the std lock wrappers: the contract that
// a host-only file can share objects with .cu files.

#include <unisync/unisync.hpp>

#include <gtest/gtest.h>

#include <mutex>
#include <thread>
#include <type_traits>
#include <vector>

namespace {

static_assert(!std::is_copy_constructible_v<unisync::mutex> && !std::is_move_constructible_v<unisync::mutex>);
static_assert(!std::is_copy_constructible_v<unisync::ticket_mutex> &&
              !std::is_move_constructible_v<unisync::ticket_mutex>);
static_assert(std::is_nothrow_default_constructible_v<unisync::mutex>);
static_assert(std::is_standard_layout_v<unisync::mutex> && std::is_standard_layout_v<unisync::ticket_mutex>);

// constexpr construction is what lets __managed__, __device__ and static objects work.
constexpr unisync::mutex constant_mutex;
constexpr unisync::ticket_mutex constant_ticket_mutex;

TEST(HostOnlyTranslationUnit, SharesLocksWithStdThreadsAndScopedLock)
{
  unisync::mutex exchange_lock;
  unisync::ticket_mutex ticket_lock;
  long long counter = 0;
  std::vector<std::thread> threads;
  for (int thread = 0; thread < 4; ++thread) {
    threads.emplace_back([&] {
      for (int i = 0; i < 1000; ++i) {
        std::scoped_lock both(exchange_lock, ticket_lock);
        ++counter;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(counter, 4000);
}

}  // namespace
