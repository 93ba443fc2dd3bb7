// Barriers on CPU threads, over every barrier type: the phase checker, the completion
// function (once per phase, after every arrival), arrive_and_drop, arrive(update), tokens
// and timed waits.

#include "actors.hpp"
#include "barrier_kinds.hpp"
#include "bounded.hpp"
#include "checks.hpp"
#include "test_access.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace std::chrono_literals;
using unisync::test::checking_completion;
using unisync::test::phase_record;
using unisync::test::run_cpu_actors;

/// The usual thread counts, and one at which host waiters poll the completion's hint line
/// instead of the barrier's word (tuning::host_hint_min_participants), whatever the
/// machine's core count.
std::vector<unsigned> barrier_thread_counts()
{
  std::vector<unsigned> counts = unisync::test::cpu_thread_counts();
  unsigned const hinted = unisync::tuning::host_hint_min_participants + 1;
  if (std::find(counts.begin(), counts.end(), hinted) == counts.end()) counts.push_back(hinted);
  return counts;
}

struct phase_harness {
  explicit phase_harness(unsigned participants) : slots(participants, 0)
  {
    record.slots = slots.data();
    record.participants = participants;
    record.violations = &violations;
    record.completions = &completions;
  }
  std::vector<std::uint32_t> slots;
  std::uint32_t violations = 0;
  std::uint32_t completions = 0;
  phase_record record;
};

template <class Kind>
class HostBarrier : public ::testing::Test {
 protected:
  template <class Completion = unisync::empty_completion>
  using barrier_type = typename Kind::template type<Completion>;

  /// A barrier on the heap (the partitioned barrier's pages make it 16 KiB).
  template <class Completion = unisync::empty_completion, class... Args>
  static std::unique_ptr<barrier_type<Completion>> make(Args&&... args)
  {
    auto barrier = std::make_unique<barrier_type<Completion>>(std::forward<Args>(args)...);
    Kind::prepare(*barrier);
    return barrier;
  }

  /// A barrier for the phase checker, with checking_completion or the default completion.
  template <class Completion>
  static auto make_checked(unsigned participants, phase_record const& record)
  {
    using barrier = barrier_type<Completion>;
    return unisync::test::make_checked_barrier<barrier>(
        [](auto... arguments) { return make<Completion>(arguments...); }, participants, record);
  }

  template <class Completion>
  static void expect_completions(phase_harness const& harness, std::uint32_t phases)
  {
    if constexpr (unisync::test::counts_completions<barrier_type<Completion>>) {
      EXPECT_EQ(harness.completions, phases) << "the completion function runs exactly once per phase";
    }
  }

  template <class Completion>
  static void check_phases(unsigned threads, std::uint32_t phases)
  {
    phase_harness harness(threads);
    auto barrier = make_checked<Completion>(threads, harness.record);
    run_cpu_actors(threads, [&](unsigned actor) {
      for (std::uint32_t phase = 1; phase <= phases; ++phase) {
        harness.record.before_arriving(actor, phase);
        barrier->arrive_and_wait();
        harness.record.after_passing(0, threads, phase);
      }
    });
    EXPECT_EQ(harness.violations, 0u) << threads << " threads";
    expect_completions<Completion>(harness, phases);
  }

  /// Participant k leaves in phase `first_drop + k * spacing`, the last one stays to
  /// `phases`. Drops in the first phase (the partitioned barrier's learning phase) are
  /// DropInTheFirstPhase's.
  template <class Completion>
  static void check_drops(unsigned threads, std::uint32_t first_drop, std::uint32_t spacing, std::uint32_t phases)
  {
    phase_harness harness(threads);
    auto barrier = make_checked<Completion>(threads, harness.record);
    run_cpu_actors(threads, [&](unsigned actor) {
      std::uint32_t const last = actor == threads - 1 ? phases : first_drop + actor * spacing;
      for (std::uint32_t phase = 1; phase <= last; ++phase) {
        harness.record.before_arriving(actor, phase);
        if (phase == last && actor != threads - 1) {
          harness.record.before_arriving(actor, phase_record::dropped);
          barrier->arrive_and_drop();
          return;
        }
        barrier->arrive_and_wait();
        harness.record.after_passing(0, threads, phase);
      }
    });
    EXPECT_EQ(harness.violations, 0u) << threads << " threads";
    expect_completions<Completion>(harness, phases);
  }
};
using barrier_kinds =
    ::testing::Types<unisync::test::central_barrier_kind, unisync::test::central_barrier_arming_ahead_kind,
                     unisync::test::partitioned_barrier_kind, unisync::test::flat_partitioned_barrier_kind>;
TYPED_TEST_SUITE(HostBarrier, barrier_kinds, unisync::test::type_names);

TYPED_TEST(HostBarrier, NoParticipantLeavesPhaseEarly)
{
  for (unsigned threads : barrier_thread_counts()) {
    TestFixture::template check_phases<checking_completion>(threads, 2000);
  }
}

TYPED_TEST(HostBarrier, NoParticipantLeavesPhaseEarlyWithTheDefaultCompletion)
{
  for (unsigned threads : barrier_thread_counts()) {
    TestFixture::template check_phases<unisync::empty_completion>(threads, 2000);
  }
}

TYPED_TEST(HostBarrier, AWaiterDecidesOnTheWordWhenTheHintLooksUnchanged)
{
  // Enough participants that a host waiter polls the hint line first.
  constexpr auto participants = static_cast<std::ptrdiff_t>(unisync::tuning::host_hint_min_participants + 1);
  auto barrier = TestFixture::make(participants);
  barrier->wait(barrier->arrive(participants));  // phase 0: a partitioned barrier learns its split
  auto token = barrier->arrive(1);
  barrier->wait(barrier->arrive(participants - 1));  // completes the phase, then stores the hint
  unisync::detail::test_access::flip_hint(*barrier);
  EXPECT_TRUE(barrier->try_wait(token));
  EXPECT_TRUE(barrier->try_wait_for(token, 10s)) << "a stale hint held a waiter of a completed phase";
  barrier->wait(std::move(token));  // returns within 64 polls, or the test times out
}

TYPED_TEST(HostBarrier, ArriveAndDropShrinksLaterPhases)
{
  TestFixture::template check_drops<checking_completion>(4, 10, 10, 100);
}

TYPED_TEST(HostBarrier, ArriveAndDropShrinksLaterPhasesWithTheDefaultCompletion)
{
  // One drop every other phase: with the default completion the next phase opens at the
  // carry, so its arrivals race its first arrival's arm (which may then complete it), and
  // the drop is often the first or the last arrival of its phase.
  for (int round = 0; round < 20; ++round) TestFixture::template check_drops<unisync::empty_completion>(12, 2, 2, 40);
}

TYPED_TEST(HostBarrier, DropInTheFirstPhase)
{
  constexpr unsigned threads = 3;
  phase_harness harness(threads);
  auto barrier = TestFixture::template make<checking_completion>(threads, checking_completion{harness.record});
  run_cpu_actors(threads, [&](unsigned actor) {
    if (actor == 0) {
      harness.record.before_arriving(actor, phase_record::dropped);
      barrier->arrive_and_drop();
      return;
    }
    for (std::uint32_t phase = 1; phase <= 50; ++phase) {
      harness.record.before_arriving(actor, phase);
      barrier->arrive_and_wait();
      harness.record.after_passing(0, threads, phase);
    }
  });
  EXPECT_EQ(harness.violations, 0u);
  EXPECT_EQ(harness.completions, 50u);
}

TYPED_TEST(HostBarrier, ArriveWithUpdateCountsSeveralArrivals)
{
  // Expected 5: this thread arrives with 3 and then 1, the other thread with 1.
  int completions = 0;
  auto count = [&]() noexcept { ++completions; };
  auto barrier = TestFixture::template make<decltype(count)>(5, count);
  std::thread other([&] {
    for (int phase = 0; phase < 100; ++phase) barrier->arrive_and_wait();
  });
  for (int phase = 0; phase < 100; ++phase) {
    auto three = barrier->arrive(3);
    barrier->wait(barrier->arrive(1));
    EXPECT_TRUE(barrier->try_wait(three));
    EXPECT_EQ(completions, phase + 1);
  }
  other.join();
}

TYPED_TEST(HostBarrier, WaitOnATokenAfterOtherWork)
{
  auto barrier = TestFixture::make(2);
  for (int phase = 0; phase < 3; ++phase) {
    auto token = barrier->arrive();
    EXPECT_FALSE(barrier->try_wait(token)) << "phase " << phase << " completed with a participant missing";
    std::thread other([&] { barrier->arrive_and_wait(); });
    barrier->wait(std::move(token));
    other.join();
  }
}

TYPED_TEST(HostBarrier, TimedWaitReturnsFalseWhileAParticipantIsMissing)
{
  auto barrier = TestFixture::make(2);
  auto token = barrier->arrive();
  auto const start = std::chrono::steady_clock::now();
  EXPECT_FALSE(barrier->try_wait_for(token, 30ms));
  auto const waited = std::chrono::steady_clock::now() - start;
  EXPECT_GE(waited, 30ms);
  EXPECT_LT(waited, 30ms + 5s);
  EXPECT_FALSE(barrier->try_wait_for(token, cuda::std::chrono::milliseconds(1)));
  EXPECT_FALSE(barrier->try_wait_until(token, std::chrono::steady_clock::now() + 5ms));
  auto const soon = cuda::std::chrono::system_clock::now() + cuda::std::chrono::milliseconds(1);
  EXPECT_FALSE(barrier->try_wait_until(token, soon));
  barrier->arrive_and_drop();
  EXPECT_TRUE(barrier->try_wait_for(token, 0ms)) << "the token stays valid after a timeout";
  EXPECT_TRUE(barrier->try_wait_until(token, std::chrono::steady_clock::now() - 1s)) << "a past deadline tries once";
}

TYPED_TEST(HostBarrier, ApiMatchesStd)
{
  using tested = typename TestFixture::template barrier_type<>;
  static_assert(tested::max() >= (1 << 22) - 1, "room for every thread a GPU can keep resident, and more");
  static_assert(!std::is_copy_constructible_v<tested>);
  static_assert(!std::is_move_constructible_v<tested>);
  static_assert(!std::is_convertible_v<std::ptrdiff_t, tested>, "explicit constructor");
  EXPECT_THROW(tested negative(-1), unisync::error);
  EXPECT_THROW(tested too_large(tested::max() + 1), unisync::error);
}

TEST(HostBarrier, NoBackoffVariantKeepsPhases)
{
  constexpr unsigned threads = 3;
  phase_harness harness(threads);
  unisync::basic_barrier<cuda::thread_scope_system, checking_completion, unisync::no_backoff> barrier(
      threads, checking_completion{harness.record});
  run_cpu_actors(threads, [&](unsigned actor) {
    for (std::uint32_t phase = 1; phase <= 500; ++phase) {
      harness.record.before_arriving(actor, phase);
      barrier.arrive_and_wait();
      harness.record.after_passing(0, threads, phase);
    }
  });
  EXPECT_EQ(harness.violations, 0u);
  EXPECT_EQ(harness.completions, 500u);
}

/// Whether `arrive` throws unisync::error whose message contains `cause` (the message is
/// printed when not).
template <class Arrive>
::testing::AssertionResult refused_naming(Arrive arrive, std::string const& cause)
{
  try {
    arrive();
  } catch (unisync::error const& refused) {
    if (std::string(refused.what()).find(cause) != std::string::npos) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "refused with another message: " << refused.what();
  }
  return ::testing::AssertionFailure() << "accepted";
}

TEST(HostPartitionedBarrier, RefusesArrivalsBeyondTheSidesShare)
{
  // As if the first phase had found one CPU and one GPU participant: a second CPU arrival
  // in a phase means a participant moved sides, which is refused, not waited on forever.
  auto barrier = std::make_unique<unisync::partitioned_barrier<>>(2);
  unisync::detail::test_access::assume_split(*barrier, 1, 1);
  EXPECT_TRUE(refused_naming([&] { static_cast<void>(barrier->arrive(2)); },
                             "must not move between the CPU and the GPU"))
      << "two CPU arrivals with a CPU share of one";
}

TEST(HostPartitionedBarrier, RefusesArrivalsBeyondTheFirstPhaseFromBothSides)
{
  // The split it learns is the set of threads that arrive in the first phase: with
  // participants on both sides and arrivals beyond the phase (here one CPU arrival and two
  // GPU arrivals on a barrier of two) it cannot tell which belong to the next phase, and
  // refuses them.
  using unisync::detail::test_access;
  auto barrier = std::make_unique<unisync::partitioned_barrier<>>(2);
  static_cast<void>(test_access::arrive_as(*barrier, test_access::side::cpu));
  EXPECT_TRUE(refused_naming([&] { static_cast<void>(test_access::arrive_lanes(*barrier, test_access::side::gpu, 2)); },
                             "on both the CPU and the GPU"));
}

TEST(HostPartitionedBarrier, AnArrivalAtABarrierWithoutParticipantsIsRefused)
{
  // Not a wait for a first phase that nobody can complete.
  auto none = std::make_unique<unisync::partitioned_barrier<>>(0);
  EXPECT_TRUE(refused_naming([&] { static_cast<void>(none->arrive()); }, "has no participant"));
}

TEST(HostPartitionedBarrier, ArrivalsBeyondTheFirstPhaseAfterTheOtherSideDroppedCountInTheNext)
{
  // The CPU's one participant leaves in the first phase; three GPU arrivals in one
  // addition then complete it and go on into the next: the split is the GPU's alone.
  using unisync::detail::test_access;
  auto barrier = std::make_unique<unisync::partitioned_barrier<>>(3);
  barrier->arrive_and_drop();
  auto const placed = test_access::arrive_lanes(*barrier, test_access::side::gpu, 3);
  EXPECT_TRUE(placed.span_phases());
  EXPECT_TRUE(barrier->try_wait(placed.token_of(1)));
  EXPECT_FALSE(barrier->try_wait(placed.token_of(2))) << "the next phase has 1 of its 2 arrivals";
  static_cast<void>(test_access::arrive_as(*barrier, test_access::side::gpu));
  EXPECT_TRUE(barrier->try_wait(placed.token_of(2)));
  EXPECT_EQ(test_access::open_phase(*barrier), 2u);
}

TEST(HostPartitionedBarrier, RefusesArrivalsBeyondAPhaseInFlatMode)
{
  auto barrier = std::make_unique<unisync::partitioned_barrier<>>(2);
  unisync::detail::test_access::make_flat(*barrier);
  EXPECT_TRUE(refused_naming([&] { static_cast<void>(unisync::detail::test_access::arrive_lanes(
                                 *barrier, unisync::detail::test_access::side::cpu, 3)); },
                             "in flat mode"))
      << "three arrivals in a phase of two";
}

TEST(HostPartitionedBarrier, RefusesAnArrivalOnASideWithoutParticipants)
{
  // The first phase found only CPU participants: a GPU arrival after it is one that moved.
  using unisync::detail::test_access;
  auto barrier = std::make_unique<unisync::partitioned_barrier<>>(1);
  barrier->arrive_and_wait();
  EXPECT_TRUE(refused_naming([&] { static_cast<void>(test_access::arrive_as(*barrier, test_access::side::gpu)); },
                             "must not move between the CPU and the GPU"));
  // The CPU's one participant left: an arrival or a drop after that is one too many (each
  // on a barrier of its own: a refused arrival leaves its barrier unusable).
  for (bool const drop : {false, true}) {
    auto left = std::make_unique<unisync::partitioned_barrier<>>(1);
    left->arrive_and_wait();
    left->arrive_and_drop();
    EXPECT_TRUE(refused_naming([&] { static_cast<void>(test_access::arrive_as(*left, test_access::side::cpu, 1, drop)); },
                               "has no participant"))
        << (drop ? "arrive_and_drop" : "arrive");
  }
}

TEST(HostBarrier, AnArrivalAtABarrierWithoutParticipantsIsRefused)
{
  unisync::barrier<> none(0);
  EXPECT_THROW(static_cast<void>(none.arrive()), unisync::error);
  unisync::barrier<> alone(1);
  alone.arrive_and_drop();  // completes its phase and leaves no participant
  EXPECT_THROW(static_cast<void>(alone.arrive()), unisync::error);
}

/// A completion function that counts its runs.
struct run_counter {
  std::atomic<std::uint32_t>* runs;
  void operator()() const noexcept { ++*runs; }
};

// The thread that completes a phase of few additions (at most
// tuning::barrier_arm_ahead_additions of its addition's weight), or completes it with its
// arm, arms the next phase too, so that its first arrival adds once; with the default
// completion and with a completion function. On the GPU by default, on the host with a
// tuning that asks for it.
template <class Completion>
using arming_ahead_barrier = unisync::test::central_barrier_arming_ahead_kind::type<Completion>;

TEST(HostBarrier, APhaseOfFewAdditionsLeavesTheNextArmed)
{
  using unisync::detail::test_access;
  std::atomic<std::uint32_t> runs{0};
  arming_ahead_barrier<unisync::empty_completion> plain(2);
  arming_ahead_barrier<run_counter> counted(2, run_counter{&runs});
  auto two_arrivals = [](auto& barrier, int phase) {
    auto first = barrier.arrive();
    EXPECT_FALSE(barrier.try_wait(first)) << "phase " << phase << " completed with one of two arrivals";
    barrier.wait(barrier.arrive());
    EXPECT_TRUE(barrier.try_wait(first));
    EXPECT_TRUE(test_access::open_phase_armed(barrier)) << "phase " << phase + 1 << " was not armed ahead";
  };
  for (int phase = 0; phase < 3; ++phase) {
    two_arrivals(plain, phase);
    two_arrivals(counted, phase);
  }
  EXPECT_EQ(runs.load(), 3u);
  // Sixteen arrivals a phase: an arrival of one that completes it leaves the next phase to
  // its first arrival, an arm that completes it arms the next.
  arming_ahead_barrier<unisync::empty_completion> many(16);
  auto fifteen = many.arrive(15);
  many.wait(many.arrive());
  EXPECT_TRUE(many.try_wait(fifteen));
  EXPECT_FALSE(test_access::open_phase_armed(many));
  many.wait(many.arrive(16));  // the first addition, then its arm completes the phase
  EXPECT_TRUE(test_access::open_phase_armed(many));
  fifteen = many.arrive(15);
  EXPECT_FALSE(many.try_wait(fifteen)) << "the armed phase completed with 15 of 16 arrivals";
  many.wait(many.arrive());
  // The host's default tuning leaves each phase to its first arrival.
  unisync::barrier<> host_default(1);
  host_default.wait(host_default.arrive());
  EXPECT_FALSE(test_access::open_phase_armed(host_default));
}

// The arm ahead races the next phase's first arrival, which arms the phase itself when it
// finds the count at zero: the arm ahead must then do nothing, or the phase is armed twice
// and completes before its arrivals are in.
TEST(HostBarrier, AnArmAheadAfterTheNextPhasesFirstArrivalChangesNothing)
{
  using unisync::detail::test_access;
  std::atomic<std::uint32_t> runs{0};
  unisync::barrier<> plain(2);
  unisync::barrier<run_counter> counted(2, run_counter{&runs});
  auto race = [](auto& barrier) {
    std::uint64_t const carried = test_access::word(barrier);  // an open phase at zero, as a carry leaves it
    auto first = barrier.arrive();                             // finds the zero and arms
    test_access::arm_ahead(barrier, carried);                  // the late arm ahead
    EXPECT_FALSE(barrier.try_wait(first)) << "the phase completed with one of two arrivals";
    auto second = barrier.arrive();
    EXPECT_TRUE(barrier.try_wait(first));
    EXPECT_TRUE(barrier.try_wait(second));
    auto next = barrier.arrive();
    EXPECT_FALSE(barrier.try_wait(next)) << "the next phase completed with one of two arrivals";
    barrier.wait(barrier.arrive());
  };
  race(plain);
  race(counted);
  EXPECT_EQ(runs.load(), 2u);
}

// std: arrive_and_drop() arrives, it does not wait. Between a phase's first addition and
// its arm (the first arrival's thread is inside arrive()) a drop must return at once, and
// the phase must still take exactly its participants: the drop's arrival and that of
// every other one, and the next phase one participant fewer.
TEST(HostBarrier, ArriveAndDropReturnsBeforeTheOpenPhaseIsArmed)
{
  using unisync::detail::test_access;
  std::atomic<std::uint32_t> runs{0};
  auto check = [](auto& barrier) {
    std::uint64_t const first = test_access::add_arrival(barrier, 1);  // its arm still to come
    ASSERT_FALSE(test_access::open_phase_armed(barrier));
    std::atomic<bool> dropped{false};
    std::thread dropper([&] {
      barrier.arrive_and_drop();
      dropped = true;
    });
    bool const returned = unisync::test::eventually([&] { return dropped.load(); });
    auto first_token = test_access::finish_arrival(barrier, first, 1);  // the arm: lets a waiting drop go on
    dropper.join();
    EXPECT_TRUE(returned) << "arrive_and_drop() waited for the open phase's arm";
    EXPECT_FALSE(barrier.try_wait(first_token)) << "the phase completed with two of its three participants";
    auto last = barrier.arrive();
    EXPECT_TRUE(barrier.try_wait(first_token));
    EXPECT_TRUE(barrier.try_wait(last));
    auto next = barrier.arrive();
    EXPECT_FALSE(barrier.try_wait(next)) << "the next phase completed with one of its two participants";
    barrier.wait(barrier.arrive());
    EXPECT_TRUE(barrier.try_wait(next));
  };
  unisync::barrier<> plain(3);
  unisync::barrier<run_counter> counted(3, run_counter{&runs});
  check(plain);
  check(counted);
  EXPECT_EQ(runs.load(), 2u);
}

// A participant that arrived in a phase may drop in the next while the completion of its
// arrival's phase runs (its arrival is then above the stop): the drop must not wait for
// the completion. The next phase then takes the drop and the other participant; when
// every participant of it drops, it completes with them (the completion runs for it too).
TEST(HostBarrier, ArriveAndDropReturnsWhileTheCompletionRuns)
{
  for (unsigned drops : {1u, 2u}) {
    using holding = unisync::test::completion_holding_a_run;
    holding::state state;
    unisync::barrier<holding> barrier(2, holding{&state, 0});  // holds the first phase's completion
    auto mine = barrier.arrive();
    std::thread completer([&] {
      barrier.wait(barrier.arrive());  // completes the first phase: runs the completion
      if (drops == 1) barrier.wait(barrier.arrive());
    });
    ASSERT_TRUE(unisync::test::eventually([&] { return state.running.load(); }));
    for (unsigned drop = 0; drop < drops; ++drop) barrier.arrive_and_drop();  // above the stop
    state.may_return = true;
    completer.join();
    EXPECT_FALSE(state.held_too_long.load()) << "arrive_and_drop() waited for the completion (" << drops << " drops)";
    EXPECT_TRUE(barrier.try_wait(mine));
    EXPECT_EQ(state.runs.load(), 2u) << "the phase the drops arrived in did not complete (" << drops << " drops)";
    if (drops == 1) {
      barrier.wait(barrier.arrive());  // one participant left: a phase of one
      EXPECT_EQ(state.runs.load(), 3u);
    } else {
      EXPECT_THROW(static_cast<void>(barrier.arrive()), unisync::error) << "every participant dropped";
    }
  }
}

TEST(HostPartitionedBarrier, ConstantExpressionConstruction)
{
  static constexpr unisync::partitioned_barrier<> constant(4);
  static_cast<void>(constant);
}

}  // namespace
