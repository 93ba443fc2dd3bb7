// One GPU thread's shared_mutex (device scope) reader and writer paths, built
// against two header trees (old: generic 64-bit atomics; new: global-space ones).
#include <unisync/shared_mutex.hpp>
#include <unisync/counting_semaphore.hpp>
#include <unisync/ticket_mutex.hpp>
#include <unisync/managed.hpp>
#include <cstdio>
using u64 = unsigned long long;
using smx = unisync::basic_shared_mutex<cuda::thread_scope_device>;
using sem = unisync::basic_counting_semaphore<cuda::thread_scope_device, 1>;
using tkt = unisync::basic_ticket_mutex<cuda::thread_scope_device>;
struct reads { __device__ static void op(smx* m, int) { m->lock_shared(); m->unlock_shared(); } };
struct writes { __device__ static void op(smx* m, int) { m->lock(); m->unlock(); } };
struct mix90 { __device__ static void op(smx* m, int i) { if (i % 10 == 9) { m->lock(); m->unlock(); } else { m->lock_shared(); m->unlock_shared(); } } };
struct sem_pair { __device__ static void op(sem* s, int) { s->acquire(); s->release(); } };
struct tkt_pair { __device__ static void op(tkt* s, int) { s->lock(); s->unlock(); } };
template <class V, class T> __global__ void loop(T* o, int n, u64* ns) {
  u64 t0; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  for (int i = 0; i < n; ++i) V::op(o, i);
  u64 t1; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
  *ns = t1 - t0;
}
template <class V, class T> void measure(char const* name, unisync::managed_ptr<T> const& o) {
  u64* ns; cudaMallocManaged(&ns, 8);
  double best = 1e30;
  for (int r = 0; r < 5; ++r) { loop<V><<<1, 1>>>(o.get(), 100000, ns); cudaDeviceSynchronize(); best = std::min(best, *ns / 1e5); }
  std::printf("%-22s %7.1f ns/op\n", name, best);
  cudaFree(ns);
}
int main() {
  auto m = unisync::make_managed<smx>();
  auto s = unisync::make_managed<sem>(1);
  auto t = unisync::make_managed<tkt>();
  measure<reads>("shared_mutex reads", m);
  measure<writes>("shared_mutex writes", m);
  measure<mix90>("shared_mutex 90% reads", m);
  measure<sem_pair>("semaphore pair", s);
  measure<tkt_pair>("ticket_mutex pair", t);
}
