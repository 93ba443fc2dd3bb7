// detail::atomic_at on the GPU: every read-modify-write, in every memory order, returns and
// leaves what cuda::atomic_ref does on the host, for a word in managed and in mapped pinned
// host memory (the global-state-space instructions) and in shared memory (the generic
// ones); and the global forms stay atomic with a grid contending on one word.

#include "gpu.hpp"

#include <unisync/detail/atomic.hpp>
#include <unisync/managed.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace {

using namespace unisync::test;
using cuda::std::memory_order;

constexpr int order_count = 6;
// The order of read-modify-writes for index `o`, and the failure order paired with it in
// compare_exchange_strong (never a releasing one).
__host__ __device__ memory_order rmw_order(int o)
{
  switch (o) {
    case 0:
      return cuda::std::memory_order_relaxed;
    case 1:
      return cuda::std::memory_order_consume;
    case 2:
      return cuda::std::memory_order_acquire;
    case 3:
      return cuda::std::memory_order_release;
    case 4:
      return cuda::std::memory_order_acq_rel;
    default:
      return cuda::std::memory_order_seq_cst;
  }
}
__host__ __device__ memory_order cas_failure_order(int o)
{
  switch (o) {
    case 1:
      return cuda::std::memory_order_consume;
    case 2:
    case 4:
      return cuda::std::memory_order_acquire;
    case 5:
      return cuda::std::memory_order_seq_cst;
    default:
      return cuda::std::memory_order_relaxed;
  }
}
constexpr int results_per_order = 16;
constexpr int result_count = order_count * results_per_order;

/// Every operation of atomic_at in one order (index `o`), with values that wrap, change
/// sign and differ only above bit 31; writes each result and the value left to `out`.
template <cuda::thread_scope Scope, class T>
__host__ __device__ void run_sequence(T& word, int o, std::uint64_t* out)
{
  memory_order const order = rmw_order(o);
  auto ref = unisync::detail::atomic_at<Scope>(word);
  auto put = [&](int i, T value) { out[o * results_per_order + i] = static_cast<std::uint64_t>(value); };
  constexpr std::uint64_t bit40 = std::uint64_t{1} << 40;
  ref.store(static_cast<T>(5), cuda::std::memory_order_relaxed);
  put(0, ref.fetch_add(static_cast<T>(3), order));
  put(1, ref.fetch_add(static_cast<T>(~std::uint64_t{0}), order));  // adds -1
  put(2, ref.fetch_sub(static_cast<T>(9), order));                  // 7 - 9: wraps below zero
  put(3, ref.fetch_sub(static_cast<T>(~std::uint64_t{0} - 3), order));
  ref.store(static_cast<T>(0x10), cuda::std::memory_order_relaxed);
  put(4, ref.fetch_or(static_cast<T>(std::uint64_t{0x8000000000000101}), order));
  put(5, ref.exchange(static_cast<T>(42), order));
  T expected = static_cast<T>(42);
  put(6, ref.compare_exchange_strong(expected, static_cast<T>(7 | bit40), order, cas_failure_order(o)) ? 1 : 0);
  put(7, expected);
  // Differs from the word only in bit 40: a 32-bit comparison would take it.
  expected = static_cast<T>(7);
  put(8, ref.compare_exchange_strong(expected, static_cast<T>(9), order, cas_failure_order(o)) ? 1 : 0);
  put(9, expected);
  put(10, ref.exchange(static_cast<T>(bit40), order));
  // std's one-order form: for a 64-bit T the first fails and the second takes the word
  // (for a 32-bit T, whose bit 40 is cut off, the other way round).
  expected = static_cast<T>(0);
  put(11, ref.compare_exchange_strong(expected, static_cast<T>(3), order) ? 1 : 0);
  put(12, expected);
  expected = static_cast<T>(bit40);
  put(13, ref.compare_exchange_strong(expected, static_cast<T>(~std::uint64_t{0} << 36), order) ? 1 : 0);
  put(14, expected);
  put(15, ref.load(cuda::std::memory_order_acquire));
}

template <cuda::thread_scope Scope, class T>
__global__ void sequence_in_global_memory(T* word, std::uint64_t* out)
{
  for (int o = 0; o < order_count; ++o) run_sequence<Scope>(*word, o, out);
}

template <cuda::thread_scope Scope, class T>
__global__ void sequence_in_shared_memory(std::uint64_t* out)
{
  __shared__ T word;
  for (int o = 0; o < order_count; ++o) run_sequence<Scope>(word, o, out);
}

// Called through a pointer the compiler cannot see the space of, so that the run-time
// check of the address decides (a kernel's pointer parameter is known to be global).
template <cuda::thread_scope Scope, class T>
__global__ void sequence_through_unknown_space(T* global_word, bool use_shared, std::uint64_t* out)
{
  __shared__ T shared_word;
  T* volatile chosen = use_shared ? &shared_word : global_word;
  for (int o = 0; o < order_count; ++o) run_sequence<Scope>(*chosen, o, out);
}

template <cuda::thread_scope Scope, class T>
std::vector<std::uint64_t> host_reference()
{
  std::vector<std::uint64_t> out(result_count);
  T word{};
  for (int o = 0; o < order_count; ++o) run_sequence<Scope>(word, o, out.data());
  return out;
}

template <cuda::thread_scope Scope, class T>
void expect_device_matches_host()
{
  std::vector<std::uint64_t> const expected = host_reference<Scope, T>();
  auto word = unisync::make_managed<T>(T{});
  // Pinned host memory mapped into the GPU's address space is global memory too.
  T* host_word = nullptr;
  ASSERT_EQ(cudaHostAlloc(&host_word, sizeof(T), cudaHostAllocMapped), cudaSuccess);
  T* host_word_on_device = nullptr;
  ASSERT_EQ(cudaHostGetDevicePointer(&host_word_on_device, host_word, 0), cudaSuccess);
  for (int kernel = 0; kernel < 5; ++kernel) {
    std::uint64_t* out = nullptr;
    ASSERT_EQ(cudaMallocManaged(&out, result_count * sizeof(std::uint64_t)), cudaSuccess);
    switch (kernel) {
      case 0:
        sequence_in_global_memory<Scope, T><<<1, 1>>>(word.get(), out);
        break;
      case 1:
        sequence_in_shared_memory<Scope, T><<<1, 1>>>(out);
        break;
      case 2:
        sequence_through_unknown_space<Scope, T><<<1, 1>>>(word.get(), false, out);
        break;
      case 3:
        sequence_through_unknown_space<Scope, T><<<1, 1>>>(word.get(), true, out);
        break;
      default:
        sequence_through_unknown_space<Scope, T><<<1, 1>>>(host_word_on_device, false, out);
        break;
    }
    ASSERT_EQ(finish_device_work(), cudaSuccess);
    for (int i = 0; i < result_count; ++i) {
      EXPECT_EQ(out[i], expected[i]) << "kernel " << kernel << ", order " << i / results_per_order << ", result "
                                     << i % results_per_order;
    }
    cudaFree(out);
  }
  cudaFreeHost(host_word);
}

TEST(DeviceAtomic, EveryOperationAndOrderMatchesTheHost)
{
  UNISYNC_REQUIRE_GPU();
  expect_device_matches_host<cuda::thread_scope_device, std::uint64_t>();
  expect_device_matches_host<cuda::thread_scope_system, std::uint64_t>();
  expect_device_matches_host<cuda::thread_scope_device, std::int64_t>();
  expect_device_matches_host<cuda::thread_scope_system, std::int64_t>();
  expect_device_matches_host<cuda::thread_scope_block, std::uint64_t>();
  expect_device_matches_host<cuda::thread_scope_device, std::uint32_t>();
}

/// Each thread adds 1, subtracts 2 and adds 3 (net +2), increments a second word by
/// compare-exchange and exchanges a third, `rounds` times; and once ors its own bit into
/// a word of 64 threads' bits, noting whether the bit was already set.
template <cuda::thread_scope Scope>
__global__ void contend(std::uint64_t* words, int rounds)
{
  auto sum = unisync::detail::atomic_at<Scope>(words[0]);
  auto cas_count = unisync::detail::atomic_at<Scope>(words[16]);
  auto exchanged = unisync::detail::atomic_at<Scope>(words[32]);
  unsigned const actors = gridDim.x * blockDim.x;
  unsigned const me = blockIdx.x * blockDim.x + threadIdx.x;
  std::uint64_t* const taken_out = words + 64;                 // one per thread
  std::uint64_t* const bit_words = taken_out + actors;         // one per 64 threads
  std::uint64_t* const bit_was_set = bit_words + actors / 64;  // one per thread
  for (int r = 0; r < rounds; ++r) {
    sum.fetch_add(1, cuda::std::memory_order_relaxed);
    sum.fetch_sub(2, cuda::std::memory_order_acq_rel);
    sum.fetch_add(3, cuda::std::memory_order_release);
    std::uint64_t seen = cas_count.load(cuda::std::memory_order_relaxed);
    while (!cas_count.compare_exchange_strong(seen, seen + 1, cuda::std::memory_order_acq_rel,
                                              cuda::std::memory_order_relaxed)) {
    }
    // Exchanging in the thread's own number and taking the old one out conserves the sum
    // of all numbers in flight: the word's final value plus the sum of what was taken out.
    taken_out[me] += exchanged.exchange(me + 1, cuda::std::memory_order_acq_rel);
    taken_out[me] -= me + 1;
  }
  // Each bit is set once: a lost or would leave it clear, with no later round to repair it.
  std::uint64_t const bit = std::uint64_t{1} << (me % 64);
  bit_was_set[me] =
      unisync::detail::atomic_at<Scope>(bit_words[me / 64]).fetch_or(bit, cuda::std::memory_order_relaxed) & bit;
}

template <cuda::thread_scope Scope>
void expect_atomic_under_contention()
{
  int const blocks = multiprocessor_count();
  int const threads = 64;
  int const rounds = 50;
  int const actors = blocks * threads;
  int const word_count = 64 + 2 * actors + actors / 64;
  std::uint64_t* words = nullptr;
  ASSERT_EQ(cudaMallocManaged(&words, word_count * sizeof(std::uint64_t)), cudaSuccess);
  for (int i = 0; i < word_count; ++i) words[i] = 0;
  contend<Scope><<<blocks, threads>>>(words, rounds);
  ASSERT_EQ(finish_device_work(), cudaSuccess);
  std::uint64_t const operations = std::uint64_t(actors) * rounds;
  EXPECT_EQ(words[0], 2 * operations);
  EXPECT_EQ(words[16], operations);
  // Every exchange took out the value another put in (or the initial 0): what the threads
  // took out, minus what they put in, plus what is left, is 0.
  std::uint64_t balance = words[32];
  for (int i = 0; i < actors; ++i) balance += words[64 + i];
  EXPECT_EQ(balance, 0u);
  std::uint64_t const* bit_words = words + 64 + actors;
  std::uint64_t const* bit_was_set = bit_words + actors / 64;
  for (int i = 0; i < actors / 64; ++i) EXPECT_EQ(bit_words[i], ~std::uint64_t{0}) << "bit word " << i;
  for (int i = 0; i < actors; ++i) EXPECT_EQ(bit_was_set[i], 0u) << "thread " << i;
  cudaFree(words);
}

TEST(DeviceAtomic, GlobalFormsStayAtomicUnderContention)
{
  UNISYNC_REQUIRE_GPU();
  expect_atomic_under_contention<cuda::thread_scope_device>();
  expect_atomic_under_contention<cuda::thread_scope_system>();
}

}  // namespace
