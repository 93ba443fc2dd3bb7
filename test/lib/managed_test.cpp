// make_managed and managed_allocator: construction and destruction in managed memory,
// advice, and a clear error without a GPU.

#include "gpu.hpp"

#include <unisync/error.hpp>
#include <unisync/managed.hpp>

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <vector>

namespace {

/// Stands for any synchronization object: what matters here is where it lives.
struct shared_word {
  explicit shared_word(unsigned initial = 0) : value(initial) {}
  unsigned value;
};

struct counted {
  explicit counted(int* destructions, int payload) : destructions_(destructions), payload_(payload) {}
  ~counted() { ++*destructions_; }
  int* destructions_;
  int payload_;
};

TEST(Managed, WithoutAGpuMakeManagedThrowsAClearError)
{
  if (unisync::gpu_available()) GTEST_SKIP() << "this machine has a GPU: the no-GPU path is tested in CI";
  EXPECT_THROW(static_cast<void>(unisync::make_managed<shared_word>()), unisync::error);
}

TEST(Managed, ConstructsInManagedMemoryAndDestroysOnce)
{
  UNISYNC_REQUIRE_GPU();
  int destructions = 0;
  {
    auto object = unisync::make_managed<counted>(&destructions, 42);
    EXPECT_EQ(object->payload_, 42);
    cudaPointerAttributes attributes{};
    UNISYNC_CUDA_OK(cudaPointerGetAttributes(&attributes, object.get()));
    EXPECT_EQ(attributes.type, cudaMemoryTypeManaged);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(object.get()) % alignof(counted), 0u);
  }
  EXPECT_EQ(destructions, 1);
}

TEST(Managed, AppliesEveryAdvice)
{
  UNISYNC_REQUIRE_GPU();
  for (auto advice : {unisync::memory_advice::none, unisync::memory_advice::prefer_host,
                      unisync::memory_advice::prefer_device}) {
    auto word = unisync::make_managed<shared_word>(advice, 5u);
    EXPECT_EQ(word->value, 5u);
  }
}

TEST(Managed, AllocatorServesContainers)
{
  UNISYNC_REQUIRE_GPU();
  std::vector<int, unisync::managed_allocator<int>> values(1000, 7);
  cudaPointerAttributes attributes{};
  UNISYNC_CUDA_OK(cudaPointerGetAttributes(&attributes, values.data()));
  EXPECT_EQ(attributes.type, cudaMemoryTypeManaged);
  EXPECT_EQ(values[999], 7);
}

}  // namespace
