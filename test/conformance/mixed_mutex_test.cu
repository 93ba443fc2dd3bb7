// The mutex types against [thread.mutex.requirements] and [thread.timedmutex.requirements]
// with CPU and GPU threads on one object from make_managed, and the lock wrappers and
// algorithms ([thread.lock.guard], [thread.lock.unique], [thread.lock.scoped],
// [thread.lock.algorithm]) on the device. Host waits are bounded; a
// kernel that hangs is caught by the kernel deadline (gpu.hpp). Exclusion under contention
// is test/mixed/lock_test.cu's; this file holds the clauses' other guarantees.

#include "bounded.hpp"
#include "device_actors.cuh"
#include "flags.hpp"
#include "gpu.hpp"
#include "lockables.hpp"
#include "mixed.hpp"

#include <unisync/detail/atomic.hpp>
#include <unisync/lock_guard.hpp>
#include <unisync/managed.hpp>
#include <unisync/scoped_lock.hpp>
#include <unisync/unique_lock.hpp>

#include <cuda/std/chrono>
#include <cuda/std/cstdint>
#include <cuda/std/memory>
#include <cuda/std/utility>
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <thread>

namespace {

using namespace unisync::test;
using namespace std::chrono_literals;
using cuda::std::uint32_t;

/// What the two sides hand each other, in managed memory.
struct play {
  uint32_t host_raised = 0;  // the host's step: 1, 2, ...
  uint32_t gpu_raised = 0;   // the GPU's step
  uint32_t data = 0;         // written under the lock only, with plain stores
  uint32_t seen = 0;         // the data as the other side's holder read it
  uint32_t flag_failures = 0;
};

/// Shares a managed object with host threads without taking it over.
template <class T>
std::shared_ptr<T> borrowed(T* object)
{
  return std::shared_ptr<T>(object, [](T*) {});
}

template <class Mutex>
__global__ void lock_then_read_and_write(Mutex* lock, play* shared)
{
  raise_flag(shared->gpu_raised, 1);
  lock->lock();
  raise_flag(shared->gpu_raised, 2);  // inside: the host checks that this comes after its unlock
  shared->seen = shared->data;
  shared->data = 43;
  lock->unlock();
}

template <class Mutex>
__global__ void write_under_the_lock_when_told(Mutex* lock, play* shared)
{
  lock->lock();
  raise_flag(shared->gpu_raised, 1);
  if (!await_flag(shared->host_raised, 1, shared->flag_failures)) {
    lock->unlock();
    return;
  }
  shared->data = 42;
  lock->unlock();
}

template <class Mutex>
class ConformanceMixedMutex : public ::testing::Test {};
using mixed_mutex_types = ::testing::Types<unisync::mutex, unisync::ticket_mutex, unisync::cohort_mutex>;
TYPED_TEST_SUITE(ConformanceMixedMutex, mixed_mutex_types, type_names);

// [thread.mutex.requirements.mutex] lock: "Blocks the calling thread until ownership of the
// mutex can be obtained"; "Prior unlock() operations on the same object synchronize with
// this operation": a GPU thread's lock() waits while a CPU thread holds the mutex, and then
// sees what the CPU thread wrote before unlock(); the CPU's next lock() sees the GPU's write.
TYPED_TEST(ConformanceMixedMutex, HostUnlockSynchronizesWithTheDeviceLockThatFollows)
{
  UNISYNC_REQUIRE_GPU();
  auto lock = unisync::make_managed<TypeParam>();
  auto shared = unisync::make_managed<play>();
  lock->lock();
  lock_then_read_and_write<<<1, 1>>>(lock.get(), shared.get());
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  bool const waiting = host_sees(shared->gpu_raised, 1);
  std::this_thread::sleep_for(20ms);  // time for a broken lock() to return
  bool const entered_early = load_flag(shared->gpu_raised) >= 2;
  shared->data = 42;
  lock->unlock();
  ASSERT_EQ(finish_device_work(), cudaSuccess);
  EXPECT_TRUE(waiting);
  EXPECT_FALSE(entered_early) << "the GPU's lock() returned while the CPU held the mutex";
  EXPECT_EQ(shared->seen, 42u) << "the CPU's write before unlock() is not visible after the GPU's lock()";
  lock->lock();
  EXPECT_EQ(shared->data, 43u) << "the GPU's write before unlock() is not visible after the CPU's lock()";
  lock->unlock();
}

// The same the other way, with try_lock: a CPU thread's try_lock() on a mutex a GPU thread
// holds fails without blocking ("attempts to obtain ownership ... without blocking"), its
// lock() waits for the GPU's unlock(), and sees what the GPU wrote before it.
TYPED_TEST(ConformanceMixedMutex, DeviceUnlockSynchronizesWithTheHostLockThatFollows)
{
  UNISYNC_REQUIRE_GPU();
  auto lock = unisync::make_managed<TypeParam>();
  auto shared = unisync::make_managed<play>();
  write_under_the_lock_when_told<<<1, 1>>>(lock.get(), shared.get());
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  bool const held = host_sees(shared->gpu_raised, 1);
  auto const raw_lock = borrowed(lock.get());
  auto const raw_shared = borrowed(shared.get());
  bounded_thread trier([raw_lock] { EXPECT_FALSE(raw_lock->try_lock()) << "try_lock took a mutex the GPU held"; });
  EXPECT_TRUE(trier.returned_within()) << "try_lock blocked on a mutex the GPU held";
  auto const entered = std::make_shared<std::atomic<bool>>(false);
  bounded_thread locker([raw_lock, raw_shared, entered] {
    raw_lock->lock();
    entered->store(true);
    raw_shared->seen = raw_shared->data;
    raw_lock->unlock();
  });
  EXPECT_FALSE(eventually([&] { return entered->load(); }, 20ms)) << "the CPU's lock() returned while the GPU held it";
  raise_flag(shared->host_raised, 1);
  EXPECT_TRUE(locker.returned_within()) << "the GPU's unlock() did not make the mutex available to the CPU";
  ASSERT_EQ(finish_device_work(), cudaSuccess);
  EXPECT_TRUE(held);
  EXPECT_EQ(shared->flag_failures, 0u);
  EXPECT_EQ(shared->seen, 42u) << "the GPU's write before unlock() is not visible after the CPU's lock()";
}

// [thread.lock.scoped] and [thread.lock.algorithm] lock(): CPU threads and GPU threads
// (a block of one thread per multiprocessor, and a warp whose lanes contend) take the same
// three mutexes, half in one order and half in the other, and all get through, each
// holding all three at once (many GPU threads alone: test/conformance/device_mutex_test.cu).
TYPED_TEST(ConformanceMixedMutex, ScopedLockAvoidsDeadlockAcrossTheLink)
{
  UNISYNC_REQUIRE_GPU();
  struct gpu_threads {
    int blocks;
    int threads_per_block;
  };
  for (gpu_threads const gpu : {gpu_threads{multiprocessor_count(), 1}, gpu_threads{1, 32}}) {
    auto mutexes = unisync::make_managed<three_mutexes<TypeParam>>();
    constexpr int gpu_iterations = 4;
    constexpr unsigned cpu_threads = 4;
    constexpr unsigned cpu_iterations = 100;
    cudaError_t const status = run_mixed(
        cpu_threads,
        [&](unsigned thread) {
          for (unsigned i = 0; i < cpu_iterations; ++i) mutexes->one_section((thread + i) & 1u);
        },
        [&] { sections_under_three<<<gpu.blocks, gpu.threads_per_block>>>(mutexes.get(), gpu_iterations); });
    ASSERT_EQ(status, cudaSuccess) << gpu.blocks << " x " << gpu.threads_per_block << " GPU threads";
    unsigned long long const expected = cpu_threads * cpu_iterations + static_cast<unsigned long long>(gpu.blocks) *
                                                                           gpu.threads_per_block * gpu_iterations;
    for (unsigned long long const count : mutexes->counts) EXPECT_EQ(count, expected) << gpu.blocks;
  }
}

template <class Mutex>
__global__ void try_all_while_the_host_holds_the_last(three_mutexes<Mutex>* mutexes, int* results)
{
  results[0] = unisync::try_lock(mutexes->first, mutexes->second, mutexes->third);
  results[1] = unisync::try_lock(mutexes->first, mutexes->second);
  if (results[1] == -1) {
    unisync::scoped_lock<Mutex, Mutex> adopted(std::adopt_lock, mutexes->first, mutexes->second);
  }
}

// [thread.lock.algorithm] try_lock() on the device, while a CPU thread holds the last
// mutex: it returns that mutex's index (2) without blocking and gives back the two it
// took; on free mutexes it returns -1 holding both, which a scoped_lock adopts and
// releases ([thread.lock.scoped] adopt_lock).
TYPED_TEST(ConformanceMixedMutex, DeviceTryLockTakesAllOrNone)
{
  UNISYNC_REQUIRE_GPU();
  auto mutexes = unisync::make_managed<three_mutexes<TypeParam>>();
  auto results = unisync::make_managed<std::array<int, 2>>(std::array<int, 2>{-2, -2});
  mutexes->third.lock();
  try_all_while_the_host_holds_the_last<<<1, 1>>>(mutexes.get(), results->data());
  ASSERT_EQ(finish_device_work(), cudaSuccess);
  mutexes->third.unlock();
  EXPECT_EQ((*results)[0], 2) << "try_lock did not name the mutex the host held";
  EXPECT_EQ((*results)[1], -1) << "try_lock did not take two free mutexes";
  EXPECT_EQ(unisync::try_lock(mutexes->first, mutexes->second, mutexes->third), -1)
      << "a try_lock on the device left a mutex held";
  mutexes->first.unlock();
  mutexes->second.unlock();
  mutexes->third.unlock();
}

struct try_results {
  uint32_t try_lock = 1;
  uint32_t for_zero = 1;
  uint32_t for_negative = 1;
  uint32_t until_past = 1;
  uint32_t for_short = 1;
  cuda::std::uint64_t short_wait_ns = 0;
  uint32_t taken_once_free = 0;
};

template <class Mutex>
__global__ void try_while_the_host_holds(Mutex* lock, play* shared, try_results* results)
{
  using namespace cuda::std::chrono;
  results->try_lock = lock->try_lock();
  results->for_zero = lock->try_lock_for(nanoseconds(0));
  results->for_negative = lock->try_lock_for(milliseconds(-1));
  results->until_past = lock->try_lock_until(system_clock::now() - seconds(1));
  cuda::std::uint64_t const start = unisync::detail::monotonic_nanoseconds();
  results->for_short = lock->try_lock_for(microseconds(200));
  results->short_wait_ns = unisync::detail::monotonic_nanoseconds() - start;
  raise_flag(shared->gpu_raised, 1);
  if (!await_flag(shared->host_raised, 1, shared->flag_failures)) return;
  results->taken_once_free = lock->try_lock_for(seconds(10));
  if (results->taken_once_free) lock->unlock();
}

// [thread.mutex.requirements.mutex] try_lock "without blocking", and
// [thread.timedmutex.requirements] try_lock_for / try_lock_until, on the device against a
// mutex a CPU thread holds: every try fails, the timed one no earlier than its timeout, a
// zero or negative timeout and a time point already past try once and return; once the CPU
// thread unlocks, a timed try takes the mutex. A try that blocked would never let the
// kernel tell the host it is done.
TYPED_TEST(ConformanceMixedMutex, DeviceTriesNeverBlockOnAMutexTheHostHolds)
{
  UNISYNC_REQUIRE_GPU();
  auto lock = unisync::make_managed<TypeParam>();
  auto shared = unisync::make_managed<play>();
  auto results = unisync::make_managed<try_results>();
  lock->lock();
  try_while_the_host_holds<<<1, 1>>>(lock.get(), shared.get(), results.get());
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  bool const returned = host_sees(shared->gpu_raised, 1);
  lock->unlock();
  raise_flag(shared->host_raised, 1);
  ASSERT_EQ(finish_device_work(), cudaSuccess);
  EXPECT_TRUE(returned) << "a try on the device blocked while the host held the mutex";
  EXPECT_EQ(results->try_lock, 0u) << "try_lock";
  EXPECT_EQ(results->for_zero, 0u) << "try_lock_for(0)";
  EXPECT_EQ(results->for_negative, 0u) << "try_lock_for(-1 ms)";
  EXPECT_EQ(results->until_past, 0u) << "try_lock_until(a past time point)";
  EXPECT_EQ(results->for_short, 0u) << "try_lock_for(200 us)";
  EXPECT_GE(results->short_wait_ns, 200'000u) << "try_lock_for(200 us) returned before its timeout";
  EXPECT_EQ(results->taken_once_free, 1u) << "a timed try could not take the mutex the host had unlocked";
  EXPECT_TRUE(lock->try_lock());
  lock->unlock();
}

/// Answers "could another thread take the mutex now?" for the owner thread of
/// wrappers_on_the_device: the owner asks by raising `asked`, the prober (a thread of
/// another warp) tries, and lets go at once, and answers in `answered` and `was_free`.
struct probe_channel {
  uint32_t asked = 0;
  uint32_t answered = 0;
  uint32_t was_free = 0;
  static constexpr uint32_t done = ~uint32_t{0};
};

__device__ uint32_t load_in_block(uint32_t& word)
{
  return cuda::atomic_ref<uint32_t, cuda::thread_scope_block>(word).load(cuda::std::memory_order_acquire);
}
__device__ void store_in_block(uint32_t& word, uint32_t value)
{
  cuda::atomic_ref<uint32_t, cuda::thread_scope_block>(word).store(value, cuda::std::memory_order_release);
}

/// The owner's question: true when the prober could take the mutex (nobody holds it).
__device__ bool prober_finds_free(probe_channel& probe)
{
  uint32_t const question = load_in_block(probe.asked) + 1;
  store_in_block(probe.asked, question);
  while (load_in_block(probe.answered) != question) {
  }
  return probe.was_free != 0;
}

template <class Mutex>
__device__ void answer_probes(Mutex& lock, probe_channel& probe)
{
  uint32_t answered = 0;
  for (;;) {
    uint32_t const question = load_in_block(probe.asked);
    if (question == probe_channel::done) return;
    if (question == answered) continue;
    bool const taken = lock.try_lock();
    if (taken) lock.unlock();
    probe.was_free = taken ? 1u : 0u;
    answered = question;
    store_in_block(probe.answered, answered);
  }
}

/// What the device saw of the wrappers' members, one flag per clause (1: as std says).
struct wrapper_results {
  uint32_t guard_holds = 0;
  uint32_t guard_adopts = 0;
  uint32_t default_empty = 0;
  uint32_t locking_owns = 0;
  uint32_t deferred_not_owned = 0;
  uint32_t members_call_the_mutex = 0;
  uint32_t try_to_lock_owns = 0;
  uint32_t adopted_owned = 0;
  uint32_t timed_owns = 0;
  uint32_t moves_transfer = 0;
  uint32_t swap_and_release = 0;
  uint32_t refused_while_held = 0;
};

/// The wrappers' members as the owner thread (thread 0) uses them, with a prober (thread
/// 32) telling it whether the mutex is held; then, while the host holds `lock`, the tries
/// of the wrappers fail.
template <class Mutex>
__global__ void wrappers_on_the_device(Mutex* lock, Mutex* other, play* shared, wrapper_results* results)
{
  using namespace cuda::std::chrono;
  using unique = unisync::unique_lock<Mutex>;
  __shared__ probe_channel probe;
  if (threadIdx.x == 0) probe = probe_channel{};
  __syncthreads();
  if (threadIdx.x == 32) answer_probes(*lock, probe);
  if (threadIdx.x != 0) return;
  Mutex* const address = cuda::std::addressof(*lock);
  {
    bool holds = false;
    {
      unisync::lock_guard<Mutex> guard(*lock);
      holds = !prober_finds_free(probe);
    }
    results->guard_holds = holds && prober_finds_free(probe);
  }
  {
    lock->lock();
    { unisync::lock_guard<Mutex> adopted(*lock, std::adopt_lock); }
    results->guard_adopts = prober_finds_free(probe);
  }
  {
    unique empty;
    results->default_empty = empty.mutex() == nullptr && !empty.owns_lock() && !static_cast<bool>(empty);
  }
  {
    bool owns = false;
    {
      unique locking(*lock);
      owns =
          locking.owns_lock() && static_cast<bool>(locking) && locking.mutex() == address && !prober_finds_free(probe);
    }
    results->locking_owns = owns && prober_finds_free(probe);
  }
  {
    unique deferred(*lock, std::defer_lock);
    results->deferred_not_owned = !deferred.owns_lock() && deferred.mutex() == address && prober_finds_free(probe);
    bool calls = true;
    deferred.lock();
    calls = calls && deferred.owns_lock() && !prober_finds_free(probe);
    deferred.unlock();
    calls = calls && !deferred.owns_lock() && prober_finds_free(probe);
    calls = calls && deferred.try_lock() && !prober_finds_free(probe);
    deferred.unlock();
    calls = calls && deferred.try_lock_for(milliseconds(1));
    deferred.unlock();
    calls = calls && deferred.try_lock_until(system_clock::now() + milliseconds(1));
    deferred.unlock();
    results->members_call_the_mutex = calls && !deferred.owns_lock() && prober_finds_free(probe);
  }
  {
    bool owns = false;
    {
      unique tried(*lock, std::try_to_lock);
      owns = tried.owns_lock() && !prober_finds_free(probe);
    }
    results->try_to_lock_owns = owns && prober_finds_free(probe);
  }
  {
    lock->lock();
    bool owns = false;
    {
      unique adopted(*lock, std::adopt_lock);
      owns = adopted.owns_lock() && adopted.mutex() == address;
    }
    results->adopted_owned = owns && prober_finds_free(probe);
  }
  {
    bool timed = true;
    {
      unique for_lock(*lock, milliseconds(1));
      timed = timed && for_lock.owns_lock() && !prober_finds_free(probe);
    }
    {
      unique until_lock(*lock, system_clock::now() + milliseconds(1));
      timed = timed && until_lock.owns_lock() && !prober_finds_free(probe);
    }
    results->timed_owns = timed && prober_finds_free(probe);
  }
  {
    // Move assignment first unlocks what the target owned: `other`, here.
    unique locking(*lock);
    unique moved(cuda::std::move(locking));
    bool transfer = !locking.owns_lock() && locking.mutex() == nullptr && moved.owns_lock() && moved.mutex() == address;
    unique assigned(*other);
    assigned = cuda::std::move(moved);
    transfer = transfer && assigned.owns_lock() && assigned.mutex() == address && !moved.owns_lock() &&
               moved.mutex() == nullptr && !prober_finds_free(probe);
    bool const other_free = other->try_lock();
    if (other_free) other->unlock();
    results->moves_transfer = transfer && other_free;
  }
  {
    unique one(*lock);
    unique two;
    one.swap(two);
    bool modified = two.owns_lock() && two.mutex() == address && !one.owns_lock() && one.mutex() == nullptr;
    swap(one, two);
    modified = modified && one.owns_lock() && two.mutex() == nullptr;
    Mutex* const released = one.release();
    modified =
        modified && released == address && !one.owns_lock() && one.mutex() == nullptr && !prober_finds_free(probe);
    released->unlock();
    results->swap_and_release = modified && prober_finds_free(probe);
  }
  store_in_block(probe.asked, probe_channel::done);
  raise_flag(shared->gpu_raised, 1);
  if (!await_flag(shared->host_raised, 1, shared->flag_failures)) return;
  // The host holds the mutex now: the wrappers' tries do not get in.
  unique refused(*lock, std::try_to_lock);
  unique refused_for(*lock, microseconds(500));
  unique refused_until(*lock, system_clock::now() + microseconds(500));
  results->refused_while_held = !refused.owns_lock() && !refused_for.owns_lock() && !refused_until.owns_lock();
  raise_flag(shared->gpu_raised, 2);
}

template <class Mutex>
class ConformanceMixedLockWrappers : public ::testing::Test {};
using wrapped_mutex_types =
    ::testing::Types<unisync::mutex, unisync::ticket_mutex, unisync::cohort_mutex, recording_mutex>;
TYPED_TEST_SUITE(ConformanceMixedLockWrappers, wrapped_mutex_types, type_names);

// [thread.lock.guard] and [thread.lock.unique] on the device, member by member, as
// test/conformance/lock_wrappers_test.cpp checks them on the host: the constructors
// (locking, adopt_lock, default, defer_lock, try_to_lock, timed, moves), the locking
// members, swap (member and non-member) and release, and the observers; that a wrapper
// that owns holds the mutex is checked by another GPU thread's try_lock. Then, while a CPU
// thread holds the mutex, the device's try_to_lock and timed constructors do not get in.
// recording_mutex deletes operator&: the wrappers must take its address with addressof.
TYPED_TEST(ConformanceMixedLockWrappers, WrappersOnTheDevice)
{
  UNISYNC_REQUIRE_GPU();
  auto lock = unisync::make_managed<TypeParam>();
  auto other = unisync::make_managed<TypeParam>();
  auto shared = unisync::make_managed<play>();
  auto results = unisync::make_managed<wrapper_results>();
  wrappers_on_the_device<<<1, 64>>>(lock.get(), other.get(), shared.get(), results.get());
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  bool const first_part = host_sees(shared->gpu_raised, 1);
  bool const host_in = first_part && lock->try_lock_for(cuda::std::chrono::seconds(20));
  raise_flag(shared->host_raised, 1);
  bool const second_part = host_sees(shared->gpu_raised, 2);
  if (host_in) lock->unlock();
  ASSERT_EQ(finish_device_work(), cudaSuccess);
  EXPECT_TRUE(first_part && host_in && second_part);
  EXPECT_EQ(shared->flag_failures, 0u);
  EXPECT_EQ(results->guard_holds, 1u) << "[thread.lock.guard] explicit lock_guard(m)";
  EXPECT_EQ(results->guard_adopts, 1u) << "[thread.lock.guard] lock_guard(m, adopt_lock)";
  EXPECT_EQ(results->default_empty, 1u) << "[thread.lock.unique.cons] unique_lock()";
  EXPECT_EQ(results->locking_owns, 1u) << "[thread.lock.unique.cons] explicit unique_lock(m)";
  EXPECT_EQ(results->deferred_not_owned, 1u) << "[thread.lock.unique.cons] unique_lock(m, defer_lock)";
  EXPECT_EQ(results->members_call_the_mutex, 1u) << "[thread.lock.unique.locking]";
  EXPECT_EQ(results->try_to_lock_owns, 1u) << "[thread.lock.unique.cons] unique_lock(m, try_to_lock)";
  EXPECT_EQ(results->adopted_owned, 1u) << "[thread.lock.unique.cons] unique_lock(m, adopt_lock)";
  EXPECT_EQ(results->timed_owns, 1u) << "[thread.lock.unique.cons] unique_lock(m, rel_time / abs_time)";
  EXPECT_EQ(results->moves_transfer, 1u) << "[thread.lock.unique.cons] moves";
  EXPECT_EQ(results->swap_and_release, 1u) << "[thread.lock.unique.mod]";
  EXPECT_EQ(results->refused_while_held, 1u) << "a device unique_lock got in while the host held the mutex";
  EXPECT_TRUE(lock->try_lock()) << "a device wrapper left the mutex held";
  lock->unlock();
  EXPECT_TRUE(other->try_lock()) << "unique_lock's move assignment did not unlock what it owned";
  other->unlock();
}

}  // namespace
