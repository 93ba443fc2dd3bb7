// The machine's physical limits, after the seed paper's Table 1 and the latency plots it
// compares primitives against: dependent atomic latency per placement, the cost of
// contended and uncontended accesses per block, and ping-pong round trips between blocks
// (per scope and order) and between a CPU thread and a GPU thread (per placement). Each
// kernel times itself with the GPU's global timer; the figure is ns per operation or per
// round trip.

#include "../cases/cases.hpp"
#include "../mix/harness.hpp"

#include <unisync/detail/platform.hpp>
#include <unisync/managed.hpp>

#include <cuda/atomic>
#include <cuda_runtime_api.h>

#include <chrono>
#include <cstring>
#include <functional>
#include <string>
#include <thread>

namespace unisync::bench {
namespace {

using unisync::detail::monotonic_nanoseconds;

void report_ns_per_op(benchmark::State& state, double total_ns, double operations)
{
  state.SetIterationTime(total_ns * 1e-9);
  state.counters["ns_per_op"] = operations > 0 ? total_ns / operations : 0.0;
}

/// Allocation of `bytes` in one of the placements the limits are measured on.
class placed_buffer {
 public:
  placed_buffer(std::string const& place, std::size_t bytes)
  {
    cudaError_t status = cudaSuccess;
    if (place == "device") {
      status = cudaMalloc(&memory_, bytes);
      if (status == cudaSuccess) status = cudaMemset(memory_, 0, bytes);
    } else if (place == "pinned") {
      status = cudaHostAlloc(&memory_, bytes, cudaHostAllocMapped);
      pinned_ = true;
    } else {
      status = cudaMallocManaged(&memory_, bytes);
      if (status == cudaSuccess && place == "managed_host") {
        unisync::detail::advise_managed(memory_, bytes, unisync::memory_advice::prefer_host, 0);
      }
    }
    if (status != cudaSuccess) throw unisync::error(std::string("allocation failed: ") + cudaGetErrorString(status));
    if (place != "device") std::memset(memory_, 0, bytes);
  }
  ~placed_buffer() { pinned_ ? cudaFreeHost(memory_) : cudaFree(memory_); }
  placed_buffer(placed_buffer const&) = delete;
  placed_buffer& operator=(placed_buffer const&) = delete;
  template <class T>
  T* as() const
  {
    return static_cast<T*>(memory_);
  }

 private:
  void* memory_ = nullptr;
  bool pinned_ = false;
};

/// Runs `kernel_body(elapsed_ns_out)` as a kernel that reports its own elapsed time.
template <class Launch>
double timed_on_device(Launch launch)
{
  unsigned long long* elapsed = nullptr;
  cudaMallocManaged(&elapsed, sizeof(unsigned long long));
  *elapsed = 0;
  launch(elapsed);
  cudaError_t const status = cudaDeviceSynchronize();
  double const nanoseconds = double(*elapsed);
  cudaFree(elapsed);
  if (status != cudaSuccess) throw unisync::error(std::string("kernel failed: ") + cudaGetErrorString(status));
  return nanoseconds;
}

__global__ void dependent_atomics(unsigned* word, unsigned mask, int count, unsigned long long* elapsed)
{
  unsigned value = 0;
  unsigned long long const start = monotonic_nanoseconds();
  for (int i = 0; i < count; ++i) value = atomicAdd(word + (value & mask), 1u);
  *elapsed = monotonic_nanoseconds() - start + (value & mask);
}

enum class access_op { volatile_load, volatile_store, atomic_add, atomic_exch };

/// Every block's thread does `count` accesses, to one shared word (contended) or to a
/// line of its own (uncontended); block 0 reports the time it took.
__global__ void accesses(unsigned* words, access_op op, bool contended, unsigned mask, int count,
                         unsigned long long* elapsed)
{
  unsigned* const word = words + (contended ? 0 : blockIdx.x * 32);
  unsigned value = 0;
  unsigned long long const start = monotonic_nanoseconds();
  for (int i = 0; i < count; ++i) {
    switch (op) {
      case access_op::volatile_load:
        value += *static_cast<unsigned volatile*>(word + (value & mask));
        break;
      case access_op::volatile_store:
        *static_cast<unsigned volatile*>(word) = value + i;
        break;
      case access_op::atomic_add:
        value += atomicAdd(word + (value & mask), 1u);
        break;
      case access_op::atomic_exch:
        value += atomicExch(word + (value & mask), value);
        break;
    }
  }
  if (blockIdx.x == 0) *elapsed = monotonic_nanoseconds() - start + (value & mask);
}

template <cuda::thread_scope Scope>
__device__ void ping_pong_side(unsigned* flag, bool first, bool acquire_release, int rounds,
                               unsigned long long* elapsed)
{
  cuda::atomic_ref<unsigned, Scope> turn(*flag);
  auto const store_order = acquire_release ? cuda::std::memory_order_release : cuda::std::memory_order_relaxed;
  auto const load_order = acquire_release ? cuda::std::memory_order_acquire : cuda::std::memory_order_relaxed;
  unsigned long long const start = monotonic_nanoseconds();
  for (int round = 0; round < rounds; ++round) {
    unsigned const mine = 2 * round + (first ? 1 : 2);
    if (!first) {
      while (turn.load(load_order) != mine - 1) {
      }
    }
    turn.store(mine, store_order);
    if (first) {
      while (turn.load(load_order) != mine + 1) {
      }
    }
  }
  if (first) *elapsed = monotonic_nanoseconds() - start;
}

template <cuda::thread_scope Scope>
__global__ void block_ping_pong(unsigned* flag, bool acquire_release, int rounds, unsigned long long* elapsed)
{
  ping_pong_side<Scope>(flag, blockIdx.x == 0, acquire_release, rounds, elapsed);
}

__global__ void gpu_answers(unsigned* flag, int rounds)
{
  cuda::atomic_ref<unsigned, cuda::thread_scope_system> turn(*flag);
  for (int round = 0; round < rounds; ++round) {
    while (turn.load(cuda::std::memory_order_acquire) != 2u * round + 1) {
    }
    turn.store(2u * round + 2, cuda::std::memory_order_release);
  }
}

void measure(benchmark::State& state, std::function<double()> run_ns, double operations)
{
  try {
    for (auto _ : state) report_ns_per_op(state, run_ns(), operations);
  } catch (std::exception const& failure) {
    state.SkipWithError(failure.what());
  }
}

void declare(std::string const& name, std::function<double()> run_ns, double operations)
{
  register_case("machine/" + name,
                [run_ns, operations](benchmark::State& state) { measure(state, run_ns, operations); });
}

std::string access_name(access_op op)
{
  switch (op) {
    case access_op::volatile_load:
      return "volatile_load";
    case access_op::volatile_store:
      return "volatile_store";
    case access_op::atomic_add:
      return "atomic_add";
    case access_op::atomic_exch:
      return "atomic_exch";
  }
  return "?";
}

}  // namespace

void declare_machine_cases(case_set set)
{
  int multiprocessors = 0;
  cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, 0);
  int const count = set == case_set::full_set ? 20000 : 5000;

  for (std::string const place : {"device", "managed", "pinned"}) {
    declare("test:dependent_atomic/place:" + place, [place, count] {
      placed_buffer word(place, 256);
      return timed_on_device([&](unsigned long long* elapsed) {
        dependent_atomics<<<1, 1>>>(word.as<unsigned>(), 0u, count, elapsed);
      });
    }, count);
  }

  for (access_op op : {access_op::volatile_load, access_op::volatile_store, access_op::atomic_add,
                       access_op::atomic_exch}) {
    for (bool contended : {true, false}) {
      for (int blocks : {1, multiprocessors}) {
        if (blocks == 1 && !contended) continue;  // one block contends with nobody
        std::string const name = "test:access/op:" + access_name(op) +
                                 "/contention:" + (contended ? "contended" : "uncontended") +
                                 "/gpu:" + std::to_string(blocks) + "x1";
        declare(name, [op, contended, blocks, count] {
          placed_buffer words("device", std::size_t(blocks) * 32 * sizeof(unsigned));
          return timed_on_device([&](unsigned long long* elapsed) {
            accesses<<<blocks, 1>>>(words.as<unsigned>(), op, contended, 0u, count, elapsed);
          });
        }, count);
      }
    }
  }

  int const rounds = count / 4;
  struct block_variant {
    char const* order;
    char const* scope;
    bool acquire_release;
    bool system;
  };
  for (block_variant const variant : {block_variant{"relaxed", "device", false, false},
                                      block_variant{"acq_rel", "device", true, false},
                                      block_variant{"acq_rel", "system", true, true}}) {
    declare(std::string("test:ping_pong/between:block_block/order:") + variant.order + "/scope:" + variant.scope,
            [variant, rounds] {
              placed_buffer flag("device", 256);
              return timed_on_device([&](unsigned long long* elapsed) {
                if (variant.system) {
                  block_ping_pong<cuda::thread_scope_system>
                      <<<2, 1>>>(flag.as<unsigned>(), variant.acquire_release, rounds, elapsed);
                } else {
                  block_ping_pong<cuda::thread_scope_device>
                      <<<2, 1>>>(flag.as<unsigned>(), variant.acquire_release, rounds, elapsed);
                }
              });
            },
            rounds);
  }

  int const cpu_rounds = rounds / 5;
  for (std::string const place : {"pinned", "managed_host", "managed"}) {
    declare("test:ping_pong/between:cpu_gpu/place:" + place, [place, cpu_rounds] {
      placed_buffer flag(place, 4096);
      unsigned* const word = flag.as<unsigned>();
      gpu_answers<<<1, 1>>>(word, cpu_rounds);
      cuda::atomic_ref<unsigned, cuda::thread_scope_system> turn(*word);
      auto const start = std::chrono::steady_clock::now();
      auto const give_up = start + std::chrono::seconds(20);
      for (int round = 0; round < cpu_rounds; ++round) {
        turn.store(2u * round + 1, cuda::std::memory_order_release);
        while (turn.load(cuda::std::memory_order_acquire) != 2u * round + 2) {
          if (std::chrono::steady_clock::now() > give_up) {
            throw unisync::error("the GPU side of the ping-pong did not answer within 20 s");
          }
        }
      }
      double const nanoseconds =
          std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count();
      if (cudaError_t const status = cudaDeviceSynchronize(); status != cudaSuccess) {
        throw unisync::error(std::string("kernel failed: ") + cudaGetErrorString(status));
      }
      return nanoseconds;
    }, cpu_rounds);
  }
}

}  // namespace unisync::bench
