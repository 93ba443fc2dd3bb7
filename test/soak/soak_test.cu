// Soak: every primitive driven by 4 CPU threads and every multiprocessor's worth of GPU
// blocks for UNISYNC_SOAK_SECONDS (default 60) each, with the stress checks on: lost
// updates for the locks, never more than N holders for the semaphore, the phase checker
// for the barriers. Label `soak`, not run in CI; the figures are recorded as test
// properties and printed.

#include "barrier_kinds.hpp"
#include "checks.hpp"
#include "gpu.hpp"
#include "lockables.hpp"
#include "mixed.hpp"

#include <unisync/counting_semaphore.hpp>
#include <unisync/managed.hpp>

#include <cooperative_groups.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

using namespace unisync::test;

constexpr unsigned cpu_threads = 4;

unsigned long long soak_nanoseconds()
{
  char const* configured = std::getenv("UNISYNC_SOAK_SECONDS");
  double const seconds = configured != nullptr ? std::atof(configured) : 60.0;
  return static_cast<unsigned long long>(seconds * 1e9);
}

void report(char const* what, std::string const& figures)
{
  ::testing::Test::RecordProperty(what, figures);
  std::printf("soak %s: %s\n", what, figures.c_str());
}

/// Each GPU thread runs critical sections until its clock passes `deadline_ns`.
template <class Lock>
__global__ void sections_until(Lock* lock, unsigned long long* counter, unsigned long long* sections,
                               unsigned long long duration_ns)
{
  unsigned long long const deadline = unisync::detail::monotonic_nanoseconds() + duration_ns;
  unsigned long long done = 0;
  while (unisync::detail::monotonic_nanoseconds() < deadline) {
    lock->lock();
    increment_slowly(*counter);
    lock->unlock();
    ++done;
  }
  atomicAdd(sections, done);
}

template <class Lock>
class SoakLock : public ::testing::Test {};
using soak_lock_types = ::testing::Types<unisync::mutex, unisync::ticket_mutex, unisync::cohort_mutex>;
TYPED_TEST_SUITE(SoakLock, soak_lock_types, type_names);

TYPED_TEST(SoakLock, NoLostUpdates)
{
  UNISYNC_REQUIRE_GPU();
  unsigned long long const duration = soak_nanoseconds();
  auto lock = unisync::make_managed<TypeParam>();
  auto counter = unisync::make_managed<unsigned long long>(0ull);
  auto gpu_sections = unisync::make_managed<unsigned long long>(0ull);
  std::vector<unsigned long long> cpu_sections(cpu_threads, 0);
  cudaError_t const status = run_mixed(
      cpu_threads,
      [&](unsigned actor) {
        auto const deadline = std::chrono::steady_clock::now() + std::chrono::nanoseconds(duration);
        while (std::chrono::steady_clock::now() < deadline) {
          lock->lock();
          increment_slowly(*counter);
          lock->unlock();
          ++cpu_sections[actor];
        }
      },
      [&] {
        sections_until<<<multiprocessor_count(), 1>>>(lock.get(), counter.get(), gpu_sections.get(), duration);
      });
  ASSERT_EQ(status, cudaSuccess);
  unsigned long long cpu_total = 0;
  for (unsigned long long sections : cpu_sections) cpu_total += sections;
  unsigned long long const total = cpu_total + *gpu_sections;
  EXPECT_EQ(*counter, total) << "lost updates";
  report(type_name<TypeParam>::get().c_str(), std::to_string(total) + " critical sections (" +
                                                   std::to_string(cpu_total) + " CPU, " +
                                                   std::to_string(*gpu_sections) + " GPU), lost updates: " +
                                                   std::to_string(total - *counter));
}

template <class Semaphore>
__global__ void holders_until(Semaphore* semaphore, occupancy_record* record, unsigned long long duration_ns)
{
  unsigned long long const deadline = unisync::detail::monotonic_nanoseconds() + duration_ns;
  while (unisync::detail::monotonic_nanoseconds() < deadline) {
    semaphore->acquire();
    record->enter();
    record->leave();
    semaphore->release();
  }
}

TEST(SoakSemaphore, NeverMoreThanNHolders)
{
  UNISYNC_REQUIRE_GPU();
  constexpr int permits = 8;
  unsigned long long const duration = soak_nanoseconds();
  auto semaphore = unisync::make_managed<unisync::counting_semaphore<>>(permits);
  auto record = unisync::make_managed<occupancy_record>();
  cudaError_t const status = run_mixed(
      cpu_threads,
      [&](unsigned) {
        auto const deadline = std::chrono::steady_clock::now() + std::chrono::nanoseconds(duration);
        while (std::chrono::steady_clock::now() < deadline) {
          semaphore->acquire();
          record->enter();
          record->leave();
          semaphore->release();
        }
      },
      [&] { holders_until<<<multiprocessor_count(), 1>>>(semaphore.get(), record.get(), duration); });
  ASSERT_EQ(status, cudaSuccess);
  EXPECT_LE(record->most_seen, permits);
  report("counting_semaphore_8", std::to_string(record->entries) + " acquisitions, most holders at once " +
                                     std::to_string(record->most_seen) + " of " + std::to_string(permits) +
                                     ", violations: " + std::to_string(record->most_seen > permits ? 1 : 0));
}

/// The phase checker's completion plus a stop agreement: every `check_interval` phases it
/// turns the host's stop request into a last phase two intervals ahead, which every
/// participant reads at its next check.
struct soak_completion {
  phase_record record;
  unsigned* stop_requested = nullptr;
  unsigned* last_phase = nullptr;
  unsigned check_interval = 32;

  __host__ __device__ void operator()() noexcept
  {
    record.on_completion();
    unsigned const phase = *record.completions;
    if (phase % check_interval != 0) return;
    cuda::atomic_ref<unsigned, cuda::thread_scope_system> last(*last_phase);
    if (cuda::atomic_ref<unsigned, cuda::thread_scope_system>(*stop_requested).load(cuda::std::memory_order_relaxed) !=
            0 &&
        last.load(cuda::std::memory_order_relaxed) == ~0u) {
      last.store(phase + 2 * check_interval, cuda::std::memory_order_relaxed);
    }
  }
};

__host__ __device__ inline unsigned read_last_phase(unsigned* last_phase)
{
  return cuda::atomic_ref<unsigned, cuda::thread_scope_system>(*last_phase).load(cuda::std::memory_order_relaxed);
}

template <class Barrier>
__global__ void phases_until_agreed(Barrier* barrier, phase_record record, unsigned* last_phase, unsigned first_slot,
                                    unsigned check_interval)
{
  auto block = cooperative_groups::this_thread_block();
  unsigned const slot = first_slot + blockIdx.x;
  unsigned last = ~0u;
  for (unsigned phase = 1; phase != last + 1; ++phase) {
    if (block.thread_rank() == 0) record.before_arriving(slot, phase);
    barrier->arrive_and_wait(block);
    if (block.thread_rank() == 0) record.after_passing(slot + 1, 8, phase);
    if (phase % check_interval == 0) last = read_last_phase(last_phase);
  }
}

template <class Kind>
class SoakBarrier : public ::testing::Test {};
using soak_barrier_kinds = ::testing::Types<central_barrier_kind, partitioned_barrier_kind>;
TYPED_TEST_SUITE(SoakBarrier, soak_barrier_kinds, type_names);

TYPED_TEST(SoakBarrier, NoParticipantLeavesPhaseEarly)
{
  UNISYNC_REQUIRE_GPU();
  using barrier_type = typename TypeParam::template type<soak_completion>;
  constexpr int threads_per_block = 128;
  constexpr unsigned check_interval = 4;
  int const blocks = multiprocessor_count();
  unsigned const participants = cpu_threads + static_cast<unsigned>(blocks);
  std::vector<std::uint32_t, unisync::managed_allocator<std::uint32_t>> slots(participants, 0);
  auto violations = unisync::make_managed<std::uint32_t>(0u);
  auto completions = unisync::make_managed<std::uint32_t>(0u);
  auto stop_requested = unisync::make_managed<unsigned>(unisync::memory_advice::prefer_host, 0u);
  auto last_phase = unisync::make_managed<unsigned>(unisync::memory_advice::prefer_host, ~0u);
  phase_record const record{slots.data(), participants, violations.get(), completions.get()};
  auto barrier = unisync::make_managed<barrier_type>(
      cpu_threads + blocks * threads_per_block,
      soak_completion{record, stop_requested.get(), last_phase.get(), check_interval});
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::nanoseconds(soak_nanoseconds()));
    cuda::atomic_ref<unsigned, cuda::thread_scope_system>(*stop_requested).store(1, cuda::std::memory_order_relaxed);
  });
  cudaError_t const status = run_mixed(
      cpu_threads,
      [&](unsigned actor) {
        unsigned last = ~0u;
        for (unsigned phase = 1; phase != last + 1; ++phase) {
          record.before_arriving(actor, phase);
          barrier->arrive_and_wait();
          record.after_passing(actor + 1, 8, phase);
          if (phase % check_interval == 0) last = read_last_phase(last_phase.get());
        }
      },
      [&] {
        phases_until_agreed<<<blocks, threads_per_block>>>(barrier.get(), record, last_phase.get(), cpu_threads,
                                                           check_interval);
      });
  stopper.join();
  ASSERT_EQ(status, cudaSuccess);
  EXPECT_EQ(*violations, 0u);
  EXPECT_EQ(*completions, *last_phase);
  report(type_name<TypeParam>::get().c_str(),
         std::to_string(*completions) + " phases with " + std::to_string(cpu_threads) + " CPU threads and " +
             std::to_string(blocks) + " blocks x " + std::to_string(threads_per_block) +
             " threads, violations: " + std::to_string(*violations));
}

}  // namespace
