// The mix harness's CPU actors when the GPU actors fail, without a GPU: a probe stands in
// for the persistent kernel's status.

#include "harness.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

namespace {

using unisync::bench::cpu_actor_threads;
using namespace std::chrono_literals;

std::string gpu_fine() { return {}; }
std::string gpu_fault() { return "cudaErrorLaunchFailure (fake)"; }

TEST(MixHarnessCpuActors, JoinReturnsOnceEveryActorLeft)
{
  std::atomic<unsigned> ran{0};
  cpu_actor_threads actors(4, [&](unsigned) { ran.fetch_add(1); }, gpu_fine);
  actors.wait_until_ready();
  actors.start();
  actors.join();
  EXPECT_EQ(ran.load(), 4u);
}

TEST(MixHarnessCpuActors, JoinWaitsForSlowActorsWhileTheGpuRuns)
{
  std::atomic<bool> release{false};
  std::atomic<unsigned> ran{0};
  cpu_actor_threads actors(2, [&](unsigned) {
    while (!release.load()) std::this_thread::yield();
    ran.fetch_add(1);
  }, gpu_fine);
  actors.wait_until_ready();
  actors.start();
  std::thread releaser([&] {
    std::this_thread::sleep_for(100ms);  // several of the join's polls
    release.store(true);
  });
  actors.join();
  releaser.join();
  EXPECT_EQ(ran.load(), 2u);
}

TEST(MixHarnessCpuActors, ActorsThatLeaveAfterAGpuFailureAreJoined)
{
  // A lock's CPU actors that wait for no GPU holder leave once told to stop, failure or not.
  std::atomic<bool> stop{false};
  cpu_actor_threads actors(2, [&](unsigned) {
    while (!stop.load()) std::this_thread::yield();
  }, gpu_fault);
  actors.wait_until_ready();
  actors.start();
  std::thread stopper([&] {
    std::this_thread::sleep_for(50ms);
    stop.store(true);
  });
  actors.join();
  stopper.join();
}

TEST(MixHarnessCpuActorsDeathTest, ActorsStuckAfterAGpuFailureEndTheProcessWithAMessage)
{
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        std::atomic<bool> never{false};  // a barrier's CPU participant waiting for GPU arrivals
        cpu_actor_threads actors(2, [&](unsigned) {
          while (!never.load()) std::this_thread::yield();
        }, gpu_fault);
        actors.wait_until_ready();
        actors.start();
        actors.join();
      },
      testing::ExitedWithCode(EXIT_FAILURE), "GPU actors failed during the window \\(cudaErrorLaunchFailure \\(fake\\)\\) and 2 of 2 CPU actors");
}

}  // namespace
