// The partitioned semaphore across its two sides, with host threads standing in for GPU
// threads (test_access names the side a call is made from): never more than N holders,
// no permit lost to timed acquires that give up, releases that wake the other side,
// release(n) across sides, an idle side's permits taken, turns between busy sides, what a
// forwarding release sends, and the flat mode. Every wait for another thread is bounded,
// so a lost permit fails a test instead of hanging it.

#include "actors.hpp"
#include "bounded.hpp"
#include "checks.hpp"
#include "test_access.hpp"

#include <unisync/partitioned_semaphore.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace std::chrono_literals;
using access = unisync::detail::test_access;
using side = access::side;
using unisync::test::bounded_thread;
using unisync::test::eventually;
using unisync::test::occupancy_record;
using unisync::test::run_cpu_actors;

/// Turns of two acquisitions, a quick steal and a link read at every release: every path
/// between the sides runs many times in a short test.
struct short_turn_tuning : unisync::tuning {
  static constexpr cuda::std::uint32_t cpu_turn_acquisitions = 2;
  static constexpr cuda::std::uint32_t gpu_turn_acquisitions = 2;
  static constexpr cuda::std::uint32_t link_check_interval_ns = 0;
  static constexpr cuda::std::uint32_t steal_after_ns = 200 * 1000;
};
template <std::ptrdiff_t Max>
using short_turn_semaphore =
    unisync::basic_partitioned_semaphore<Max, unisync::basic_proportional_backoff<short_turn_tuning>>;

constexpr std::uint64_t a_second_ns = 1000ull * 1000 * 1000;

side other_than(side which) { return which == side::cpu ? side::gpu : side::cpu; }
char const* name_of(side which) { return which == side::cpu ? "cpu" : "gpu"; }

/// CPU threads [0, cpu) stand on the CPU side, the rest on the GPU side.
struct split {
  unsigned cpu;
  unsigned gpu;
};

template <class Semaphore>
class PartitionedSemaphoreSides : public ::testing::Test {};
using semaphore_types = ::testing::Types<unisync::partitioned_semaphore<>, short_turn_semaphore<unisync::semaphore_max>>;
TYPED_TEST_SUITE(PartitionedSemaphoreSides, semaphore_types);

template <class Semaphore>
occupancy_record hold_from_both_sides(Semaphore& semaphore, split threads, unsigned iterations)
{
  occupancy_record record;
  run_cpu_actors(threads.cpu + threads.gpu, [&](unsigned actor) {
    side const mine = actor < threads.cpu ? side::cpu : side::gpu;
    for (unsigned i = 0; i < iterations; ++i) {
      access::acquire_as(semaphore, mine);
      record.enter();
      std::this_thread::yield();  // stay inside long enough for others to pile in
      record.leave();
      access::release_as(semaphore, mine);
    }
  });
  return record;
}

// Never more than N holders whichever side they stand on, for 1 x 1, 4 x 4 and 3 x 8
// threads and N = 1, 2, 8; every permit is still there afterwards.
TYPED_TEST(PartitionedSemaphoreSides, NeverMoreThanNHoldersAcrossSides)
{
  for (int const permits : {1, 2, 8}) {
    for (split const threads : {split{1, 1}, split{4, 4}, split{3, 8}}) {
      SCOPED_TRACE(::testing::Message() << "N = " << permits << ", " << threads.cpu << " x " << threads.gpu);
      TypeParam semaphore(permits);
      occupancy_record const record = hold_from_both_sides(semaphore, threads, 300);
      EXPECT_LE(record.most_seen, permits);
      EXPECT_EQ(record.entries, static_cast<int>((threads.cpu + threads.gpu) * 300));
      EXPECT_EQ(access::count(semaphore), permits) << "every permit came back";
    }
  }
}

// [thread.sema.cnt] release: "unblocks any threads that are waiting": a waiter on one side
// is woken by a release on the other, which returns without waiting for it; in both
// directions, and when the permits start on the waiter's side's far end (none at all).
TYPED_TEST(PartitionedSemaphoreSides, AReleaseOnOneSideWakesAWaiterOnTheOther)
{
  for (side const waiter : {side::cpu, side::gpu}) {
    SCOPED_TRACE(::testing::Message() << "waiter on the " << name_of(waiter) << " side");
    auto semaphore = std::make_shared<TypeParam>(0);
    bounded_thread acquirer([semaphore, waiter] { access::acquire_as(*semaphore, waiter); });
    ASSERT_TRUE(eventually([&] { return access::tickets_taken_on(*semaphore, waiter) == 1; }));
    bounded_thread releaser([semaphore, waiter] { access::release_as(*semaphore, other_than(waiter)); });
    EXPECT_TRUE(releaser.returned_within(5s)) << "release() waited";
    EXPECT_TRUE(acquirer.returned_within()) << "the waiter was not woken";
    EXPECT_EQ(access::count(*semaphore), 0);
  }
}

// release(n) on one side with waiters on the other admits exactly n of them.
TYPED_TEST(PartitionedSemaphoreSides, ReleaseNAcrossSidesAdmitsExactlyNWaiters)
{
  for (side const waiters_side : {side::cpu, side::gpu}) {
    SCOPED_TRACE(::testing::Message() << "waiters on the " << name_of(waiters_side) << " side");
    constexpr int waiters = 5;
    auto semaphore = std::make_shared<TypeParam>(0);
    auto admitted = std::make_shared<std::atomic<int>>(0);
    std::vector<std::unique_ptr<bounded_thread>> threads;
    for (int waiter = 0; waiter < waiters; ++waiter) {
      threads.push_back(std::make_unique<bounded_thread>([semaphore, admitted, waiters_side] {
        access::acquire_as(*semaphore, waiters_side);
        admitted->fetch_add(1);
      }));
    }
    ASSERT_TRUE(eventually([&] { return access::tickets_taken_on(*semaphore, waiters_side) == waiters; }));
    access::release_as(*semaphore, other_than(waiters_side), 2);
    EXPECT_TRUE(eventually([&] { return admitted->load() == 2; })) << admitted->load() << " admitted";
    std::this_thread::sleep_for(20ms);
    EXPECT_EQ(admitted->load(), 2) << "release(2) admits two waiters, no more";
    access::release_as(*semaphore, other_than(waiters_side), waiters - 2);
    for (auto& thread : threads) EXPECT_TRUE(thread->returned_within());
    EXPECT_EQ(admitted->load(), waiters);
    EXPECT_EQ(access::count(*semaphore), 0);
  }
}

// Timed acquires on both sides that give up while the others hold and cycle every permit
// lose none: afterwards all N permits can be taken from either side.
TYPED_TEST(PartitionedSemaphoreSides, TimedAcquiresThatGiveUpLoseNoPermit)
{
  for (int const permits : {1, 2, 8}) {
    for (side const collector : {side::cpu, side::gpu}) {
      SCOPED_TRACE(::testing::Message() << "N = " << permits << ", collected on the " << name_of(collector));
      TypeParam semaphore(permits);
      occupancy_record record;
      std::atomic<int> gave_up{0};
      run_cpu_actors(8, [&](unsigned actor) {
        side const mine = actor % 2 == 0 ? side::cpu : side::gpu;
        for (int i = 0; i < 200; ++i) {
          bool const timed = actor >= 4;
          if (timed && !access::try_acquire_for_as(semaphore, mine, 20 * 1000)) {
            gave_up.fetch_add(1);
            continue;
          }
          if (!timed) access::acquire_as(semaphore, mine);
          record.enter();
          std::this_thread::yield();
          record.leave();
          access::release_as(semaphore, mine);
        }
      });
      EXPECT_LE(record.most_seen, permits);
      for (int permit = 0; permit < permits; ++permit) {
        EXPECT_TRUE(access::try_acquire_for_as(semaphore, collector, 5 * a_second_ns)) << "permit " << permit << " lost";
      }
      EXPECT_FALSE(access::try_acquire_for_as(semaphore, collector, 0)) << "a permit was made up";
      EXPECT_EQ(access::count(semaphore), 0);
    }
  }
}

// A side whose threads have all gone keeps no permit from the other side: permits left
// in its pool (here by a GPU "kernel" that cycled them and ended) are taken across.
TYPED_TEST(PartitionedSemaphoreSides, AnIdleSidesPermitsAreTakenAcross)
{
  for (side const idle : {side::gpu, side::cpu}) {
    SCOPED_TRACE(::testing::Message() << "idle " << name_of(idle) << " side");
    constexpr int permits = 4;
    auto semaphore = std::make_shared<TypeParam>(permits);
    // Moves every permit to the side that then goes idle.
    for (int permit = 0; permit < permits; ++permit) {
      ASSERT_TRUE(access::try_acquire_for_as(*semaphore, idle, 5 * a_second_ns));
    }
    access::release_as(*semaphore, idle, permits);
    bounded_thread taker([semaphore, idle] {
      for (int permit = 0; permit < permits; ++permit) access::acquire_as(*semaphore, other_than(idle));
    });
    EXPECT_TRUE(taker.returned_within()) << "permits stayed on the idle side";
    EXPECT_EQ(access::count(*semaphore), 0);
  }
}

// Both sides busy, N = 1: the permit takes turns instead of staying with one side. The
// model checks the bypass bound itself; on this oversubscribed host a descheduled
// importer lets the other side run on, so the test records the worst bypass and asserts
// that the permit changed sides many times. Every thread acquires until both sides have
// reached their goal: on a host with fewer cores than threads one side's threads may
// start only after the other side's would have finished a fixed count, and turns need
// both sides busy at once.
TEST(PartitionedSemaphoreTurns, BothBusySidesTakeTurns)
{
  short_turn_semaphore<1> semaphore(1);
  constexpr unsigned per_side = 3;
  constexpr std::uint64_t goal = per_side * 400;
  std::atomic<std::uint64_t> acquisitions[2] = {0, 0};
  std::atomic<std::uint64_t> most_foreign[2] = {0, 0};
  int last_side = -1;  // written inside the semaphore (N = 1)
  unsigned switches = 0;
  run_cpu_actors(2 * per_side, [&](unsigned actor) {
    int const me = static_cast<int>(actor % 2);
    side const mine = me == 0 ? side::cpu : side::gpu;
    while (acquisitions[0].load() < goal || acquisitions[1].load() < goal) {
      std::uint64_t const before = acquisitions[1 - me].load();
      access::acquire_as(semaphore, mine);
      std::uint64_t const foreign = acquisitions[1 - me].load() - before;
      std::uint64_t seen = most_foreign[me].load();
      while (foreign > seen && !most_foreign[me].compare_exchange_weak(seen, foreign)) {
      }
      if (last_side != me) ++switches;
      last_side = me;
      acquisitions[me].fetch_add(1);
      access::release_as(semaphore, mine);
    }
  });
  EXPECT_GE(acquisitions[0].load(), goal);
  EXPECT_GE(acquisitions[1].load(), goal);
  // Turns of T = 2 acquisitions would switch some 600 times; a side that kept the permit
  // while the other was busy, a few times.
  EXPECT_GE(switches, 50u);
  ::testing::Test::RecordProperty("most_foreign_cpu", std::to_string(most_foreign[0].load()));
  ::testing::Test::RecordProperty("most_foreign_gpu", std::to_string(most_foreign[1].load()));
  EXPECT_EQ(access::count(semaphore), 1);
}

/// Steals after a second: a test sees a kept permit stay put, then the steal deliver it.
struct slow_steal_tuning : unisync::tuning {
  static constexpr cuda::std::uint32_t steal_after_ns = 1000 * 1000 * 1000;
};
using slow_steal_semaphore =
    unisync::basic_partitioned_semaphore<unisync::semaphore_max, unisync::basic_proportional_backoff<slow_steal_tuning>>;

// A host thread that releases the permit it acquired keeps it in the CPU's pool for its
// next acquire while the GPU side is hungry, instead of sending it across and waiting for
// it to come back; when the thread does not come back, the hungry side still gets it (the
// steal). A release by a thread that did not acquire here forwards at once.
TEST(PartitionedSemaphorePairs, AThreadsOwnReleaseKeepsItsPermitAndAnotherThreadsForwards)
{
  {
    auto semaphore = std::make_shared<slow_steal_semaphore>(1);
    semaphore->acquire();  // before the GPU side is hungry: no turn to give
    bounded_thread gpu_waiter([semaphore] { access::acquire_as(*semaphore, side::gpu); });
    ASSERT_TRUE(eventually([&] { return access::wants_of(*semaphore, side::gpu) != 0; }));
    auto const sent = access::permits_sent_by(*semaphore, side::cpu);
    semaphore->release();
    for (int pair = 0; pair < 3; ++pair) {
      ASSERT_EQ(access::permits_sent_by(*semaphore, side::cpu), sent) << "the permit left the CPU side before pair "
                                                                       << pair;
      semaphore->acquire();  // tickets 1-3: no turn
      semaphore->release();
    }
    EXPECT_EQ(access::permits_sent_by(*semaphore, side::cpu), sent) << "a pair's release sent its permit across";
    EXPECT_TRUE(gpu_waiter.returned_within()) << "the kept permit never reached the hungry side";
    access::release_as(*semaphore, side::gpu);
  }
  {
    auto semaphore = std::make_shared<slow_steal_semaphore>(1);
    semaphore->acquire();
    bounded_thread gpu_waiter([semaphore] { access::acquire_as(*semaphore, side::gpu); });
    ASSERT_TRUE(eventually([&] { return access::wants_of(*semaphore, side::gpu) != 0; }));
    auto const sent = access::permits_sent_by(*semaphore, side::cpu);
    std::thread([semaphore] { semaphore->release(); }).join();  // acquired on this thread
    EXPECT_EQ(access::permits_sent_by(*semaphore, side::cpu), sent + 1) << "another thread's release kept the permit";
    EXPECT_TRUE(gpu_waiter.returned_within());
    access::release_as(*semaphore, side::gpu);
    EXPECT_EQ(access::count(*semaphore), 1);
  }
}

// The pairing is per semaphore: a host thread that releases another semaphore while it
// holds this one's permit (a producer signalling a count) still keeps the permit.
TEST(PartitionedSemaphorePairs, AReleaseOfAnotherSemaphoreKeepsThePairing)
{
  auto semaphore = std::make_shared<slow_steal_semaphore>(1);
  slow_steal_semaphore other(0);
  semaphore->acquire();
  bounded_thread gpu_waiter([semaphore] { access::acquire_as(*semaphore, side::gpu); });
  ASSERT_TRUE(eventually([&] { return access::wants_of(*semaphore, side::gpu) != 0; }));
  auto const sent = access::permits_sent_by(*semaphore, side::cpu);
  other.release();
  semaphore->release();
  EXPECT_EQ(access::permits_sent_by(*semaphore, side::cpu), sent)
      << "the release of another semaphore made this thread's pair look unpaired";
  EXPECT_TRUE(gpu_waiter.returned_within());
  access::release_as(*semaphore, side::gpu);
}

// A host thread that loops try_acquire() and release() never takes a turn (tries take no
// ticket that waits): its release is no pair, and forwards the permit to a hungry GPU
// side, which would otherwise wait for it forever (the thread's releases keep the CPU's
// heartbeat moving, so a steal comes only once the thread stalls for steal_after_ns).
TEST(PartitionedSemaphorePairs, AReleaseAfterATryForwardsToAHungrySide)
{
  auto semaphore = std::make_shared<slow_steal_semaphore>(1);
  auto stop = std::make_shared<std::atomic<bool>>(false);
  bounded_thread trier([semaphore, stop] {
    while (!stop->load()) {
      if (semaphore->try_acquire()) semaphore->release();
    }
  });
  bounded_thread gpu_waiter([semaphore] { access::acquire_as(*semaphore, side::gpu); });
  EXPECT_TRUE(gpu_waiter.returned_within()) << "a try's release kept the permit from the hungry GPU side";
  stop->store(true);
  EXPECT_TRUE(trier.returned_within());
  access::release_as(*semaphore, side::gpu);
  EXPECT_EQ(access::count(*semaphore), 1);
}

/// A link read at every release and a steal too slow to matter.
struct every_release_reads_link_tuning : slow_steal_tuning {
  static constexpr cuda::std::uint32_t link_check_interval_ns = 0;
};
using every_release_reads_link_semaphore =
    unisync::basic_partitioned_semaphore<unisync::semaphore_max,
                                         unisync::basic_proportional_backoff<every_release_reads_link_tuning>>;

// A side that has only released since its last forward (a work queue's consumers
// releasing its free slots) sends every free permit to a hungry other side, not only what
// the other side's waiters lacked when it last asked: one answer per request moved such a
// queue's slots a few at a time. A side that has taken a ticket since sends what is asked.
TEST(PartitionedSemaphoreForwarding, ASideThatOnlyReleasesSendsEveryFreePermit)
{
  {
    auto semaphore = std::make_shared<every_release_reads_link_semaphore>(0);
    access::move_heartbeat(*semaphore, side::gpu);  // no steal racing the forward
    bounded_thread cpu_waiter([semaphore] { semaphore->acquire(); });
    ASSERT_TRUE(eventually([&] { return access::wants_of(*semaphore, side::cpu) != 0; }));
    access::release_as(*semaphore, side::gpu, 5);
    EXPECT_EQ(access::permits_sent_by(*semaphore, side::gpu), 5u) << "a side that only releases kept permits back";
    EXPECT_TRUE(cpu_waiter.returned_within());
    EXPECT_EQ(access::pool_count(*semaphore, side::cpu), 4);
    EXPECT_EQ(access::pool_count(*semaphore, side::gpu), 0);
  }
  {
    auto semaphore = std::make_shared<every_release_reads_link_semaphore>(0);
    access::release_as(*semaphore, side::gpu);  // nobody hungry: stays in the GPU's pool
    access::acquire_as(*semaphore, side::gpu);  // a ticket of the GPU side
    access::release_as(*semaphore, side::gpu);
    ASSERT_EQ(access::permits_sent_by(*semaphore, side::gpu), 0u);
    bounded_thread cpu_waiter([semaphore] { semaphore->acquire(); });
    ASSERT_TRUE(eventually([&] { return access::wants_of(*semaphore, side::cpu) != 0; }));
    access::release_as(*semaphore, side::gpu, 3);
    EXPECT_EQ(access::permits_sent_by(*semaphore, side::gpu), 1u) << "a side that acquires sent more than was asked";
    EXPECT_TRUE(cpu_waiter.returned_within());
    EXPECT_EQ(access::pool_count(*semaphore, side::gpu), 3);
    EXPECT_EQ(access::count(*semaphore), 3);
  }
}

// Once the other side has asked, a side that only releases sends what it releases even
// when the other side's wants are met: that side asks again only when the permits it
// asked for are spent, and permits released meanwhile would wait for a later release that
// may never come (a work queue's consumers waiting for items the producers cannot make).
TEST(PartitionedSemaphoreForwarding, ASideThatOnlyReleasesKeepsSendingOnceAsked)
{
  auto semaphore = std::make_shared<every_release_reads_link_semaphore>(0);
  access::move_heartbeat(*semaphore, side::gpu);  // no steal racing the forward
  bounded_thread cpu_waiter([semaphore] { semaphore->acquire(); });
  ASSERT_TRUE(eventually([&] { return access::wants_of(*semaphore, side::cpu) != 0; }));
  access::release_as(*semaphore, side::gpu);
  ASSERT_TRUE(cpu_waiter.returned_within());
  auto const wants = access::wants_of(*semaphore, side::cpu);
  access::release_as(*semaphore, side::gpu);
  access::release_as(*semaphore, side::gpu, 2);
  EXPECT_EQ(access::wants_of(*semaphore, side::cpu), wants) << "the CPU side asked again";
  EXPECT_EQ(access::permits_sent_by(*semaphore, side::gpu), 4u) << "released permits stayed in the GPU's pool";
  EXPECT_EQ(access::pool_count(*semaphore, side::cpu), 3);
  EXPECT_EQ(access::pool_count(*semaphore, side::gpu), 0);
}

// A CPU release that finds the send role held leaves a request, which the holder serves
// with one more round before it lets go: the holder may have looked at the pool before
// this release's addition, and a release that left at once stranded its permit until a
// later release forwarded it, or the GPU side's steal. (A GPU release that reads the link
// leaves: see forward_leftovers.)
TEST(PartitionedSemaphoreForwarding, ACpuReleaseThatFindsTheSendRoleHeldIsForwardedByItsHolder)
{
  auto semaphore = std::make_shared<every_release_reads_link_semaphore>(0);
  access::move_heartbeat(*semaphore, side::cpu);  // no steal racing the forward
  bounded_thread gpu_waiter([semaphore] { access::acquire_as(*semaphore, side::gpu); });
  ASSERT_TRUE(eventually([&] { return access::wants_of(*semaphore, side::gpu) != 0; }));
  ASSERT_TRUE(access::take_send_role(*semaphore, side::cpu));  // a holder that has looked
  access::release_as(*semaphore, side::cpu);
  EXPECT_EQ(access::permits_sent_by(*semaphore, side::cpu), 0u) << "sent while another thread held the role";
  access::leave_send_role(*semaphore, side::cpu);
  EXPECT_EQ(access::permits_sent_by(*semaphore, side::cpu), 1u) << "the holder left the release's permit behind";
  ASSERT_TRUE(gpu_waiter.returned_within());
  EXPECT_TRUE(access::take_send_role(*semaphore, side::cpu)) << "the holder did not let go of the role";
  access::leave_send_role(*semaphore, side::cpu);
}

/// A GPU release that found permits over reads the link at most once a second (the
/// first one does: the clock has run longer since boot).
struct rare_link_check_tuning : slow_steal_tuning {
  static constexpr cuda::std::uint32_t link_check_interval_ns = 1000 * 1000 * 1000;
};
using rare_link_check_semaphore =
    unisync::basic_partitioned_semaphore<4, unisync::basic_proportional_backoff<rare_link_check_tuning>>;

// Once the CPU side has asked (its wants, once not 0, stay so), a GPU side that only
// releases forwards at each release, within the link interval too: leftovers of several
// blocks releasing at once waited for a later release to read the link, and after a burst
// none came, so the host consumers waited for their steal. A GPU side that takes tickets
// keeps to the interval.
TEST(PartitionedSemaphoreForwarding, AGpuSideThatOnlyReleasesForwardsEachReleaseOnceTheCpuSideHasAsked)
{
  {
    auto semaphore = std::make_shared<rare_link_check_semaphore>(0);
    access::move_heartbeat(*semaphore, side::gpu);  // no steal racing the forward
    bounded_thread cpu_waiter([semaphore] { semaphore->acquire(); });
    ASSERT_TRUE(eventually([&] { return access::wants_of(*semaphore, side::cpu) != 0; }));
    access::release_as(*semaphore, side::gpu);  // the first link read of the side
    ASSERT_TRUE(cpu_waiter.returned_within());
    access::release_as(*semaphore, side::gpu);  // one of four over, within the interval
    EXPECT_EQ(access::permits_sent_by(*semaphore, side::gpu), 2u) << "the release waited for a later link read";
    access::release_as(*semaphore, side::gpu, 2);
    EXPECT_EQ(access::permits_sent_by(*semaphore, side::gpu), 4u) << "the release waited for a later link read";
    EXPECT_EQ(access::pool_count(*semaphore, side::cpu), 3);
  }
  {
    auto semaphore = std::make_shared<rare_link_check_semaphore>(0);
    access::release_as(*semaphore, side::gpu);  // nobody hungry: the first link read sends none
    access::acquire_as(*semaphore, side::gpu);  // a ticket of the GPU side
    bounded_thread cpu_waiter([semaphore] { semaphore->acquire(); });
    ASSERT_TRUE(eventually([&] { return access::wants_of(*semaphore, side::cpu) != 0; }));
    access::release_as(*semaphore, side::gpu, 2);
    EXPECT_EQ(access::permits_sent_by(*semaphore, side::gpu), 0u) << "a side that acquires read the link early";
    access::release_as(*semaphore, side::cpu);  // the CPU waiter's permit, so that it returns
    EXPECT_TRUE(cpu_waiter.returned_within());
  }
}

// A GPU release that forwards without reading the link and finds the send role held
// leaves a request, which the holder serves with one more (link-free) round, as a CPU
// release's: a burst of blocks releasing at once otherwise ended with permits that the
// holder had not seen in the GPU's pool.
TEST(PartitionedSemaphoreForwarding, ALinkFreeGpuReleaseThatFindsTheSendRoleHeldIsForwardedByItsHolder)
{
  auto semaphore = std::make_shared<rare_link_check_semaphore>(0);
  access::move_heartbeat(*semaphore, side::gpu);  // no steal racing the forward
  bounded_thread cpu_waiter([semaphore] { semaphore->acquire(); });
  ASSERT_TRUE(eventually([&] { return access::wants_of(*semaphore, side::cpu) != 0; }));
  access::release_as(*semaphore, side::gpu);  // the first link read: the CPU side asked
  ASSERT_TRUE(cpu_waiter.returned_within());
  ASSERT_TRUE(access::take_send_role(*semaphore, side::gpu));  // a holder that has looked
  access::release_as(*semaphore, side::gpu);
  EXPECT_EQ(access::permits_sent_by(*semaphore, side::gpu), 1u) << "sent while another thread held the role";
  access::leave_send_role(*semaphore, side::gpu);
  EXPECT_EQ(access::permits_sent_by(*semaphore, side::gpu), 2u) << "the holder left the release's permit behind";
  EXPECT_TRUE(access::take_send_role(*semaphore, side::gpu)) << "the holder did not let go of the role";
  access::leave_send_role(*semaphore, side::gpu);
}

/// A link read at most once a second and a steal after 20 ms; max() = 4.
struct steal_between_link_reads_tuning : slow_steal_tuning {
  static constexpr cuda::std::uint32_t link_check_interval_ns = 1000 * 1000 * 1000;
  static constexpr cuda::std::uint32_t steal_after_ns = 20 * 1000 * 1000;
};
using steal_between_link_reads_semaphore =
    unisync::basic_partitioned_semaphore<4, unisync::basic_proportional_backoff<steal_between_link_reads_tuning>>;

// A steal is no acquisition of the side it takes from: a GPU side that only released is
// still one afterwards, and sends all its leftovers at once (here once half of max() is
// over; once the CPU side has asked, at every release). A steal that counted as an
// acquisition left it forwarding only what was asked, at its link interval, and the
// releases of the next burst of blocks waited for another steal.
TEST(PartitionedSemaphoreForwarding, AStealLeavesAGpuSideThatOnlyReleasedSendingAll)
{
  auto semaphore = std::make_shared<steal_between_link_reads_semaphore>(0);
  access::release_as(*semaphore, side::gpu);  // the first link read: nobody asked
  access::acquire_as(*semaphore, side::cpu);  // takes it by the steal, 20 ms later
  EXPECT_EQ(access::permits_sent_by(*semaphore, side::gpu), 0u);
  access::move_heartbeat(*semaphore, side::gpu);  // no second steal racing the release below
  bounded_thread cpu_waiter([semaphore] { semaphore->acquire(); });
  ASSERT_TRUE(eventually([&] { return access::wants_of(*semaphore, side::cpu) != 0; }));
  access::release_as(*semaphore, side::gpu, 2);  // half of max() over
  EXPECT_EQ(access::permits_sent_by(*semaphore, side::gpu), 2u) << "the steal counted as an acquisition";
  EXPECT_TRUE(cpu_waiter.returned_within());
}

// A side's wants once asked never read 0 again, and a steal leaves the side it took from
// still one that only released: a GPU side that took the CPU's initial permits by a steal
// (its first ask, covered before anything was sent) is sent the next CPU release at once.
// Before, its wants read 0 again and the CPU kept what it released; the free slots of a
// GPU-to-host ring came back to its producers by a steal once a lap.
TEST(PartitionedSemaphoreForwarding, AStealThatCoversTheFirstAskLeavesItStanding)
{
  auto semaphore = std::make_shared<slow_steal_semaphore>(1);
  bounded_thread gpu_acquirer([semaphore] { access::acquire_as(*semaphore, side::gpu); });
  ASSERT_TRUE(gpu_acquirer.returned_within());  // the CPU's heartbeat never moved: at once
  EXPECT_NE(access::wants_of(*semaphore, side::gpu), 0u) << "the steal left the wants at 0";
  access::release_as(*semaphore, side::cpu);
  EXPECT_EQ(access::permits_sent_by(*semaphore, side::cpu), 1u) << "the CPU side kept its release";
  EXPECT_EQ(access::pool_count(*semaphore, side::gpu), 1);
}

// A GPU side that only releases sends its leftovers unasked once half of max() is over:
// the CPU side asks only when its waiters lack permits, and a ring's free slots, whose
// first lap starts in the CPU's pool, ran out there with nobody left to release on the
// GPU (the burst's items consumed), so the producers waited for the steal. A GPU side
// that takes tickets keeps to the interval.
TEST(PartitionedSemaphoreForwarding, AGpuSideThatOnlyReleasesSendsUnaskedOnceHalfOfMaxIsOver)
{
  {
    auto semaphore = std::make_shared<rare_link_check_semaphore>(0);
    access::release_as(*semaphore, side::gpu);  // the first link read: nobody asked
    access::release_as(*semaphore, side::gpu);  // two of four over
    EXPECT_EQ(access::wants_of(*semaphore, side::cpu), 0u);
    EXPECT_EQ(access::permits_sent_by(*semaphore, side::gpu), 2u) << "half of max() stayed in the GPU's pool";
    bounded_thread cpu_acquirer([semaphore] {
      semaphore->acquire();
      semaphore->acquire();
    });
    EXPECT_TRUE(cpu_acquirer.returned_within());
    EXPECT_EQ(access::count(*semaphore), 0);
  }
  {
    auto semaphore = std::make_shared<rare_link_check_semaphore>(0);
    access::release_as(*semaphore, side::gpu);
    access::acquire_as(*semaphore, side::gpu);  // a ticket of the GPU side
    access::release_as(*semaphore, side::gpu, 2);
    EXPECT_EQ(access::permits_sent_by(*semaphore, side::gpu), 0u) << "a side that acquires sent unasked";
    EXPECT_EQ(access::pool_count(*semaphore, side::gpu), 2);
  }
}

/// Turns of two acquisitions, a lone host thread's every fourth, and a steal too slow to
/// matter; `LoneTurnNs`: how long a lone thread's turn may last.
template <std::uint32_t LoneTurnNs>
struct lone_turn_tuning : slow_steal_tuning {
  static constexpr cuda::std::uint32_t cpu_turn_acquisitions = 2;
  static constexpr cuda::std::uint32_t gpu_turn_acquisitions = 2;
  static constexpr cuda::std::uint32_t link_check_interval_ns = 0;
  static constexpr cuda::std::uint32_t lone_turn_factor = 4;
  static constexpr cuda::std::uint32_t lone_turn_ns = LoneTurnNs;
};
template <std::uint32_t LoneTurnNs>
using lone_turn_semaphore =
    unisync::basic_partitioned_semaphore<1, unisync::basic_proportional_backoff<lone_turn_tuning<LoneTurnNs>>>;

/// The first `gives` CPU-side tickets at which one host thread, acquiring and releasing
/// pairs, gave its permit to a busy GPU side (a thread standing in for it); only those
/// more than `turn` tickets after the first it saw, where its run makes it alone (the GPU
/// side may take the initial permit by a steal around its first ticket: a CPU side whose
/// heartbeat never moved). The GPU side also keeps permits its releases found nobody on the CPU
/// side waiting for, so its acquisitions are not all gives.
template <class Semaphore>
std::vector<std::uint64_t> tickets_given_by_a_lone_thread(std::size_t gives, std::uint64_t turn)
{
  auto semaphore = std::make_shared<Semaphore>(1);
  auto stop = std::make_shared<std::atomic<bool>>(false);
  // Once the CPU thread stops, the GPU side takes the permit by the steal.
  bounded_thread gpu([semaphore, stop] {
    while (!stop->load()) {
      access::acquire_as(*semaphore, side::gpu);
      access::release_as(*semaphore, side::gpu);
    }
  });
  std::vector<std::uint64_t> given;
  auto const deadline = std::chrono::steady_clock::now() + unisync::test::generous_wait;
  std::uint64_t first = 0;
  for (bool started = false; given.size() < gives && std::chrono::steady_clock::now() < deadline; started = true) {
    // Alone on the CPU side: its next ticket is the side's next.
    auto const ticket = access::tickets_taken_on(*semaphore, side::cpu);
    if (!started) first = ticket;
    auto const sent = access::permits_sent_by(*semaphore, side::cpu);
    semaphore->acquire();
    if (access::permits_sent_by(*semaphore, side::cpu) != sent && ticket - first > turn) given.push_back(ticket);
    semaphore->release();
  }
  stop->store(true);
  EXPECT_EQ(given.size(), gives) << "the GPU side stopped getting the permit";
  EXPECT_TRUE(gpu.returned_within());
  return given;
}

// A host thread alone on the CPU side takes only every lone_turn_factor-th turn while its
// turns are short (the GPU side still gets the permit at those), and every turn once
// lone_turn_ns has passed at each.
TEST(PartitionedSemaphoreTurns, ALoneHostThreadTakesLongerTurns)
{
  using tuning = lone_turn_tuning<0>;
  constexpr std::uint64_t lone_turn = std::uint64_t{tuning::cpu_turn_acquisitions} * tuning::lone_turn_factor;
  constexpr std::uint64_t turn = tuning::cpu_turn_acquisitions;
  for (std::uint64_t const ticket :
       tickets_given_by_a_lone_thread<lone_turn_semaphore<1000u * 1000 * 1000>>(20, turn)) {
    EXPECT_EQ(ticket % lone_turn, 0u) << "a lone thread took the turn at ticket " << ticket;
  }
  bool between = false;
  for (std::uint64_t const ticket : tickets_given_by_a_lone_thread<lone_turn_semaphore<0>>(20, turn)) {
    between = between || ticket % lone_turn != 0;
  }
  EXPECT_TRUE(between) << "with lone_turn_ns = 0 a lone thread still skipped every turn between";
}

// try_acquire on a side without permits, repeated while the other side keeps cycling
// them, gets one: a failed try asks for a permit, and the busy side sends it at its turn.
TEST(PartitionedSemaphoreTry, RepeatedTriesGetAPermitFromABusyOtherSide)
{
  auto semaphore = std::make_shared<short_turn_semaphore<1>>(1);
  auto stop = std::make_shared<std::atomic<bool>>(false);
  bounded_thread busy([semaphore, stop] {
    while (!stop->load()) {
      access::acquire_as(*semaphore, side::cpu);
      access::release_as(*semaphore, side::cpu);
    }
  });
  EXPECT_TRUE(eventually([&] {
    if (!access::try_acquire_as(*semaphore, side::gpu)) return false;
    access::release_as(*semaphore, side::gpu);
    return true;
  }));
  stop->store(true);
  EXPECT_TRUE(busy.returned_within());
}

TEST(PartitionedSemaphoreTry, TryAcquireTakesOnlyFreePermitsAndNoTicket)
{
  unisync::partitioned_semaphore<> semaphore(2);
  EXPECT_TRUE(access::try_acquire_as(semaphore, side::cpu));
  EXPECT_TRUE(access::try_acquire_as(semaphore, side::cpu));
  EXPECT_FALSE(access::try_acquire_as(semaphore, side::cpu));
  EXPECT_FALSE(access::try_acquire_as(semaphore, side::gpu)) << "try_acquire never takes the other side's pool";
  EXPECT_EQ(access::count(semaphore), 0) << "a failed try_acquire takes no ticket";
  // The failed tries asked for a permit each: a release on the other side that no waiter
  // of its own takes sends it over, and the next try there finds it.
  access::release_as(semaphore, side::gpu);
  EXPECT_TRUE(access::try_acquire_as(semaphore, side::cpu));
  access::release_as(semaphore, side::cpu);
  EXPECT_TRUE(access::try_acquire_as(semaphore, side::gpu));
  EXPECT_EQ(access::count(semaphore), 0);
}

// The flat mode (native host atomics) is basic_counting_semaphore: the same properties.
TEST(PartitionedSemaphoreFlat, FlatModeNeverMoreThanNHolders)
{
  unisync::partitioned_semaphore<> semaphore(2);
  access::make_flat(semaphore);
  occupancy_record const record = hold_from_both_sides(semaphore, split{3, 3}, 300);
  EXPECT_LE(record.most_seen, 2);
  EXPECT_EQ(access::count(semaphore), 2);
  EXPECT_TRUE(access::try_acquire_for_as(semaphore, side::gpu, 0));
  EXPECT_EQ(access::count(semaphore), 1);
}

// acquire() and release() learn the flat mode from their first atomic on the side's pool:
// every permit must still move through the flat semaphore, whichever side and update.
TEST(PartitionedSemaphoreFlat, FlatModeAcquireAndReleaseUseTheFlatCount)
{
  unisync::partitioned_semaphore<> semaphore(1);
  access::make_flat(semaphore);
  access::release_as(semaphore, side::gpu, 2);
  EXPECT_EQ(access::count(semaphore), 3);
  access::acquire_as(semaphore, side::cpu);
  access::acquire_as(semaphore, side::gpu);
  access::acquire_as(semaphore, side::cpu);
  EXPECT_EQ(access::count(semaphore), 0);
  EXPECT_FALSE(access::try_acquire_as(semaphore, side::gpu));
  EXPECT_FALSE(access::try_acquire_as(semaphore, side::cpu));
  access::release_as(semaphore, side::cpu, 3);
  EXPECT_EQ(access::count(semaphore), 3);
  EXPECT_TRUE(access::try_acquire_as(semaphore, side::gpu));
  EXPECT_EQ(access::count(semaphore), 2);
}

TEST(PartitionedSemaphoreContract, MaxAndConstruction)
{
  static_assert(unisync::partitioned_semaphore<5>::max() == 5);
  static_assert(unisync::partitioned_binary_semaphore::max() == 1);
  static_assert(!std::is_copy_constructible_v<unisync::partitioned_binary_semaphore>);
  static_assert(!std::is_convertible_v<std::ptrdiff_t, unisync::partitioned_binary_semaphore>);
  static_assert(alignof(unisync::partitioned_semaphore<>) == 4096, "each part on a page of its own");
  EXPECT_THROW(unisync::partitioned_semaphore<4>(-1), unisync::error);
  EXPECT_THROW(unisync::partitioned_semaphore<4>(5), unisync::error);
  try {
    unisync::partitioned_binary_semaphore too_large(2);
    FAIL() << "constructed a binary semaphore with count 2";
  } catch (unisync::error const& refused) {
    EXPECT_NE(std::string(refused.what()).find("partitioned_semaphore(desired)"), std::string::npos) << refused.what();
  }
}

}  // namespace
