// Device capabilities: answered without a GPU (false / unisync::error, never a crash) and
// sensible with one.

#include "gpu.hpp"

#include <unisync/capabilities.hpp>
#include <unisync/error.hpp>

#include <gtest/gtest.h>

namespace {

TEST(Capabilities, GpuAvailableAnswersWithoutThrowing)
{
  EXPECT_NO_THROW(static_cast<void>(unisync::gpu_available()));
}

TEST(Capabilities, QueryWithoutAGpuThrowsAClearError)
{
  if (unisync::gpu_available()) GTEST_SKIP() << "this machine has a GPU: the no-GPU path is tested in CI";
  try {
    static_cast<void>(unisync::device_capabilities());
    FAIL() << "device_capabilities() returned without a GPU";
  } catch (unisync::error const& refused) {
    EXPECT_EQ(refused.code(), cudaErrorNoDevice);
    EXPECT_NE(std::string(refused.what()).find("no CUDA GPU"), std::string::npos) << refused.what();
  }
}

TEST(Capabilities, DescribesTheGpu)
{
  UNISYNC_REQUIRE_GPU();
  unisync::gpu_capabilities const gpu = unisync::device_capabilities();
  EXPECT_FALSE(gpu.name.empty());
  EXPECT_GE(gpu.compute_capability_major, 7) << "unisync needs independent thread scheduling (sm_70+)";
  EXPECT_GT(gpu.multiprocessor_count, 0);
  RecordProperty("gpu", gpu.name);
  RecordProperty("host_native_atomic_supported", gpu.host_native_atomic_supported ? 1 : 0);
  RecordProperty("concurrent_managed_access", gpu.concurrent_managed_access ? 1 : 0);
  RecordProperty("pageable_memory_access", gpu.pageable_memory_access ? 1 : 0);
}

}  // namespace
