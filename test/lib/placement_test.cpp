// check_placement: refuses memory where CPU+GPU sharing would hang or lose updates, with
// a message that says what to use instead; accepts managed memory.

#include "gpu.hpp"

#include <unisync/capabilities.hpp>
#include <unisync/error.hpp>
#include <unisync/managed.hpp>
#include <unisync/placement.hpp>

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <string>

namespace {

/// Stands for any synchronization object: what matters here is where it lives.
struct shared_word {
  explicit shared_word(unsigned initial = 0) : value(initial) {}
  unsigned value;
};

using unisync::sharing;

std::string refusal(void const* object, sharing who)
{
  try {
    unisync::check_placement(object, who);
  } catch (unisync::error const& refused) {
    return refused.what();
  }
  return {};
}

TEST(Placement, HostOnlyAcceptsHostMemoryWithOrWithoutAGpu)
{
  shared_word on_stack;
  EXPECT_NO_THROW(unisync::check_placement(&on_stack, sharing::host_only));
}

TEST(Placement, RefusesANullObject)
{
  EXPECT_NE(refusal(nullptr, sharing::host_only).find("null"), std::string::npos);
}

TEST(Placement, DeviceSharingWithoutAGpuIsRefused)
{
  if (unisync::gpu_available()) GTEST_SKIP() << "this machine has a GPU: the no-GPU path is tested in CI";
  shared_word on_stack;
  EXPECT_NE(refusal(&on_stack, sharing::host_and_device).find("no CUDA GPU"), std::string::npos);
}

TEST(Placement, AcceptsManagedMemoryForHostAndDevice)
{
  UNISYNC_REQUIRE_GPU();
  auto shared = unisync::make_managed<shared_word>();
  EXPECT_NO_THROW(unisync::check_placement(shared.get(), sharing::host_and_device));
  EXPECT_NO_THROW(unisync::check_placement(shared.get(), sharing::device_only));
  EXPECT_NO_THROW(unisync::check_placement(shared.get(), sharing::host_only));
}

TEST(Placement, RefusesPinnedHostMemoryWithoutNativeHostAtomics)
{
  UNISYNC_REQUIRE_GPU();
  void* pinned = nullptr;
  UNISYNC_CUDA_OK(cudaHostAlloc(&pinned, sizeof(shared_word), cudaHostAllocMapped));
  std::string const message = refusal(pinned, sharing::host_and_device);
  if (unisync::device_capabilities().host_native_atomic_supported) {
    EXPECT_EQ(message, "") << "a link with native host atomics makes pinned memory safe";
  } else {
    EXPECT_NE(message.find("pinned host memory"), std::string::npos) << message;
    EXPECT_NE(message.find("make_managed"), std::string::npos) << "the message says what to use instead";
  }
  EXPECT_EQ(refusal(pinned, sharing::device_only), "") << "GPU-only atomics on pinned memory are fine";
  cudaFreeHost(pinned);
}

TEST(Placement, RefusesDeviceMemoryForTheHost)
{
  UNISYNC_REQUIRE_GPU();
  void* device = nullptr;
  UNISYNC_CUDA_OK(cudaMalloc(&device, sizeof(shared_word)));
  EXPECT_NE(refusal(device, sharing::host_and_device).find("device memory"), std::string::npos);
  EXPECT_NE(refusal(device, sharing::host_only).find("device memory"), std::string::npos);
  EXPECT_EQ(refusal(device, sharing::device_only), "");
  cudaFree(device);
}

TEST(Placement, RefusesPageableMemoryTheGpuCannotReach)
{
  UNISYNC_REQUIRE_GPU();
  shared_word on_stack;
  std::string const message = refusal(&on_stack, sharing::host_and_device);
  if (unisync::device_capabilities().pageable_memory_access) {
    EXPECT_EQ(message, "");
  } else {
    EXPECT_NE(message.find("pageable host memory"), std::string::npos) << message;
  }
}

}  // namespace
