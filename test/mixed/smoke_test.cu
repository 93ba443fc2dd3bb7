// The GPU smoke test: a kernel and a std::thread take turns incrementing a value in
// managed memory, handing the turn over through a system-scope flag.

#include "gpu.hpp"
#include "mixed.hpp"

#include <unisync/managed.hpp>

#include <cuda/atomic>
#include <gtest/gtest.h>

#include <thread>

namespace {

using namespace unisync::test;

__global__ void echo_plus_one(int* mailbox, int* flag, int rounds)
{
  cuda::atomic_ref<int, cuda::thread_scope_system> turn(*flag);
  for (int round = 0; round < rounds; ++round) {
    while (turn.load(cuda::std::memory_order_acquire) != 2 * round + 1) __nanosleep(100);
    *mailbox += 1;
    turn.store(2 * round + 2, cuda::std::memory_order_release);
  }
}

TEST(MixedSmoke, KernelAndHostThreadExchangeValuesThroughManagedMemory)
{
  UNISYNC_REQUIRE_GPU();
  auto mailbox = unisync::make_managed<int>(0);
  auto flag = unisync::make_managed<int>(0);
  constexpr int rounds = 100;
  cudaError_t const status = run_mixed(
      1,
      [&](unsigned) {
        cuda::atomic_ref<int, cuda::thread_scope_system> turn(*flag);
        for (int round = 0; round < rounds; ++round) {
          *mailbox += 1;
          turn.store(2 * round + 1, cuda::std::memory_order_release);
          while (turn.load(cuda::std::memory_order_acquire) != 2 * round + 2) std::this_thread::yield();
        }
      },
      [&] { echo_plus_one<<<1, 1>>>(mailbox.get(), flag.get(), rounds); });
  ASSERT_EQ(status, cudaSuccess);
  EXPECT_EQ(*mailbox, 2 * rounds);
}

}  // namespace
