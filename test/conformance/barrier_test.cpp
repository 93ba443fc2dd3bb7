// The barriers against [thread.barrier.class], on CPU threads, over the barrier kinds of
// barrier_kinds.hpp (barrier, partitioned_barrier, partitioned_barrier in flat mode).
// Every wait is bounded: a barrier that blocks where std says it must not fails the test.

#include "barrier_kinds.hpp"
#include "bounded.hpp"
#include "flags.hpp"
#include "test_access.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

namespace {

using namespace std::chrono_literals;
using unisync::test::bounded_thread;
using unisync::test::eventually;

/// Counts the runs of a barrier's completion function and the arrivals they saw.
struct completion_log {
  std::atomic<int> arrivals{0};
  std::atomic<int> completions{0};
  std::atomic<int> early{0};  // completions that ran before every arrival of their phase
  int participants = 0;
};
struct logging_completion {
  completion_log* log;
  void operator()() const noexcept
  {
    int const phase = log->completions.load(std::memory_order_relaxed) + 1;
    if (log->arrivals.load(std::memory_order_relaxed) != phase * log->participants) log->early.fetch_add(1);
    log->completions.store(phase, std::memory_order_relaxed);
  }
};

template <class Kind>
class ConformanceBarrier : public ::testing::Test {
 protected:
  template <class Completion = unisync::empty_completion>
  using barrier_type = typename Kind::template type<Completion>;

  /// In a shared_ptr: a thread that hangs in it is detached and keeps its copy.
  template <class Completion = unisync::empty_completion, class... Args>
  static std::shared_ptr<barrier_type<Completion>> make(Args&&... args)
  {
    auto barrier = std::make_shared<barrier_type<Completion>>(std::forward<Args>(args)...);
    Kind::prepare(*barrier);
    return barrier;
  }
};
TYPED_TEST_SUITE(ConformanceBarrier, unisync::test::barrier_kinds_tested, unisync::test::type_names);

// [thread.barrier.class] max(): the largest expected count the implementation supports;
// barrier(expected, f): Preconditions: expected >= 0 and expected <= max() (checked in
// every build here), a constexpr constructor; arrival_token is a movable type.
TYPED_TEST(ConformanceBarrier, MaxAndConstructorPreconditions)
{
  using tested = typename TestFixture::template barrier_type<>;
  static_assert(noexcept(tested::max()));
  static_assert(tested::max() > 0);
  static_assert((tested(tested::max()), true), "constexpr constructor");
  static_assert(std::is_move_constructible_v<typename tested::arrival_token>);
  static_assert(std::is_move_assignable_v<typename tested::arrival_token>);
  static_assert(!std::is_copy_constructible_v<tested> && !std::is_move_constructible_v<tested>);
  EXPECT_NO_THROW(TestFixture::make(0));
  EXPECT_NO_THROW(TestFixture::make(tested::max()));
  EXPECT_THROW(TestFixture::make(-1), unisync::error);
  EXPECT_THROW(TestFixture::make(tested::max() + 1), unisync::error);
}

// [thread.barrier.class] arrive: "Effects: Constructs an object of type arrival_token ...
// decrements the expected count by update" -- it does not block: a participant's arrive
// returns before the other participant arrives, in every phase.
TYPED_TEST(ConformanceBarrier, ArriveNeverWaitsForAnotherParticipant)
{
  auto barrier = TestFixture::make(2);
  for (int phase = 1; phase <= 3; ++phase) {
    auto token = std::make_shared<typename TestFixture::template barrier_type<>::arrival_token>();
    bounded_thread arriving([barrier, token] { *token = barrier->arrive(); });
    ASSERT_TRUE(arriving.returned_within()) << "arrive() blocked until another participant arrived, phase " << phase;
    EXPECT_FALSE(barrier->try_wait(*token));
    barrier->arrive_and_wait();
    EXPECT_TRUE(barrier->try_wait(*token));
  }
}

// [thread.barrier.class] wait(arrival_token&&): blocks until the token's phase completes;
// the token is a value, so a thread other than the one that arrived may wait on it.
TYPED_TEST(ConformanceBarrier, ATokenIsWaitedOnByAnotherThread)
{
  auto barrier = TestFixture::make(2);
  for (int phase = 1; phase <= 3; ++phase) {
    auto token = barrier->arrive();
    auto released = std::make_shared<std::atomic<bool>>(false);
    bounded_thread waiter([barrier, released, moved = std::move(token)]() mutable {
      barrier->wait(std::move(moved));
      released->store(true);
    });
    EXPECT_FALSE(eventually([&] { return released->load(); }, 20ms)) << "released with a participant missing";
    bounded_thread last([barrier] { static_cast<void>(barrier->arrive()); });
    EXPECT_TRUE(last.returned_within());
    EXPECT_TRUE(waiter.returned_within()) << "the moved token's waiter was not released, phase " << phase;
  }
}

// [thread.barrier.class] wait: Preconditions: arrival is associated with the current phase
// or the immediately preceding one: waiting on the previous phase's token returns.
TYPED_TEST(ConformanceBarrier, WaitOnThePreviousPhasesTokenReturns)
{
  using token_type = typename TestFixture::template barrier_type<>::arrival_token;
  auto barrier = TestFixture::make(2);
  for (int phase = 1; phase <= 3; ++phase) {
    auto previous = std::make_shared<token_type>(barrier->arrive());
    bounded_thread other([barrier] { static_cast<void>(barrier->arrive()); });  // completes the phase
    ASSERT_TRUE(other.returned_within());
    auto current = std::make_shared<token_type>(barrier->arrive());  // the next phase, still open
    bounded_thread waiter([barrier, previous] { barrier->wait(std::move(*previous)); });
    EXPECT_TRUE(waiter.returned_within()) << "a token of the phase before blocked, phase " << phase;
    bounded_thread last([barrier] { static_cast<void>(barrier->arrive()); });
    ASSERT_TRUE(last.returned_within());
    bounded_thread current_waiter([barrier, current] { barrier->wait(std::move(*current)); });
    ASSERT_TRUE(current_waiter.returned_within());
  }
}

// [thread.barrier.class] arrive_and_drop: decrements the initial expected count for all
// subsequent phases by one, then arrives.
TYPED_TEST(ConformanceBarrier, ArriveAndDropReducesLaterPhases)
{
  auto barrier = TestFixture::make(3);
  bounded_thread dropper([barrier] { barrier->arrive_and_drop(); });
  EXPECT_TRUE(dropper.returned_within());
  bounded_thread stayer([barrier] {
    for (int phase = 1; phase <= 5; ++phase) barrier->arrive_and_wait();
  });
  for (int phase = 1; phase <= 5; ++phase) {
    auto token = std::make_shared<typename TestFixture::template barrier_type<>::arrival_token>(barrier->arrive());
    bounded_thread waiter([barrier, token] { barrier->wait(std::move(*token)); });
    ASSERT_TRUE(waiter.returned_within()) << "phase " << phase << " waited for the dropped participant";
  }
  EXPECT_TRUE(stayer.returned_within());
}

// [thread.barrier.class] (phase completion step): the completion function runs exactly
// once per phase, after the phase's last arrival and before any waiter is released.
TYPED_TEST(ConformanceBarrier, CompletionRunsOncePerPhaseBeforeAnyWaiterIsReleased)
{
  constexpr int participants = 3;
  constexpr int phases = 1000;
  auto log = std::make_shared<completion_log>();
  log->participants = participants;
  auto barrier = TestFixture::template make<logging_completion>(participants, logging_completion{log.get()});
  auto released_early = std::make_shared<std::atomic<int>>(0);
  std::vector<std::unique_ptr<bounded_thread>> threads;
  for (int participant = 0; participant < participants; ++participant) {
    threads.push_back(std::make_unique<bounded_thread>([barrier, log, released_early] {
      for (int phase = 1; phase <= phases; ++phase) {
        log->arrivals.fetch_add(1, std::memory_order_relaxed);
        barrier->arrive_and_wait();
        if (log->completions.load(std::memory_order_relaxed) != phase) released_early->fetch_add(1);
      }
    }));
  }
  for (auto& thread : threads) ASSERT_TRUE(thread->returned_within());
  EXPECT_EQ(log->completions.load(), phases) << "one completion per phase";
  EXPECT_EQ(log->early.load(), 0) << "a completion ran before its phase's last arrival";
  EXPECT_EQ(released_early->load(), 0) << "a waiter left before its phase's completion";
}

/// A completion function that can be moved but not copied, and runs as a non-const lvalue.
struct move_only_completion {
  std::atomic<int>* runs;
  std::unique_ptr<int> owned = std::make_unique<int>(0);  // what makes it move-only
  void operator()() noexcept { runs->fetch_add(1, std::memory_order_relaxed); }
};

// [thread.barrier.class] CompletionFunction meets Cpp17MoveConstructible (not copyable) and
// is_nothrow_invocable_v<CompletionFunction&>; the constructor initializes completion with
// std::move(f).
TYPED_TEST(ConformanceBarrier, TakesAMoveOnlyCompletionFunction)
{
  static_assert(!std::is_copy_constructible_v<move_only_completion>);
  constexpr int participants = 2;
  constexpr int phases = 100;
  auto runs = std::make_shared<std::atomic<int>>(0);
  auto barrier = TestFixture::template make<move_only_completion>(participants, move_only_completion{runs.get()});
  std::vector<std::unique_ptr<bounded_thread>> threads;
  for (int participant = 0; participant < participants; ++participant) {
    threads.push_back(std::make_unique<bounded_thread>([barrier] {
      for (int phase = 0; phase < phases; ++phase) barrier->arrive_and_wait();
    }));
  }
  for (auto& thread : threads) ASSERT_TRUE(thread->returned_within());
  EXPECT_EQ(runs->load(), phases);
}

// [thread.barrier.class] arrive then wait: in every phase a participant may arrive, then
// do what another participant waits for before it arrives, then wait (split-phase use),
// each participant leading in every other phase; 1000 phases.
TYPED_TEST(ConformanceBarrier, SplitPhaseWorksInEveryPhase)
{
  constexpr std::uint32_t phases = 1000;
  auto barrier = TestFixture::make(2);
  auto signals = std::make_shared<unisync::test::split_phase_signals>();
  bounded_thread first([barrier, signals] { unisync::test::arrive_signal_wait(*barrier, *signals, 0, phases); });
  bounded_thread second([barrier, signals] { unisync::test::arrive_signal_wait(*barrier, *signals, 1, phases); });
  EXPECT_TRUE(first.returned_within());
  EXPECT_TRUE(second.returned_within());
  EXPECT_EQ(signals->failures, 0u) << "a leader's arrive() waited for the follower to arrive";
  EXPECT_EQ(signals->raised[0], phases);
  EXPECT_EQ(signals->raised[1], phases);
}

// [thread.barrier.class] each phase completion step starts the next phase exactly once:
// the open phase's number advances once per arrive_and_wait of a sole participant.
TEST(ConformanceBarrierPhase, ThePhaseAdvancesOncePerPhase)
{
  unisync::barrier<> barrier(1);
  for (std::uint32_t phase = 0; phase < 8; ++phase) {
    EXPECT_EQ(unisync::detail::test_access::open_phase(barrier), phase);
    barrier.arrive_and_wait();
  }
}

/// Rounds of a test: every thread waits here until all of them reached the end of the
/// round (a plain condition variable, not the barrier under test).
class round_gate {
 public:
  explicit round_gate(unsigned threads) : threads_(threads) {}
  void pass()
  {
    std::unique_lock<std::mutex> lock(mutex_);
    unsigned const round = round_;
    if (++arrived_ == threads_) {
      arrived_ = 0;
      ++round_;
      changed_.notify_all();
      return;
    }
    changed_.wait(lock, [&] { return round_ != round; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  unsigned const threads_;
  unsigned arrived_ = 0;
  unsigned round_ = 0;
};

/// Counts the runs of a barrier's completion function.
struct counting_completion {
  std::atomic<std::uint32_t>* runs;
  void operator()() const noexcept { runs->fetch_add(1, std::memory_order_relaxed); }
};

/// The runs of a barrier's completion function, and how many began while another ran.
struct overlap_log {
  std::atomic<std::uint32_t> runs{0};
  std::atomic<std::uint32_t> overlapping{0};
  std::atomic<bool> running{false};
};

/// Counts its runs in a completion_log and checks that none begins before the previous
/// one ended (each phase completes after the one before it).
struct one_at_a_time_completion {
  overlap_log* log;
  void operator()() const noexcept
  {
    if (log->running.exchange(true)) log->overlapping.fetch_add(1);
    log->runs.fetch_add(1);
    log->running.store(false);
  }
};

/// `multiple` times `expected` threads arrive_and_wait() once per round on a barrier of
/// `expected` (of kind `Kind`), rounds apart: each round is `multiple` phases. Checks that
/// the phases advance by exactly that much per round and that no thread leaves before its
/// own phase completed: at most j * expected threads of a round may leave having seen only
/// its first j phases complete.
template <class Kind, class Completion>
void check_oversubscribed(std::uint32_t expected, std::uint32_t multiple, std::uint32_t rounds)
{
  std::uint32_t const threads = expected * multiple;
  auto log = std::make_shared<overlap_log>();
  using barrier_type = typename Kind::template type<Completion>;
  auto barrier = [&] {
    if constexpr (std::is_same_v<Completion, unisync::empty_completion>) {
      return std::make_shared<barrier_type>(expected);
    } else {
      return std::make_shared<barrier_type>(expected, Completion{log.get()});
    }
  }();
  auto gate = std::make_shared<round_gate>(threads);
  // completions_seen[r * threads + t]: the phases thread t saw completed when it left round r
  auto seen = std::make_shared<std::vector<std::uint32_t>>(std::size_t{rounds} * threads);
  std::vector<std::unique_ptr<bounded_thread>> running;
  for (std::uint32_t thread = 0; thread < threads; ++thread) {
    running.push_back(std::make_unique<bounded_thread>([=] {
      for (std::uint32_t round = 0; round < rounds; ++round) {
        barrier->arrive_and_wait();
        (*seen)[std::size_t{round} * threads + thread] = unisync::detail::test_access::open_phase(*barrier);
        gate->pass();
      }
    }));
  }
  for (auto& thread : running) ASSERT_TRUE(thread->returned_within()) << "a round never completed its phases";
  EXPECT_EQ(unisync::detail::test_access::open_phase(*barrier), rounds * multiple);
  if constexpr (!std::is_same_v<Completion, unisync::empty_completion>) {
    EXPECT_EQ(log->runs.load(), rounds * multiple) << "one completion per phase";
    EXPECT_EQ(log->overlapping.load(), 0u) << "completions of two phases ran at once";
  }
  for (std::uint32_t round = 0; round < rounds; ++round) {
    for (std::uint32_t completed = round * multiple; completed < (round + 1) * multiple; ++completed) {
      auto const begin = seen->begin() + std::ptrdiff_t{round} * threads;
      auto const left = static_cast<std::uint32_t>(
          std::count_if(begin, begin + threads, [&](std::uint32_t phases) { return phases <= completed; }));
      EXPECT_LE(left, (completed - round * multiple) * expected)
          << left << " threads left round " << round << " with " << completed << " phases completed";
    }
  }
}

/// The barrier kinds that count arrivals beyond a phase in the next one (the partitioned
/// barrier with every thread on one side; in flat mode it refuses them).
template <class Kind>
class ConformanceBarrierMoreThreadsThanExpected : public ::testing::Test {};
using counting_beyond_a_phase = ::testing::Types<unisync::test::central_barrier_kind,
                                                 unisync::test::central_barrier_arming_ahead_kind,
                                                 unisync::test::partitioned_barrier_kind>;
TYPED_TEST_SUITE(ConformanceBarrierMoreThreadsThanExpected, counting_beyond_a_phase, unisync::test::type_names);

// [thread.barrier.class] arrive: "decrements the expected count by update"; at zero the
// phase completes and the next phase starts with the expected count reset: arrivals
// beyond a phase's expected count (more threads than the barrier expects) are arrivals of
// the next phase, and their waits return when that phase completes. Threads race into
// each phase, before its first arrival has armed it and, with a completion function,
// while it runs; for the partitioned barrier also into its first phase, which learns the
// split while arrivals beyond it come in.
TYPED_TEST(ConformanceBarrierMoreThreadsThanExpected, ArrivalsBeyondAPhaseCountInTheNext)
{
  for (std::uint32_t expected : {1u, 2u, 3u}) {
    for (std::uint32_t multiple : {2u, 3u}) {
      check_oversubscribed<TypeParam, unisync::empty_completion>(expected, multiple, 300);
      check_oversubscribed<TypeParam, one_at_a_time_completion>(expected, multiple, 300);
    }
  }
}

// [thread.barrier.class] the same for one addition of several arrivals (a warp's lanes
// or a block, as the device's group arrivals add them): its arrivals fill the open phase,
// then whole phases, in order, and each one's token is that of its own phase.
TEST(ConformanceBarrierMoreThreadsThanExpected, OneAdditionOfSeveralArrivalsSpansPhases)
{
  using unisync::detail::test_access;
  std::atomic<std::uint32_t> runs{0};
  unisync::barrier<counting_completion> barrier(3, counting_completion{&runs});
  auto first = barrier.arrive();                        // phase 0: 1 of 3
  auto const placed = test_access::arrive_lanes(barrier, 6);  // 2 in phase 0, 3 in phase 1, 1 in phase 2
  EXPECT_EQ(placed.phase_of(0), 0u);
  EXPECT_EQ(placed.phase_of(1), 0u);
  for (std::uint32_t rank = 2; rank < 5; ++rank) EXPECT_EQ(placed.phase_of(rank), 1u) << "rank " << rank;
  EXPECT_EQ(placed.phase_of(5), 2u);
  EXPECT_EQ(runs.load(), 2u) << "the addition completed phases 0 and 1";
  EXPECT_TRUE(barrier.try_wait(first));
  EXPECT_TRUE(barrier.try_wait(placed.token_of(4)));
  auto last = placed.token_of(5);
  EXPECT_FALSE(barrier.try_wait(last)) << "phase 2 has 1 of its 3 arrivals";
  auto rest = test_access::arrive_lanes(barrier, 2);
  EXPECT_TRUE(barrier.try_wait(last));
  EXPECT_TRUE(barrier.try_wait(rest.token_of(1)));
  EXPECT_EQ(runs.load(), 3u);
  EXPECT_EQ(test_access::open_phase(barrier), 3u);
}

// [thread.barrier.class] the same for the partitioned barrier, with every arrival on one
// side (host threads stand in for the GPU's): one addition fills the first phase, which
// runs on the central word, and goes on into the side's phases; later additions span the
// side's phases; each arrival's token is that of its own phase.
TEST(ConformancePartitionedBarrierMoreThreadsThanExpected, OneAdditionOfSeveralArrivalsSpansPhases)
{
  using unisync::detail::test_access;
  for (auto const which : {test_access::side::cpu, test_access::side::gpu}) {
    std::atomic<std::uint32_t> runs{0};
    auto barrier = std::make_unique<unisync::partitioned_barrier<counting_completion>>(3, counting_completion{&runs});
    auto first = test_access::arrive_as(*barrier, which);     // phase 0: 1 of 3
    auto placed = test_access::arrive_lanes(*barrier, which, 6);  // 2 in phase 0, 3 in phase 1, 1 in phase 2
    EXPECT_TRUE(placed.span_phases());
    EXPECT_EQ(placed.phase_of(0), placed.phase_of(1));
    EXPECT_NE(placed.phase_of(1), placed.phase_of(2));
    EXPECT_EQ(placed.phase_of(2), placed.phase_of(4));
    EXPECT_NE(placed.phase_of(4), placed.phase_of(5));
    EXPECT_EQ(runs.load(), 2u) << "the addition completed phases 0 and 1";
    EXPECT_TRUE(barrier->try_wait(first));
    for (std::uint32_t rank = 0; rank < 5; ++rank) EXPECT_TRUE(barrier->try_wait(placed.token_of(rank))) << rank;
    auto last = placed.token_of(5);
    EXPECT_FALSE(barrier->try_wait(last)) << "phase 2 has 1 of its 3 arrivals";
    auto rest = test_access::arrive_lanes(*barrier, which, 2);
    EXPECT_TRUE(barrier->try_wait(last));
    EXPECT_TRUE(barrier->try_wait(rest.token_of(1)));
    EXPECT_EQ(runs.load(), 3u);
    EXPECT_EQ(test_access::open_phase(*barrier), 3u);
    // A side phase's first addition of 8 arrivals, 2 2/3 phases: the arm completes two.
    auto const spanning = test_access::arrive_lanes(*barrier, which, 8);
    EXPECT_EQ(runs.load(), 5u);
    EXPECT_TRUE(barrier->try_wait(spanning.token_of(5)));
    EXPECT_FALSE(barrier->try_wait(spanning.token_of(6)));
    test_access::wait_as(*barrier, which, test_access::arrive_as(*barrier, which));
    EXPECT_TRUE(barrier->try_wait(spanning.token_of(7)));
    EXPECT_EQ(test_access::open_phase(*barrier), 6u);
  }
}

// [thread.barrier.class] arrive_and_drop on a side that has the barrier to itself, with
// arrivals beyond the phase: the drop lowers the expected count of the phases after its
// own, and the arrivals beyond a phase are placed by the participants of each phase.
TEST(ConformancePartitionedBarrierMoreThreadsThanExpected, ADropLowersThePhasesAfterItsOwn)
{
  using unisync::detail::test_access;
  auto barrier = std::make_unique<unisync::partitioned_barrier<>>(3);
  test_access::wait_as(*barrier, test_access::side::cpu, test_access::arrive_lanes(*barrier, test_access::side::cpu, 3).token_of(2));
  barrier->arrive_and_drop();                                             // phase 1: 1 of 3, and 2 from phase 2 on
  auto const placed = test_access::arrive_lanes(*barrier, test_access::side::cpu, 5);  // 2 in phase 1, 2 in 2, 1 in 3
  EXPECT_TRUE(barrier->try_wait(placed.token_of(1)));
  EXPECT_TRUE(barrier->try_wait(placed.token_of(3)));
  EXPECT_FALSE(barrier->try_wait(placed.token_of(4)));
  EXPECT_EQ(test_access::open_phase(*barrier), 3u);
  static_cast<void>(barrier->arrive());
  EXPECT_TRUE(barrier->try_wait(placed.token_of(4)));
  EXPECT_EQ(test_access::open_phase(*barrier), 4u);
}

// [thread.barrier.class] arrive never blocks, with participants on both sides of a
// partitioned barrier: the CPU's arrival must not wait for the GPU side (simulated here
// by the split the first phase would have found: one CPU and one GPU participant). Fails
// while a side's last arrival does the cross-link handshake itself.
TEST(ConformancePartitionedBarrier, ArriveNeverWaitsForTheOtherSide)
{
  auto barrier = std::make_shared<unisync::partitioned_barrier<>>(2);
  unisync::detail::test_access::assume_split(*barrier, 1, 1);
  bounded_thread arriving([barrier] { static_cast<void>(barrier->arrive()); });
  EXPECT_TRUE(arriving.returned_within(5s)) << "the CPU's arrive() waited for the GPU side to arrive";
}

}  // namespace
