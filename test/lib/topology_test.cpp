// hwloc helpers: a topology summary with or without a GPU, and thread pinning.

#include <unisync/error.hpp>
#include <unisync/topology.hpp>

#include <gtest/gtest.h>

#include <thread>

namespace {

TEST(Topology, DescribesTheHost)
{
  unisync::topology_summary const summary = unisync::describe_topology();
  EXPECT_GE(summary.packages, 1u);
  EXPECT_GE(summary.cores, 1u);
  EXPECT_GE(summary.processing_units, summary.cores);
  EXPECT_FALSE(summary.cpus_near_gpu.empty());
  EXPECT_NE(summary.description.find("PU"), std::string::npos) << summary.description;
  RecordProperty("topology", summary.description);
}

TEST(Topology, PinsTheCallingThreadNearTheGpu)
{
  unisync::topology_summary const summary = unisync::describe_topology();
  // On a thread of its own: pinning the test runner's thread would slow later tests.
  std::thread([&] { EXPECT_NO_THROW(unisync::pin_this_thread(summary.cpus_near_gpu.front())); }).join();
}

TEST(Topology, RefusesACpuThatDoesNotExist)
{
  std::thread([] { EXPECT_THROW(unisync::pin_this_thread(1u << 20), unisync::error); }).join();
}

}  // namespace
