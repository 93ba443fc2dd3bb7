// Probe: how a ticket waiter on the GPU should wait near its turn. GPU blocks alone (one
// thread each) take and give back basic_ticket_mutex<device> and
// basic_counting_semaphore<device|system, 1> for a fixed window, the waiting policy's
// tuning varied: `device_spin_threshold_ns` (a waiter whose forecast is at most this polls
// again at once) and `ticket_handoff_ns` (the forecast per ticket ahead, slept above the
// threshold). Every variant runs at the same eight addresses in one managed buffer, so that
// where the object's line lands in L2 (up to 1.5x between allocations) is the same for
// all. Not built by the project:
//   nvcc -O3 -std=c++17 -arch=sm_90 -I../../../include wait_probe.cu -o wait_probe
//   ./wait_probe [window_ms] [rounds] [empty]
// "empty": semaphores only, sections that touch no counter (as the contention binary's
// semaphore cases), else every section adds one to a counter the lock protects.
#include <unisync/backoff.hpp>
#include <unisync/counting_semaphore.hpp>
#include <unisync/ticket_mutex.hpp>

#include <cuda/semaphore>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <string>
#include <vector>

namespace {

template <cuda::std::uint32_t Spin, cuda::std::uint32_t Handoff>
struct wait_tuning : unisync::tuning {
  static constexpr cuda::std::uint32_t device_spin_threshold_ns = Spin;
  static constexpr cuda::std::uint32_t ticket_handoff_ns = Handoff;
};
template <cuda::std::uint32_t Spin, cuda::std::uint32_t Handoff>
using backoff = unisync::basic_proportional_backoff<wait_tuning<Spin, Handoff>>;

template <class Mutex>
struct as_lock {
  Mutex mutex;
  __device__ void lock() { mutex.lock(); }
  __device__ void unlock() { mutex.unlock(); }
};
template <class Semaphore>
struct semaphore_lock {
  Semaphore semaphore{1};
  __device__ void lock() { semaphore.acquire(); }
  __device__ void unlock() { semaphore.release(); }
};

__device__ unsigned long long global_ns()
{
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

template <class Lock, bool Counted>
__global__ void contend(Lock* lock, unsigned long long* counter, unsigned long long window_ns,
                        unsigned long long* sections, unsigned long long* longest_wait_ns)
{
  // One clock read per section, outside it: the time from one unlock to the next is this
  // thread's wait plus its own section (an upper bound of the wait).
  unsigned long long const end = global_ns() + window_ns;
  unsigned long long mine = 0, longest = 0;
  unsigned long long before = global_ns();
  while (before < end) {
    lock->lock();
    if constexpr (Counted) *counter += 1;
    lock->unlock();
    unsigned long long const after = global_ns();
    longest = after - before > longest ? after - before : longest;
    before = after;
    ++mine;
  }
  sections[blockIdx.x] = mine;
  longest_wait_ns[blockIdx.x] = longest;
}

constexpr unsigned placements = 8;
constexpr std::size_t placement_stride = 1152;  // 9 lines: each placement on other L2 lines
char* arena = nullptr;                          // managed, unadvised, as make_managed gives it
unsigned long long* counter = nullptr;          // a page of its own, as in the contention cases
unsigned long long *sections = nullptr, *longest = nullptr;

struct result {
  double sections_per_s;
  double longest_ms;
};

template <class Lock, bool Counted>
result run_once(unsigned blocks, unsigned placement, unsigned long long window_ns)
{
  Lock* lock = new (arena + placement * placement_stride) Lock();
  *counter = 0;
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  cudaEventRecord(start);
  contend<Lock, Counted><<<blocks, 1>>>(lock, counter, window_ns, sections, longest);
  cudaEventRecord(stop);
  if (cudaError_t const status = cudaDeviceSynchronize(); status != cudaSuccess) {
    std::printf("error: %s\n", cudaGetErrorString(status));
    std::exit(1);
  }
  float ms = 0;
  cudaEventElapsedTime(&ms, start, stop);
  unsigned long long total = 0, wait = 0;
  for (unsigned b = 0; b < blocks; ++b) {
    total += sections[b];
    wait = std::max(wait, longest[b]);
  }
  if (Counted && *counter != total) {
    std::printf("error: counter %llu against %llu sections\n", *counter, total);
    std::exit(1);
  }
  lock->~Lock();
  return {double(total) / (ms * 1e-3), wait * 1e-6};
}

template <class Lock, bool Counted = true>
void run(char const* name, unsigned blocks, unsigned long long window_ns)
{
  std::vector<double> rates;
  double wait = 0;
  for (unsigned placement = 0; placement < placements; ++placement) {
    result const r = run_once<Lock, Counted>(blocks, placement, window_ns);
    rates.push_back(r.sections_per_s);
    wait = std::max(wait, r.longest_ms);
  }
  std::printf("%-26s blocks %4u  per placement", name, blocks);
  for (double rate : rates) std::printf(" %.3e", rate);
  std::sort(rates.begin(), rates.end());
  std::printf("  median %.3e  longest wait %.3f ms\n", (rates[3] + rates[4]) / 2, wait);
}

template <cuda::thread_scope Scope, cuda::std::uint32_t Spin, cuda::std::uint32_t Handoff>
using ticket = as_lock<unisync::basic_ticket_mutex<Scope, backoff<Spin, Handoff>>>;
template <cuda::thread_scope Scope, cuda::std::uint32_t Spin, cuda::std::uint32_t Handoff>
using semaphore = semaphore_lock<unisync::basic_counting_semaphore<Scope, 1, backoff<Spin, Handoff>>>;

}  // namespace

int main(int argc, char** argv)
{
  double const window_ms = argc > 1 ? std::atof(argv[1]) : 50;
  int const rounds = argc > 2 ? std::atoi(argv[2]) : 1;
  bool const empty_sections = argc > 3 && std::string(argv[3]) == "empty";
  auto const window_ns = static_cast<unsigned long long>(window_ms * 1e6);
  cudaMallocManaged(&arena, 1 << 16);
  cudaMallocManaged(&counter, 4096);
  cudaMallocManaged(&sections, 1024 * sizeof(unsigned long long));
  cudaMallocManaged(&longest, 1024 * sizeof(unsigned long long));
  constexpr auto device = cuda::thread_scope_device;
  constexpr auto system = cuda::thread_scope_system;
  for (int round = 0; round < rounds; ++round) {
    std::printf("round %d\n", round);
    for (unsigned blocks : {8u, 33u, 132u, 264u, 528u}) {
#define VARIANTS(KIND, SCOPE)                                                   \
  run<KIND<SCOPE, 256, 256>>(#KIND "." #SCOPE ".s256_h256", blocks, window_ns); \
  run<KIND<SCOPE, 256, 128>>(#KIND "." #SCOPE ".s256_h128", blocks, window_ns); \
  run<KIND<SCOPE, 512, 128>>(#KIND "." #SCOPE ".s512_h128", blocks, window_ns); \
  run<KIND<SCOPE, 512, 256>>(#KIND "." #SCOPE ".s512_h256", blocks, window_ns); \
  run<KIND<SCOPE, 128, 64>>(#KIND "." #SCOPE ".s128_h64", blocks, window_ns);   \
  run<KIND<SCOPE, 1024, 256>>(#KIND "." #SCOPE ".s1024_h256", blocks, window_ns);
      if (empty_sections) {
        run<semaphore<device, 256, 256>, false>("empty.device.s256_h256", blocks, window_ns);
        run<semaphore<device, 256, 128>, false>("empty.device.s256_h128", blocks, window_ns);
        run<semaphore<device, 512, 256>, false>("empty.device.s512_h256", blocks, window_ns);
        run<semaphore<device, 128, 64>, false>("empty.device.s128_h64", blocks, window_ns);
        run<semaphore<system, 256, 256>, false>("empty.system.s256_h256", blocks, window_ns);
        run<semaphore<system, 256, 128>, false>("empty.system.s256_h128", blocks, window_ns);
        run<semaphore_lock<cuda::counting_semaphore<device, 1>>, false>("empty.cuda.device", blocks, window_ns);
        continue;
      }
      VARIANTS(ticket, device)
      VARIANTS(semaphore, device)
      VARIANTS(semaphore, system)
      run<semaphore_lock<cuda::binary_semaphore<device>>>("cuda.binary_semaphore.device", blocks, window_ns);
      run<semaphore_lock<cuda::binary_semaphore<system>>>("cuda.binary_semaphore.system", blocks, window_ns);
    }
  }
  return 0;
}
