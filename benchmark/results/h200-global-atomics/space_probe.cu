// Generic-address atomics (cuda::atomic_ref) against global-state-space PTX atomics
// for a ticket semaphore's acquire+release pair, one GPU thread and 132 x 1.
#include <unisync/counting_semaphore.hpp>
#include <cuda/atomic>
#include <cuda/semaphore>
#include <cstdio>
#include <cstdint>
#include <new>
using u64 = unsigned long long;
using u32 = unsigned;
constexpr auto dev = cuda::thread_scope_device;
constexpr auto sys = cuda::thread_scope_system;
using cuda::std::memory_order_relaxed; using cuda::std::memory_order_acquire; using cuda::std::memory_order_release;

struct alignas(256) words { u64 taken; u64 pad0[15]; u64 granted; u64 pad1[15]; };
struct alignas(256) words32 { u32 taken; u32 pad0[31]; u32 granted; u32 pad1[31]; };

__device__ __forceinline__ size_t g(void const* p) { return __cvta_generic_to_global(p); }
#define DEF(SC) \
__device__ __forceinline__ u64 atom_add_relaxed_##SC(u64* p, u64 v) { u64 r; asm volatile("atom.relaxed." #SC ".global.add.u64 %0, [%1], %2;" : "=l"(r) : "l"(g(p)), "l"(v) : "memory"); return r; } \
__device__ __forceinline__ void red_add_release_##SC(u64* p, u64 v) { asm volatile("red.release." #SC ".global.add.u64 [%0], %1;" :: "l"(g(p)), "l"(v) : "memory"); } \
__device__ __forceinline__ u64 ld_acquire_##SC(u64* p) { u64 r; asm volatile("ld.acquire." #SC ".global.u64 %0, [%1];" : "=l"(r) : "l"(g(p)) : "memory"); return r; }
DEF(gpu)
DEF(sys)

template <cuda::thread_scope S, bool GlobalAtom, bool GlobalRed, bool Checked = false>
struct variant { __device__ static void pair(words* w) {
  bool const global = !Checked || __isGlobal(w);
  u64 my;
  if (GlobalAtom && global) my = S == dev ? atom_add_relaxed_gpu(&w->taken, 1) : atom_add_relaxed_sys(&w->taken, 1);
  else my = cuda::atomic_ref<u64, S>(w->taken).fetch_add(1, memory_order_relaxed);
  for (;;) {
    u64 gr = (GlobalAtom && global) ? (S == dev ? ld_acquire_gpu(&w->granted) : ld_acquire_sys(&w->granted))
                                    : cuda::atomic_ref<u64, S>(w->granted).load(memory_order_acquire);
    if ((long long)(gr - my) > 0) break;
    __nanosleep(32);
  }
  if (GlobalRed && global) { if (S == dev) red_add_release_gpu(&w->granted, 1); else red_add_release_sys(&w->granted, 1); }
  else cuda::atomic_ref<u64, S>(w->granted).fetch_add(1, memory_order_release);
} };
struct generic32 { __device__ static void pair(words32* w) {
  u32 my = cuda::atomic_ref<u32, dev>(w->taken).fetch_add(1, memory_order_relaxed);
  while ((int)(cuda::atomic_ref<u32, dev>(w->granted).load(memory_order_acquire) - my) <= 0) __nanosleep(32);
  cuda::atomic_ref<u32, dev>(w->granted).fetch_add(1, memory_order_release); } };

template <class S> struct real { __device__ static void pair(S* s) { s->acquire(); s->release(); } };

template <class V, class T>
__global__ void loop(T* object, int n, u64* ns) {
  if (threadIdx.x) return;
  u64 t0; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  for (int i = 0; i < n; ++i) V::pair(object);
  u64 t1; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
  atomicAdd(ns, t1 - t0);
}

template <class V, class T, class Make>
void measure(char const* name, Make make) {
  for (int blocks : {1, 132}) {
    double best = 1e30;
    for (int rep = 0; rep < 3; ++rep) {
      T* object; cudaMallocManaged(&object, sizeof(T)); make(object);
      u64* ns; cudaMallocManaged(&ns, sizeof(u64)); *ns = 0;
      int n = blocks == 1 ? 200000 : 3000;
      loop<V><<<blocks, 32>>>(object, 100, ns); cudaDeviceSynchronize();
      make(object); *ns = 0;
      cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
      cudaEventRecord(a);
      loop<V><<<blocks, 32>>>(object, n, ns);
      cudaEventRecord(b);
      cudaError_t e = cudaDeviceSynchronize();
      if (e != cudaSuccess) { std::printf("%s: %s\n", name, cudaGetErrorString(e)); return; }
      float ms; cudaEventElapsedTime(&ms, a, b);
      double per = blocks == 1 ? double(*ns) / n : ms * 1e6 / (double(n) * blocks);  // ns per pair
      if (per < best) best = per;
      cudaFree(object); cudaFree(ns);
    }
    std::printf("%-34s blocks %3d: %7.1f ns/pair  %.3g pairs/s\n", name, blocks, best, 1e9 / best);
  }
}

int main() {
  auto zero = [](words* w) { new (w) words{}; w->granted = 1; };
  auto zero32 = [](words32* w) { new (w) words32{}; w->granted = 1; };
  using ours_dev = unisync::basic_counting_semaphore<dev, 1>;
  using ours_sys = unisync::basic_counting_semaphore<sys, 1>;
  using cu_dev = cuda::counting_semaphore<dev, 1>;
  using cu_sys = cuda::counting_semaphore<sys, 1>;
  measure<real<ours_dev>, ours_dev>("unisync device N1", [](ours_dev* s) { new (s) ours_dev(1); });
  measure<real<cu_dev>, cu_dev>("cuda device N1", [](cu_dev* s) { new (s) cu_dev(1); });
  measure<real<ours_sys>, ours_sys>("unisync system N1", [](ours_sys* s) { new (s) ours_sys(1); });
  measure<real<cu_sys>, cu_sys>("cuda system N1", [](cu_sys* s) { new (s) cu_sys(1); });
  measure<variant<dev, false, false>, words>("gpu generic atom, generic release", zero);
  measure<variant<dev, true, false>, words>("gpu global atom, generic release", zero);
  measure<variant<dev, false, true>, words>("gpu generic atom, global red", zero);
  measure<variant<dev, true, true>, words>("gpu global atom, global red", zero);
  measure<variant<dev, true, true, true>, words>("gpu global both, isGlobal check", zero);
  measure<variant<sys, false, false>, words>("sys generic atom, generic release", zero);
  measure<variant<sys, true, true>, words>("sys global atom, global red", zero);
  measure<variant<sys, true, true, true>, words>("sys global both, isGlobal check", zero);
  measure<generic32, words32>("gpu generic 32-bit", zero32);
}
