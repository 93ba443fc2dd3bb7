// std barrier semantics across the link, on every barrier type: arrive() never waits for
// another participant (split-phase use, both directions, every phase), a token is waited
// on by a thread of the other side (every split of participants), and lanes of one warp
// that name different barriers are separate std calls. Every wait for another thread is
// bounded: a barrier whose arrive() blocks makes the test fail, not hang.

#include "barrier_kinds.hpp"
#include "checks.hpp"
#include "gpu.hpp"
#include "mixed.hpp"

#include <unisync/managed.hpp>

#include <gtest/gtest.h>

#include <cuda/atomic>

#include <utility>
#include <vector>

namespace {

using namespace unisync::test;

/// Far beyond any handoff: only a blocked arrive() makes a thread wait this long.
constexpr cuda::std::uint64_t patience_ns = 5'000'000'000ull;

__host__ __device__ cuda::atomic_ref<unsigned, cuda::thread_scope_system> shared_word(unsigned* word)
{
  return cuda::atomic_ref<unsigned, cuda::thread_scope_system>(*word);
}

__host__ __device__ void raise(unsigned* word, unsigned value)
{
  shared_word(word).store(value, cuda::std::memory_order_release);
}

/// Waits until `*word` reaches `value`, at most patience_ns; false if it did not.
__host__ __device__ bool reached(unsigned* word, unsigned value)
{
  cuda::std::uint64_t const give_up = unisync::detail::monotonic_nanoseconds() + patience_ns;
  while (shared_word(word).load(cuda::std::memory_order_acquire) < value) {
    if (unisync::detail::monotonic_nanoseconds() > give_up) return false;
  }
  return true;
}

/// Counters the actors of one test share, in managed memory.
struct relay {
  unsigned handed;          // the first participant's token of this phase is in the slot
  unsigned passed;          // the waiter on the other side was released in this phase
  unsigned second_arrived;  // the second participant is about to arrive in this phase
  unsigned stuck;           // a bounded wait gave up
  unsigned early;           // a waiter was released before every participant arrived
};

// [thread.barrier.class]: arrive() returns without waiting for the phase. Two actors, one
// per side; in odd phases the CPU arrives first, in even ones the GPU, and the second
// arrives only once the first's arrive() has returned.
template <class Barrier>
__host__ __device__ void split_phase_actor(Barrier* barrier, relay* shared, unsigned* arrived_mine,
                                           unsigned* arrived_theirs, bool cpu_side, unsigned phases)
{
  for (unsigned phase = 1; phase <= phases; ++phase) {
    bool const goes_first = (phase % 2 == 1) == cpu_side;
    if (!goes_first && !reached(arrived_theirs, phase)) shared_word(&shared->stuck).fetch_add(1);
    auto token = barrier->arrive();
    raise(arrived_mine, phase);
    barrier->wait(std::move(token));
    if (!reached(arrived_theirs, phase)) shared_word(&shared->early).fetch_add(1);
  }
}

template <class Barrier>
__global__ void split_phase_on_gpu(Barrier* barrier, relay* shared, unsigned* arrived, unsigned phases)
{
  split_phase_actor(barrier, shared, &arrived[1], &arrived[0], false, phases);
}

// Any thread may wait on a token. Role 0 arrives and hands its token to role 2, on the
// other side, which waits on it; role 1 arrives and waits on its own.
template <class Barrier>
__host__ __device__ void token_actor(int role, Barrier* barrier, typename Barrier::arrival_token* slot, relay* shared,
                                     unsigned phases)
{
  for (unsigned phase = 1; phase <= phases; ++phase) {
    if (role == 0) {
      *slot = barrier->arrive();
      raise(&shared->handed, phase);
      if (!reached(&shared->passed, phase)) {  // the waiter's wait is this participant's wait
        shared_word(&shared->stuck).fetch_add(1);
        return;
      }
    } else if (role == 1) {
      raise(&shared->second_arrived, phase);
      barrier->arrive_and_wait();
    } else {
      if (!reached(&shared->handed, phase)) {
        shared_word(&shared->stuck).fetch_add(1);
        return;
      }
      auto token = *slot;
      barrier->wait(std::move(token));
      if (shared_word(&shared->second_arrived).load(cuda::std::memory_order_acquire) < phase) {
        shared_word(&shared->early).fetch_add(1);
      }
      raise(&shared->passed, phase);
    }
  }
}

/// One GPU thread per role, one role per block.
template <class Barrier>
__global__ void token_actors_on_gpu(int const* roles, Barrier* barrier, typename Barrier::arrival_token* slot,
                                    relay* shared, unsigned phases)
{
  token_actor(roles[blockIdx.x], barrier, slot, shared, phases);
}

// Lanes of one warp call per-thread arrive_and_wait() on two barriers of 16 each (lane
// parity picks the barrier): each barrier completes every phase with its own 16 lanes.
template <class Barrier>
__global__ void lanes_on_two_barriers(Barrier* even, Barrier* odd, phase_record even_record, phase_record odd_record,
                                      unsigned phases)
{
  unsigned const lane = threadIdx.x;
  Barrier* const mine = lane % 2 == 0 ? even : odd;
  phase_record const& record = lane % 2 == 0 ? even_record : odd_record;
  for (unsigned phase = 1; phase <= phases; ++phase) {
    record.before_arriving(lane / 2, phase);
    mine->arrive_and_wait();
    record.after_passing(0, 16, phase);
  }
}

template <class Kind>
class MixedStdBarrier : public ::testing::Test {
 protected:
  using barrier_type = typename Kind::template type<unisync::empty_completion>;
  static auto make(std::ptrdiff_t expected)
  {
    auto barrier = unisync::make_managed<barrier_type>(expected);
    Kind::prepare(*barrier);
    return barrier;
  }
};
using barrier_kinds = ::testing::Types<central_barrier_kind, partitioned_barrier_kind, flat_partitioned_barrier_kind>;
TYPED_TEST_SUITE(MixedStdBarrier, barrier_kinds, type_names);

TYPED_TEST(MixedStdBarrier, ArriveNeverWaitsForTheOtherSide)
{
  UNISYNC_REQUIRE_GPU();
  constexpr unsigned phases = 1000;
  auto barrier = TestFixture::make(2);
  auto shared = unisync::make_managed<relay>();
  std::vector<unsigned, unisync::managed_allocator<unsigned>> arrived(2, 0u);
  auto* const barrier_on_gpu = barrier.get();
  cudaError_t const status = run_mixed(
      1, [&](unsigned) { split_phase_actor(barrier.get(), shared.get(), &arrived[0], &arrived[1], true, phases); },
      [&] { split_phase_on_gpu<<<1, 1>>>(barrier_on_gpu, shared.get(), arrived.data(), phases); });
  ASSERT_EQ(status, cudaSuccess);
  EXPECT_EQ(shared->stuck, 0u) << "arrive() did not return before the other side arrived";
  EXPECT_EQ(shared->early, 0u);
}

TYPED_TEST(MixedStdBarrier, ATokenIsWaitedOnFromTheOtherSide)
{
  UNISYNC_REQUIRE_GPU();
  constexpr unsigned phases = 50;
  struct assignment {
    bool on_gpu[3];  // roles 0 (hands its token over), 1 (waits on its own), 2 (waits on role 0's)
  };
  for (assignment const sides : {assignment{{false, false, true}}, assignment{{true, true, false}},
                                 assignment{{false, true, true}}, assignment{{true, false, false}}}) {
    SCOPED_TRACE(::testing::Message() << "roles on the GPU: " << sides.on_gpu[0] << sides.on_gpu[1] << sides.on_gpu[2]);
    auto barrier = TestFixture::make(2);
    auto shared = unisync::make_managed<relay>();
    auto slot = unisync::make_managed<typename TestFixture::barrier_type::arrival_token>();
    std::vector<int, unisync::managed_allocator<int>> gpu_roles(3, 0);
    int gpu_count = 0;
    std::vector<int> cpu_roles;
    for (int role = 0; role < 3; ++role) {
      if (sides.on_gpu[role]) {
        gpu_roles[gpu_count++] = role;
      } else {
        cpu_roles.push_back(role);
      }
    }
    auto* const barrier_on_gpu = barrier.get();
    cudaError_t const status = run_mixed(
        static_cast<unsigned>(cpu_roles.size()),
        [&](unsigned actor) { token_actor(cpu_roles[actor], barrier.get(), slot.get(), shared.get(), phases); },
        [&] {
          token_actors_on_gpu<<<gpu_count, 1>>>(gpu_roles.data(), barrier_on_gpu, slot.get(), shared.get(), phases);
        });
    ASSERT_EQ(status, cudaSuccess);
    EXPECT_EQ(shared->stuck, 0u) << "a waiter on the other side was not released";
    EXPECT_EQ(shared->early, 0u) << "a waiter on the other side left before the phase ended";
  }
}

TYPED_TEST(MixedStdBarrier, LanesOfOneWarpOnDifferentBarriersAreSeparateCalls)
{
  UNISYNC_REQUIRE_GPU();
  constexpr unsigned phases = 200;
  auto even = TestFixture::make(16);
  auto odd = TestFixture::make(16);
  std::vector<std::uint32_t, unisync::managed_allocator<std::uint32_t>> slots(32, 0u);
  std::vector<std::uint32_t, unisync::managed_allocator<std::uint32_t>> counters(4, 0u);
  phase_record const even_record{&slots[0], 16, &counters[0], &counters[1]};
  phase_record const odd_record{&slots[16], 16, &counters[2], &counters[3]};
  lanes_on_two_barriers<<<1, 32>>>(even.get(), odd.get(), even_record, odd_record, phases);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  ASSERT_EQ(finish_device_work(), cudaSuccess);
  EXPECT_EQ(counters[0] + counters[2], 0u) << "a lane left a phase of its barrier early";
}

}  // namespace
