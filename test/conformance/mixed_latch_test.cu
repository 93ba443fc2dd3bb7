// The system-scope latches against [thread.latch.class] with CPU and GPU threads on one
// object in managed memory: a count_down on either side releases waiters on either side,
// and what the counting thread wrote before it is visible to them. Three roles -- a
// thread that count_down()s, one that wait()s, one that arrive_and_wait()s -- each on the
// CPU or the GPU, every assignment, partitioned and flat. Waits for flags are bounded
// (flags.hpp); a GPU role that hangs in the latch is caught by the kernel deadline
// (gpu.hpp), a CPU one by bounded_thread.

#include "bounded.hpp"
#include "flags.hpp"
#include "gpu.hpp"
#include "latch_kinds.hpp"

#include <unisync/managed.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <tuple>
#include <vector>

namespace {

using namespace unisync::test;

constexpr unsigned rounds = 8;
constexpr std::chrono::seconds roles_deadline{40};

/// Which side plays each role.
struct latch_roles {
  bool count_down_on_gpu;
  bool wait_on_gpu;
  bool arrive_and_wait_on_gpu;
};

/// The roles' shared state, in managed memory: a latch of 2 per round (the count_down and
/// the arrive_and_wait), the values written before counting down, and the failures seen.
template <class Latch>
struct latch_play {
  Latch* latches[rounds];
  cuda::std::uint32_t written[rounds][2];  // by the count_down role [0], the arrive_and_wait role [1]
  cuda::std::uint32_t failures = 0;        // a written value not visible after a release
  cuda::std::uint32_t flag_failures = 0;
  cuda::std::uint32_t counted = 0;          // rounds the count_down role has counted down
};

UNISYNC_HOST_DEVICE inline cuda::std::uint32_t relaxed_load(cuda::std::uint32_t& word)
{
  return unisync::detail::atomic_at<cuda::thread_scope_system>(word).load(unisync::detail::memory_order_relaxed);
}

template <class Latch>
UNISYNC_HOST_DEVICE void check_written(latch_play<Latch>& play, unsigned round)
{
  for (unsigned role = 0; role < 2; ++role) {
    if (relaxed_load(play.written[round][role]) != round + 1) {
      unisync::detail::atomic_at<cuda::thread_scope_system>(play.failures).fetch_add(1, unisync::detail::memory_order_relaxed);
    }
  }
}

template <class Latch>
UNISYNC_HOST_DEVICE void play_count_down(latch_play<Latch>& play)
{
  for (unsigned round = 0; round < rounds; ++round) {
    unisync::detail::atomic_at<cuda::thread_scope_system>(play.written[round][0]).store(round + 1, unisync::detail::memory_order_relaxed);
    play.latches[round]->count_down();
    raise_flag(play.counted, round + 1);
  }
}

template <class Latch>
UNISYNC_HOST_DEVICE void play_wait(latch_play<Latch>& play)
{
  for (unsigned round = 0; round < rounds; ++round) {
    play.latches[round]->wait();
    check_written(play, round);
  }
}

template <class Latch>
UNISYNC_HOST_DEVICE void play_arrive_and_wait(latch_play<Latch>& play)
{
  for (unsigned round = 0; round < rounds; ++round) {
    // Half the rounds: only after the count_down role has counted down, so that this
    // role's count_down is the last (the other half races it).
    if (round % 2 == 1 && !await_flag(play.counted, round + 1, play.flag_failures)) return;
    unisync::detail::atomic_at<cuda::thread_scope_system>(play.written[round][1]).store(round + 1, unisync::detail::memory_order_relaxed);
    play.latches[round]->arrive_and_wait();
    check_written(play, round);
  }
}

template <class Latch>
__global__ void roles_on_gpu(latch_play<Latch>* play, latch_roles roles)
{
  if (blockIdx.x == 0 && roles.count_down_on_gpu) play_count_down(*play);
  if (blockIdx.x == 1 && roles.wait_on_gpu) play_wait(*play);
  if (blockIdx.x == 2 && roles.arrive_and_wait_on_gpu) play_arrive_and_wait(*play);
}

template <class Kind>
void play_roles(latch_roles roles)
{
  using latch_type = typename Kind::type;
  latch_rounds<Kind> latches(rounds, 2);
  auto play = unisync::make_managed<latch_play<latch_type>>();
  for (unsigned round = 0; round < rounds; ++round) play->latches[round] = latches.pointers[round];
  roles_on_gpu<<<3, 1>>>(play.get(), roles);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  latch_play<latch_type>* const shared = play.get();
  bounded_thread counter([shared, roles] {
    if (!roles.count_down_on_gpu) play_count_down(*shared);
  });
  bounded_thread waiter([shared, roles] {
    if (!roles.wait_on_gpu) play_wait(*shared);
  });
  bounded_thread arriver([shared, roles] {
    if (!roles.arrive_and_wait_on_gpu) play_arrive_and_wait(*shared);
  });
  bool const cpu_done = counter.returned_within() && waiter.returned_within() && arriver.returned_within();
  ASSERT_EQ(finish_device_work(roles_deadline), cudaSuccess);
  if (!cpu_done) {
    static_cast<void>(play.release());  // the hung CPU role keeps using it
    for (auto& owner : latches.owners) static_cast<void>(owner.release());
    FAIL() << "a CPU role never returned from the latch";
  }
  EXPECT_EQ(play->flag_failures, 0u) << "the arrive_and_wait role gave up waiting for the count_down";
  EXPECT_EQ(play->failures, 0u) << "a released thread did not see what was written before a count_down";
}

/// A case: the latch kind (its play function), its name, and the sides of the roles.
using roles_case = std::tuple<void (*)(latch_roles), std::string, int>;

latch_roles roles_of(int bits) { return latch_roles{(bits & 1) != 0, (bits & 2) != 0, (bits & 4) != 0}; }

class ConformanceMixedLatch : public ::testing::TestWithParam<roles_case> {};

// [thread.latch.class] p8 count_down: "If counter is equal to zero, unblocks all threads
// blocked on *this"; p9: "Strongly happens before the returns from all calls that are
// unblocked"; p16 arrive_and_wait: "Equivalent to: count_down(update); wait();" -- with
// each role on either side, over 8 latches.
TEST_P(ConformanceMixedLatch, CountDownOnEitherSideReleasesWaitersOnEither)
{
  UNISYNC_REQUIRE_GPU();
  std::get<0>(GetParam())(roles_of(std::get<2>(GetParam())));
}

std::string roles_case_name(::testing::TestParamInfo<roles_case> const& info)
{
  latch_roles const roles = roles_of(std::get<2>(info.param));
  auto side = [](bool gpu) { return gpu ? std::string("Gpu") : std::string("Cpu"); };
  return std::get<1>(info.param) + "CountDownOn" + side(roles.count_down_on_gpu) + "WaitOn" +
         side(roles.wait_on_gpu) + "ArriveAndWaitOn" + side(roles.arrive_and_wait_on_gpu);
}

std::vector<roles_case> every_roles_case()
{
  std::vector<roles_case> cases;
  for (int roles = 0; roles < 8; ++roles) {
    cases.emplace_back(&play_roles<partitioned_latch_kind>, "Latch", roles);
    cases.emplace_back(&play_roles<flat_latch_kind>, "FlatLatch", roles);
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(EveryAssignment, ConformanceMixedLatch, ::testing::ValuesIn(every_roles_case()),
                         roles_case_name);

}  // namespace
