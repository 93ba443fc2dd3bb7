// Probe for issue 18's fair GPU lock: GPU blocks alone (one thread each) lock, add one to
// a counter the lock protects and unlock, for a fixed window, at device scope. Compares
// basic_ticket_mutex<device> with libcu++'s binary_semaphore<device> (unfair) and with a
// partitioned ticket lock (waiters poll one of L grant lines, by ticket modulo L), in
// interleaved rounds. Not built by the project:
//   nvcc -O3 -std=c++17 -arch=sm_90 -I../../../include fair_lock_probe.cu -o fair_lock_probe
//   ./fair_lock_probe [window_ms] [rounds] [managed]
// "managed": the lock and the counter in managed memory advised for the GPU (as
// make_managed places a device-scope lock), else device memory.
#include <unisync/backoff.hpp>
#include <unisync/ticket_mutex.hpp>

#include <cuda/atomic>
#include <cuda/semaphore>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

__device__ unsigned long long global_ns()
{
  unsigned long long t;
  asm volatile("mov.u64 %0, %globaltimer;" : "=l"(t));
  return t;
}

/// Sleeps about one handoff (256 ns) per ticket ahead beyond the first, at most 256 us.
__device__ void sleep_behind(long long tickets_ahead)
{
  long long const ns = (tickets_ahead - 1) * 256;
  __nanosleep(static_cast<unsigned>(ns > 256000 ? 256000 : ns));
}

/// Takes a ticket and waits until `served` reaches it (the retake locks' queue).
__device__ unsigned long long queue_for_turn(unsigned long long& taken, unsigned long long& served)
{
  unsigned long long const ticket =
      cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(taken).fetch_add(1, cuda::memory_order_relaxed);
  cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> serving(served);
  for (;;) {
    unsigned long long const now = serving.load(cuda::memory_order_relaxed);
    if (now == ticket) return ticket;
    long long const ahead = static_cast<long long>(ticket - now);
    if (ahead > 1) sleep_behind(ahead);
  }
}

struct libcudacxx_lock {
  cuda::binary_semaphore<cuda::thread_scope_device> semaphore{1};
  __device__ void lock() { semaphore.acquire(); }
  __device__ void unlock() { semaphore.release(); }
};

/// FIFO: ticket t waits until grants[t % L] holds t; the holder of t stores t + 1 into
/// grants[(t + 1) % L]. Waiters further back sleep in proportion to their distance.
template <unsigned Lines>
struct partitioned_ticket_lock {
  struct alignas(128) line {
    unsigned long long grant;
  };
  alignas(128) unsigned long long taken = 0;
  line grants[Lines] = {};
  unsigned long long holder = 0;

  __device__ void lock()
  {
    unsigned long long const ticket =
        cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(taken).fetch_add(1, cuda::memory_order_relaxed);
    cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> grant(grants[ticket % Lines].grant);
    for (;;) {
      unsigned long long const now = grant.load(cuda::memory_order_acquire);
      if (now == ticket) break;
      // Distance from the ticket this line last granted: about (ticket - now) / Lines handoffs
      // of this line, Lines handoffs each.
      long long const ahead = static_cast<long long>(ticket - now);
      if (ahead > static_cast<long long>(Lines)) sleep_behind(ahead);
    }
    holder = ticket;
  }
  __device__ void unlock()
  {
    unsigned long long const next = holder + 1;
    cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(grants[next % Lines].grant)
        .store(next, cuda::memory_order_release);
  }
};

/// Bounded bypass: a FIFO ticket queue for the right to take the lock word, and the thread
/// that released it last taking it back without a ticket up to Streak - 1 times in a row
/// (then it queues). The queue's head takes the word by compare-exchange, racing only the
/// last holder; it serves the next ticket once it holds the word, and sleeps HeadPollNs
/// between its polls of the word (0: polls at once).
template <unsigned Streak, unsigned HeadPollNs = 0>
struct retake_lock {
  alignas(128) unsigned long long taken = 0;
  alignas(128) unsigned long long served = 0;
  alignas(128) unsigned word = 1;            // 1: free
  alignas(128) unsigned streaks[1024] = {};  // per block: sections in a row, 0 when queued

  __device__ void lock()
  {
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> free_word(word);
    unsigned& streak = streaks[blockIdx.x];
    if (streak != 0 && streak < Streak) {
      unsigned expected = 1;
      if (free_word.compare_exchange_strong(expected, 0, cuda::memory_order_acquire, cuda::memory_order_relaxed)) {
        ++streak;
        return;
      }
    }
    unsigned long long const ticket = queue_for_turn(taken, served);
    for (;;) {
      unsigned expected = 1;
      if (free_word.load(cuda::memory_order_relaxed) == 1 &&
          free_word.compare_exchange_strong(expected, 0, cuda::memory_order_acquire, cuda::memory_order_relaxed)) {
        break;
      }
      if (HeadPollNs != 0) __nanosleep(HeadPollNs);
    }
    cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(served).store(ticket + 1,
                                                                                  cuda::memory_order_relaxed);
    streak = 1;
  }
  __device__ void unlock()
  {
    cuda::atomic_ref<unsigned, cuda::thread_scope_device>(word).store(1, cuda::memory_order_release);
  }
};

/// Bounded bypass with the retake in one atomic: the lock word holds a held bit, the last
/// holder (block index + 1) and its streak. lock() first sets the held bit (fetch_or):
/// finding the word free and itself the last holder below its bound it holds the lock
/// again (and stores its streak); finding it free otherwise it clears the bit again and
/// queues. The queue's head takes the free word by compare-exchange and serves the next
/// ticket; unlock() clears the held bit (a reduction).
template <unsigned Streak>
struct marked_retake_lock {
  static constexpr unsigned held = 1u << 31;
  static constexpr unsigned streak_one = 1u << 24;
  static constexpr unsigned holder_mask = streak_one - 1;
  alignas(128) unsigned long long taken = 0;
  alignas(128) unsigned long long served = 0;
  alignas(128) unsigned word = 0;

  __device__ void lock()
  {
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> lock_word(word);
    unsigned const me = blockIdx.x + 1;
    unsigned const old = lock_word.fetch_or(held, cuda::memory_order_acquire);
    if ((old & held) == 0) {
      unsigned const streak = (old & ~held) >> 24;
      if ((old & holder_mask) == me && streak + 1 < Streak) {
        lock_word.store(held | ((streak + 1) << 24) | me, cuda::memory_order_relaxed);
        return;
      }
      lock_word.fetch_and(~held, cuda::memory_order_relaxed);
    }
    unsigned long long const ticket = queue_for_turn(taken, served);
    for (;;) {
      unsigned seen = lock_word.load(cuda::memory_order_relaxed);
      if ((seen & held) == 0 &&
          lock_word.compare_exchange_strong(seen, held | me, cuda::memory_order_acquire, cuda::memory_order_relaxed)) {
        break;
      }
    }
    cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(served).store(ticket + 1,
                                                                                  cuda::memory_order_relaxed);
  }
  __device__ void unlock()
  {
    cuda::atomic_ref<unsigned, cuda::thread_scope_device>(word).fetch_and(~held, cuda::memory_order_release);
  }
};

template <unsigned Lines>
void init_lock(partitioned_ticket_lock<Lines>* lock)
{
  partitioned_ticket_lock<Lines> host;
  for (unsigned i = 0; i < Lines; ++i) host.grants[i].grant = i == 0 ? 0 : ~0ull;
  cudaMemcpy(lock, &host, sizeof(host), cudaMemcpyHostToDevice);
}
template <class Lock>
void init_lock(Lock* lock)
{
  Lock host;
  cudaMemcpy(lock, &host, sizeof(host), cudaMemcpyHostToDevice);
}

struct alignas(128) shared_counter {
  unsigned long long value;
};

template <class Lock>
__global__ void contend(Lock* lock, shared_counter* counter, unsigned long long window_ns, unsigned long long* sections,
                        unsigned long long* longest_wait_ns)
{
  unsigned long long const end = global_ns() + window_ns;
  unsigned long long mine = 0;
  unsigned long long longest = 0;
  for (;;) {
    unsigned long long const before = global_ns();
    if (before >= end) break;
    lock->lock();
    unsigned long long const waited = global_ns() - before;
    counter->value += 1;
    lock->unlock();
    longest = waited > longest ? waited : longest;
    ++mine;
  }
  sections[blockIdx.x] = mine;
  longest_wait_ns[blockIdx.x] = longest;
}

bool use_managed = false;

template <class T>
void allocate(T** where)
{
  if (!use_managed) {
    cudaMalloc(where, sizeof(T));
    return;
  }
  cudaMallocManaged(where, sizeof(T));
  cudaMemAdvise(*where, sizeof(T), cudaMemAdviseSetPreferredLocation, cudaMemLocation{cudaMemLocationTypeDevice, 0});
  cudaMemPrefetchAsync(*where, sizeof(T), cudaMemLocation{cudaMemLocationTypeDevice, 0}, 0);
}

template <class Lock>
void run(char const* name, unsigned blocks, unsigned long long window_ns)
{
  Lock* lock;
  shared_counter* counter;
  unsigned long long *sections, *longest;
  allocate(&lock);
  allocate(&counter);
  cudaMalloc(&sections, blocks * sizeof(unsigned long long));
  cudaMalloc(&longest, blocks * sizeof(unsigned long long));
  init_lock(lock);
  cudaMemset(counter, 0, sizeof(shared_counter));
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  cudaEventRecord(start);
  contend<<<blocks, 1>>>(lock, counter, window_ns, sections, longest);
  cudaEventRecord(stop);
  cudaError_t const status = cudaDeviceSynchronize();
  if (status != cudaSuccess) {
    std::printf("%s: %s\n", name, cudaGetErrorString(status));
    std::exit(1);
  }
  float ms = 0;
  cudaEventElapsedTime(&ms, start, stop);
  std::vector<unsigned long long> per_block(blocks), waits(blocks);
  cudaMemcpy(per_block.data(), sections, blocks * sizeof(unsigned long long), cudaMemcpyDeviceToHost);
  cudaMemcpy(waits.data(), longest, blocks * sizeof(unsigned long long), cudaMemcpyDeviceToHost);
  shared_counter total_counted;
  cudaMemcpy(&total_counted, counter, sizeof(total_counted), cudaMemcpyDeviceToHost);
  unsigned long long total = 0, longest_wait = 0;
  double sum = 0, sum_squares = 0;
  for (unsigned b = 0; b < blocks; ++b) {
    total += per_block[b];
    longest_wait = waits[b] > longest_wait ? waits[b] : longest_wait;
    sum += double(per_block[b]);
    sum_squares += double(per_block[b]) * double(per_block[b]);
  }
  double const jain = sum_squares > 0 ? sum * sum / (blocks * sum_squares) : 0;
  std::printf("%-28s blocks %4u  sections/s %.3e  longest wait %8.3f ms  jain %.3f  %s\n", name, blocks,
              double(total) / (ms * 1e-3), longest_wait * 1e-6, jain,
              total_counted.value == total ? "counter ok" : "COUNTER LOST UPDATES");
  cudaFree(lock);
  cudaFree(counter);
  cudaFree(sections);
  cudaFree(longest);
}

}  // namespace

int main(int argc, char** argv)
{
  double const window_ms = argc > 1 ? std::atof(argv[1]) : 200;
  int const rounds = argc > 2 ? std::atoi(argv[2]) : 3;
  use_managed = argc > 3 && std::string(argv[3]) == "managed";
  auto const window_ns = static_cast<unsigned long long>(window_ms * 1e6);
  for (int round = 0; round < rounds; ++round) {
    std::printf("round %d\n", round);
    for (unsigned blocks : {1u, 8u, 132u, 528u}) {
      run<unisync::basic_ticket_mutex<cuda::thread_scope_device>>("unisync.ticket_mutex", blocks, window_ns);
      run<unisync::basic_ticket_mutex<cuda::thread_scope_device, unisync::no_backoff>>("unisync.spin_ticket_mutex",
                                                                                       blocks, window_ns);
      run<libcudacxx_lock>("cuda.binary_semaphore", blocks, window_ns);
      run<partitioned_ticket_lock<1>>("partitioned_ticket.1", blocks, window_ns);
      run<partitioned_ticket_lock<4>>("partitioned_ticket.4", blocks, window_ns);
      run<partitioned_ticket_lock<16>>("partitioned_ticket.16", blocks, window_ns);
      run<partitioned_ticket_lock<64>>("partitioned_ticket.64", blocks, window_ns);
      run<retake_lock<4>>("retake.4", blocks, window_ns);
      run<retake_lock<16>>("retake.16", blocks, window_ns);
      run<retake_lock<64>>("retake.64", blocks, window_ns);
      run<retake_lock<4, 512>>("retake.4.head_sleeps_512", blocks, window_ns);
      run<retake_lock<16, 512>>("retake.16.head_sleeps_512", blocks, window_ns);
      run<retake_lock<16, 2048>>("retake.16.head_sleeps_2048", blocks, window_ns);
      run<marked_retake_lock<4>>("marked_retake.4", blocks, window_ns);
      run<marked_retake_lock<8>>("marked_retake.8", blocks, window_ns);
      run<marked_retake_lock<16>>("marked_retake.16", blocks, window_ns);
      run<marked_retake_lock<64>>("marked_retake.64", blocks, window_ns);
    }
  }
  return 0;
}
