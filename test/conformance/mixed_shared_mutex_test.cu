// The system-scope shared_mutex against [thread.sharedmutex.requirements] and
// [thread.sharedtimedmutex.requirements] with CPU and GPU threads on one object from
// make_managed, and unisync::shared_lock against [thread.lock.shared] on the device: shared
// holds from both sides at once, a writer on one side excluding readers on the other and
// publishing its writes to them, timed shared tries on the device giving up while the host
// writes, timed exclusive tries on the device giving up while the host reads. Flag waits
// are bounded (flags.hpp); a kernel that hangs in the mutex is caught by the kernel
// deadline (gpu.hpp), a host thread by bounded_thread.

#include "bounded.hpp"
#include "flags.hpp"
#include "gpu.hpp"
#include "test_access.hpp"

#include <unisync/detail/atomic.hpp>
#include <unisync/detail/platform.hpp>
#include <unisync/managed.hpp>
#include <unisync/shared_lock.hpp>
#include <unisync/shared_mutex.hpp>

#include <cuda/std/chrono>
#include <cuda/std/cstdint>
#include <cuda/std/utility>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <thread>

namespace {

using namespace unisync::test;
using namespace std::chrono_literals;
using access = unisync::detail::test_access;
using cuda::std::uint32_t;

/// What the two sides hand each other, in managed memory.
struct play {
  uint32_t gpu_inside = 0;      // GPU threads past lock_shared (or lock) so far
  uint32_t host_raised = 0;     // the host's step: 1, 2, ...
  uint32_t gpu_raised = 0;      // the GPU's step
  uint32_t data = 0;            // written under the exclusive hold only
  uint32_t stale_reads = 0;     // readers that did not see the writer's data
  uint32_t taken = 0;           // timed tries that got in while they should not have
  uint32_t flag_failures = 0;
  cuda::std::uint64_t shortest_wait_ns = ~cuda::std::uint64_t{0};
};

__device__ void count_one(uint32_t& word) { atomicAdd_system(&word, 1u); }

/// The data the writer left, read as a reader does: one load under the hold.
UNISYNC_HOST_DEVICE uint32_t read_data(play& shared) { return *static_cast<uint32_t volatile*>(&shared.data); }

__global__ void hold_shared_until_told(unisync::shared_mutex* mutex, play* shared)
{
  mutex->lock_shared();
  count_one(shared->gpu_inside);
  static_cast<void>(await_flag(shared->host_raised, 1, shared->flag_failures));
  mutex->unlock_shared();
}

// [thread.sharedmutex.requirements] p2: "Multiple execution agents can simultaneously hold a
// shared lock ownership": GPU threads get in while a CPU thread holds it shared, a second CPU
// thread beside them, and no writer gets in while any of them holds it ("no execution agent
// holds a shared lock while another execution agent holds an exclusive lock").
TEST(ConformanceMixedSharedMutex, CpuAndGpuThreadsHoldItSharedAtOnce)
{
  UNISYNC_REQUIRE_GPU();
  auto mutex = unisync::make_managed<unisync::shared_mutex>();
  auto shared = unisync::make_managed<play>();
  unsigned const gpu_readers = static_cast<unsigned>(multiprocessor_count());
  mutex->lock_shared();
  hold_shared_until_told<<<gpu_readers, 1>>>(mutex.get(), shared.get());
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  bool const gpu_joined = host_sees(shared->gpu_inside, gpu_readers);
  unisync::shared_mutex* const raw = mutex.get();
  bounded_thread second_reader([raw] {
    EXPECT_TRUE(raw->try_lock_shared_for(10s)) << "a second CPU reader could not join the GPU readers";
    raw->unlock_shared();
  });
  EXPECT_TRUE(second_reader.returned_within());
  bounded_thread writer([raw] { EXPECT_FALSE(raw->try_lock_for(5ms)) << "a writer got in beside readers"; });
  EXPECT_TRUE(writer.returned_within());
  raise_flag(shared->host_raised, 1);
  mutex->unlock_shared();
  ASSERT_EQ(finish_device_work(), cudaSuccess);
  EXPECT_TRUE(gpu_joined) << load_flag(shared->gpu_inside) << " of " << gpu_readers
                          << " GPU readers got in while a CPU thread held it shared";
  EXPECT_EQ(shared->flag_failures, 0u);
  EXPECT_EQ(access::reader_words(*mutex), 0u) << "a reader's registration was left behind";
  EXPECT_FALSE(access::gpu_reported_present(*mutex));
  EXPECT_TRUE(mutex->try_lock_for(1s));
  mutex->unlock();
}

__global__ void read_what_the_writer_left(unisync::shared_mutex* mutex, play* shared, uint32_t expected)
{
  mutex->lock_shared();
  count_one(shared->gpu_inside);
  if (read_data(*shared) != expected) count_one(shared->stale_reads);
  mutex->unlock_shared();
}

// [thread.sharedmutex.requirements] p2 and lock_shared(): a CPU writer keeps GPU readers out
// until its unlock(), which "shall synchronize with" their lock_shared(): they see its write.
TEST(ConformanceMixedSharedMutex, CpuWriterExcludesGpuReadersAndPublishesToThem)
{
  UNISYNC_REQUIRE_GPU();
  auto mutex = unisync::make_managed<unisync::shared_mutex>();
  auto shared = unisync::make_managed<play>();
  unsigned const gpu_readers = static_cast<unsigned>(multiprocessor_count());
  mutex->lock();
  read_what_the_writer_left<<<gpu_readers, 1>>>(mutex.get(), shared.get(), 42);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  EXPECT_FALSE(eventually([&] { return load_flag(shared->gpu_inside) != 0; }, 20ms))
      << "a GPU reader got in while a CPU thread held it exclusively";
  shared->data = 42;
  mutex->unlock();
  ASSERT_EQ(finish_device_work(), cudaSuccess);
  EXPECT_EQ(shared->gpu_inside, gpu_readers);
  EXPECT_EQ(shared->stale_reads, 0u) << "the writer's data before unlock() was not visible after lock_shared()";
  EXPECT_EQ(access::reader_words(*mutex), 0u);
}

__global__ void write_when_told(unisync::shared_mutex* mutex, play* shared)
{
  mutex->lock();
  raise_flag(shared->gpu_raised, 1);
  if (await_flag(shared->host_raised, 1, shared->flag_failures)) {
    *static_cast<uint32_t volatile*>(&shared->data) = 42;
  }
  mutex->unlock();
}

// The other way: a GPU writer keeps CPU readers out (lock_shared blocks, try_lock_shared and
// try_lock_shared_for fail) until its unlock(), which synchronizes with their lock_shared().
TEST(ConformanceMixedSharedMutex, GpuWriterExcludesCpuReadersAndPublishesToThem)
{
  UNISYNC_REQUIRE_GPU();
  auto mutex = unisync::make_managed<unisync::shared_mutex>();
  auto shared = unisync::make_managed<play>();
  write_when_told<<<1, 1>>>(mutex.get(), shared.get());
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  bool const writer_in = host_sees(shared->gpu_raised, 1);
  unisync::shared_mutex* const raw = mutex.get();
  play* const shared_play = shared.get();
  auto entered = std::make_shared<std::atomic<bool>>(false);
  auto seen = std::make_shared<uint32_t>(0);
  bounded_thread reader([raw, shared_play, entered, seen] {
    raw->lock_shared();
    entered->store(true);
    *seen = read_data(*shared_play);
    raw->unlock_shared();
  });
  if (writer_in) {
    EXPECT_FALSE(eventually([&] { return entered->load(); }, 20ms)) << "a CPU reader got in beside the GPU writer";
    EXPECT_FALSE(mutex->try_lock_shared());
    EXPECT_FALSE(mutex->try_lock_shared_for(5ms));
  }
  raise_flag(shared->host_raised, 1);
  EXPECT_TRUE(reader.returned_within()) << "the GPU writer's unlock() did not let the CPU reader in";
  ASSERT_EQ(finish_device_work(), cudaSuccess);
  EXPECT_TRUE(writer_in) << "the GPU writer did not get in";
  EXPECT_EQ(shared->flag_failures, 0u);
  EXPECT_EQ(*seen, 42u) << "the GPU writer's data before unlock() was not visible after lock_shared()";
  EXPECT_EQ(access::reader_words(*mutex), 0u);
}

/// A shared_mutex's shared (or exclusive) hold, for the timed tries below.
template <bool Shared>
struct hold {
  template <class Timeout>
  __device__ static bool try_for(unisync::shared_mutex& mutex, Timeout timeout)
  {
    if constexpr (Shared) return mutex.try_lock_shared_for(timeout);
    else return mutex.try_lock_for(timeout);
  }
  template <class When>
  __device__ static bool try_until(unisync::shared_mutex& mutex, When when)
  {
    if constexpr (Shared) return mutex.try_lock_shared_until(when);
    else return mutex.try_lock_until(when);
  }
  __device__ static bool try_once(unisync::shared_mutex& mutex)
  {
    if constexpr (Shared) return mutex.try_lock_shared();
    else return mutex.try_lock();
  }
  __device__ static void unlock(unisync::shared_mutex& mutex)
  {
    if constexpr (Shared) mutex.unlock_shared();
    else mutex.unlock();
  }
};

/// While the other side holds the mutex against `Hold`: every timed form once (a timeout,
/// a time point that far ahead, a zero timeout, a past time point, one try), counting
/// those that got in and the shortest wait of the timeout; then says it tried, and waits
/// for the host's step 1 (false if it never came).
template <class Hold>
__device__ bool try_every_form_then_await_host(unisync::shared_mutex& mutex, play& shared, long long timeout_ns)
{
  auto const timeout = cuda::std::chrono::nanoseconds(timeout_ns);
  cuda::std::uint64_t const start = unisync::detail::monotonic_nanoseconds();
  bool const for_taken = Hold::try_for(mutex, timeout);
  cuda::std::uint64_t const waited = unisync::detail::monotonic_nanoseconds() - start;
  if (for_taken) Hold::unlock(mutex);
  bool const until_taken = Hold::try_until(mutex, cuda::std::chrono::system_clock::now() + timeout);
  if (until_taken) Hold::unlock(mutex);
  bool const zero_taken = Hold::try_for(mutex, cuda::std::chrono::nanoseconds(0));
  if (zero_taken) Hold::unlock(mutex);
  auto const past = cuda::std::chrono::system_clock::now() - cuda::std::chrono::seconds(1);
  bool const past_taken = Hold::try_until(mutex, past);
  if (past_taken) Hold::unlock(mutex);
  bool const once_taken = Hold::try_once(mutex);
  if (once_taken) Hold::unlock(mutex);
  atomicAdd_system(&shared.taken, uint32_t{for_taken} + uint32_t{until_taken} + uint32_t{zero_taken} +
                                      uint32_t{past_taken} + uint32_t{once_taken});
  atomicMin_system(reinterpret_cast<unsigned long long*>(&shared.shortest_wait_ns),
                   static_cast<unsigned long long>(waited));
  count_one(shared.gpu_raised);
  return await_flag(shared.host_raised, 1, shared.flag_failures);
}

__global__ void timed_shared_tries(unisync::shared_mutex* mutex, play* shared, long long timeout_ns)
{
  if (!try_every_form_then_await_host<hold<true>>(*mutex, *shared, timeout_ns)) return;
  // After the writer's unlock(): a timed try gets in and sees what it wrote.
  if (mutex->try_lock_shared_for(cuda::std::chrono::seconds(10))) {
    count_one(shared->gpu_inside);
    if (read_data(*shared) != 42) count_one(shared->stale_reads);
    mutex->unlock_shared();
  }
}

// [thread.sharedtimedmutex.requirements] try_lock_shared_for(rel_time) and
// try_lock_shared_until(abs_time) on the device while a CPU thread holds it exclusively:
// false, "return within the timeout ... only if it has obtained shared ownership" (so not
// earlier), a zero timeout or a past time point tries once; timed-out readers leave no trace,
// and once the writer leaves a timed try gets in and "prior unlock() operations ...
// synchronize with this operation".
TEST(ConformanceMixedSharedMutex, GpuTimedSharedTriesGiveUpWhileTheCpuWrites)
{
  UNISYNC_REQUIRE_GPU();
  auto mutex = unisync::make_managed<unisync::shared_mutex>();
  auto shared = unisync::make_managed<play>();
  constexpr long long timeout_ns = 2'000'000;
  constexpr unsigned gpu_readers = 4;
  mutex->lock();
  timed_shared_tries<<<gpu_readers, 1>>>(mutex.get(), shared.get(), timeout_ns);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  bool const tried = host_sees(shared->gpu_raised, gpu_readers);
  EXPECT_EQ(access::reader_words(*mutex), 0u) << "a timed-out GPU reader left its registration";
  shared->data = 42;
  mutex->unlock();
  raise_flag(shared->host_raised, 1);
  ASSERT_EQ(finish_device_work(), cudaSuccess);
  EXPECT_TRUE(tried);
  EXPECT_EQ(shared->taken, 0u) << "a GPU timed try got in while a CPU thread held it exclusively";
  EXPECT_GE(shared->shortest_wait_ns, static_cast<cuda::std::uint64_t>(timeout_ns)) << "a timed try gave up early";
  EXPECT_EQ(shared->flag_failures, 0u);
  EXPECT_EQ(shared->gpu_inside, gpu_readers) << "a timed try missed the writer's unlock()";
  EXPECT_EQ(shared->stale_reads, 0u);
  EXPECT_EQ(access::reader_words(*mutex), 0u);
  EXPECT_FALSE(access::gpu_reported_present(*mutex));
}

__global__ void timed_exclusive_tries(unisync::shared_mutex* mutex, play* shared, long long timeout_ns)
{
  if (!try_every_form_then_await_host<hold<false>>(*mutex, *shared, timeout_ns)) return;
  // After the reader's unlock_shared(): a timed try gets in, and excludes the other writers.
  if (mutex->try_lock_for(cuda::std::chrono::seconds(10))) {
    count_one(shared->gpu_inside);
    uint32_t const seen = read_data(*shared);
    *static_cast<uint32_t volatile*>(&shared->data) = seen + 1;
    mutex->unlock();
  }
}

// [thread.sharedtimedmutex.requirements] / [thread.timedmutex.requirements] try_lock_for and
// try_lock_until on the device while a CPU thread holds it shared: false, not before the
// timeout, a zero timeout or a past time point tries once; a writer that gave up leaves no
// trace (a CPU reader still gets in), and once the reader leaves each timed try gets in,
// alone ("if it obtains ownership, ... exclusive").
TEST(ConformanceMixedSharedMutex, GpuTimedExclusiveTriesGiveUpWhileACpuThreadReads)
{
  UNISYNC_REQUIRE_GPU();
  auto mutex = unisync::make_managed<unisync::shared_mutex>();
  auto shared = unisync::make_managed<play>();
  constexpr long long timeout_ns = 2'000'000;
  constexpr unsigned gpu_writers = 4;
  mutex->lock_shared();
  timed_exclusive_tries<<<gpu_writers, 1>>>(mutex.get(), shared.get(), timeout_ns);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  bool const tried = host_sees(shared->gpu_raised, gpu_writers);
  bounded_thread other_reader([mutex = mutex.get()] {
    bool const in = mutex->try_lock_shared_for(1s);
    EXPECT_TRUE(in) << "a GPU writer that gave up kept readers out";
    if (in) mutex->unlock_shared();
  });
  EXPECT_TRUE(other_reader.returned_within());
  mutex->unlock_shared();
  raise_flag(shared->host_raised, 1);
  ASSERT_EQ(finish_device_work(), cudaSuccess);
  EXPECT_TRUE(tried);
  EXPECT_EQ(shared->taken, 0u) << "a GPU timed try got in while a CPU thread held it shared";
  EXPECT_GE(shared->shortest_wait_ns, static_cast<cuda::std::uint64_t>(timeout_ns)) << "a timed try gave up early";
  EXPECT_EQ(shared->flag_failures, 0u);
  EXPECT_EQ(shared->gpu_inside, gpu_writers) << "a timed try missed the reader's unlock_shared()";
  EXPECT_EQ(shared->data, gpu_writers) << "two GPU writers were inside at once (a lost update)";
  EXPECT_EQ(access::reader_words(*mutex), 0u);
  EXPECT_FALSE(access::gpu_reported_present(*mutex));
  ASSERT_TRUE(mutex->try_lock()) << "the writers left it held";
  mutex->unlock();
}

/// What the device saw of shared_lock's members, one flag per clause (1: as std says).
struct lock_results {
  uint32_t default_empty = 0;
  uint32_t locking_owns = 0;
  uint32_t deferred_not_owned = 0;
  uint32_t members_call_the_mutex = 0;
  uint32_t try_to_lock_owns = 0;
  uint32_t timed_owns = 0;
  uint32_t moves_transfer = 0;
  uint32_t swap_and_release = 0;
  uint32_t refused_while_written = 0;
};

using shared_lock_type = unisync::shared_lock<unisync::shared_mutex>;

__global__ void shared_lock_members(unisync::shared_mutex* mutex, play* shared, lock_results* results)
{
  using namespace cuda::std::chrono;
  {
    shared_lock_type empty;
    results->default_empty = empty.mutex() == nullptr && !empty.owns_lock() && !static_cast<bool>(empty);
  }
  {
    shared_lock_type reading(*mutex);
    results->locking_owns = reading.owns_lock() && static_cast<bool>(reading) && reading.mutex() == mutex;
  }
  {
    shared_lock_type deferred(*mutex, std::defer_lock_t{});
    results->deferred_not_owned = !deferred.owns_lock() && deferred.mutex() == mutex;
    bool calls = true;
    deferred.lock();
    calls = calls && deferred.owns_lock();
    deferred.unlock();
    calls = calls && !deferred.owns_lock();
    calls = calls && deferred.try_lock();
    deferred.unlock();
    calls = calls && deferred.try_lock_for(milliseconds(1));
    deferred.unlock();
    calls = calls && deferred.try_lock_until(system_clock::now() + milliseconds(1));
    deferred.unlock();
    results->members_call_the_mutex = calls && !deferred.owns_lock();
  }
  {
    shared_lock_type tried(*mutex, std::try_to_lock_t{});
    results->try_to_lock_owns = tried.owns_lock();
  }
  {
    bool timed = true;
    {
      shared_lock_type for_lock(*mutex, milliseconds(1));
      timed = timed && for_lock.owns_lock();
    }
    {
      shared_lock_type until_lock(*mutex, system_clock::now() + milliseconds(1));
      timed = timed && until_lock.owns_lock();
    }
    results->timed_owns = timed;
  }
  {
    shared_lock_type reading(*mutex);
    shared_lock_type moved(cuda::std::move(reading));
    bool transfer = !reading.owns_lock() && reading.mutex() == nullptr && moved.owns_lock() && moved.mutex() == mutex;
    shared_lock_type assigned;
    assigned = cuda::std::move(moved);
    transfer = transfer && assigned.owns_lock() && !moved.owns_lock() && moved.mutex() == nullptr;
    results->moves_transfer = transfer;
  }
  {
    shared_lock_type one(*mutex);
    shared_lock_type two;
    one.swap(two);
    bool modified = two.owns_lock() && two.mutex() == mutex && !one.owns_lock() && one.mutex() == nullptr;
    swap(one, two);
    modified = modified && one.owns_lock() && two.mutex() == nullptr;
    unisync::shared_mutex* const released = one.release();
    modified = modified && released == mutex && !one.owns_lock() && one.mutex() == nullptr;
    released->unlock_shared();
    results->swap_and_release = modified;
  }
  raise_flag(shared->gpu_raised, 1);
  if (!await_flag(shared->host_raised, 1, shared->flag_failures)) return;
  // The host writes now: the shared_lock's tries do not get in.
  shared_lock_type refused(*mutex, std::try_to_lock_t{});
  shared_lock_type refused_timed(*mutex, microseconds(500));
  results->refused_while_written = !refused.owns_lock() && !refused_timed.owns_lock();
  raise_flag(shared->gpu_raised, 2);
}

// [thread.lock.shared] on the device, beside a CPU reader: the constructors
// ([thread.lock.shared.cons]: default, locking, defer_lock, try_to_lock, timed, moves), the
// locking members ([thread.lock.shared.locking]), swap and release ([thread.lock.shared.mod])
// and the observers ([thread.lock.shared.obs]); then, while a CPU thread writes, its tries do
// not get in. Every hold it took is released (the destructor unlocks what it owns).
TEST(ConformanceMixedSharedMutex, SharedLockOnTheDevice)
{
  UNISYNC_REQUIRE_GPU();
  auto mutex = unisync::make_managed<unisync::shared_mutex>();
  auto shared = unisync::make_managed<play>();
  auto results = unisync::make_managed<lock_results>();
  mutex->lock_shared();
  shared_lock_members<<<1, 1>>>(mutex.get(), shared.get(), results.get());
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  bool const first_part = host_sees(shared->gpu_raised, 1);
  mutex->unlock_shared();
  bool const writer_in = mutex->try_lock_for(20s);
  raise_flag(shared->host_raised, 1);
  bool const second_part = host_sees(shared->gpu_raised, 2);
  if (writer_in) mutex->unlock();
  ASSERT_EQ(finish_device_work(), cudaSuccess);
  EXPECT_TRUE(first_part && second_part && writer_in);
  EXPECT_EQ(shared->flag_failures, 0u);
  EXPECT_EQ(results->default_empty, 1u) << "[thread.lock.shared.cons] shared_lock()";
  EXPECT_EQ(results->locking_owns, 1u) << "[thread.lock.shared.cons] explicit shared_lock(m)";
  EXPECT_EQ(results->deferred_not_owned, 1u) << "[thread.lock.shared.cons] shared_lock(m, defer_lock)";
  EXPECT_EQ(results->members_call_the_mutex, 1u) << "[thread.lock.shared.locking]";
  EXPECT_EQ(results->try_to_lock_owns, 1u) << "[thread.lock.shared.cons] shared_lock(m, try_to_lock)";
  EXPECT_EQ(results->timed_owns, 1u) << "[thread.lock.shared.cons] shared_lock(m, rel_time / abs_time)";
  EXPECT_EQ(results->moves_transfer, 1u) << "[thread.lock.shared.cons] moves";
  EXPECT_EQ(results->swap_and_release, 1u) << "[thread.lock.shared.mod]";
  EXPECT_EQ(results->refused_while_written, 1u) << "a device shared_lock got in while the host wrote";
  EXPECT_EQ(access::reader_words(*mutex), 0u) << "a device shared_lock left a hold behind";
  EXPECT_TRUE(mutex->try_lock());
  mutex->unlock();
}

}  // namespace
