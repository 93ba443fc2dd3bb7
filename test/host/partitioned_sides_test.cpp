// The partitioned barrier across its two sides, with host threads standing in for GPU
// threads (test_access names the side a call is made from): split-phase use in both
// directions, tokens waited on from the other side, a leader that leaves and then signals,
// drops on a side alone that never wait.
// Every wait for another thread is bounded, so a barrier whose arrive() blocks fails here
// instead of hanging.

#include "actors.hpp"
#include "bounded.hpp"
#include "checks.hpp"
#include "test_access.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <thread>

namespace {

using namespace std::chrono_literals;
using access = unisync::detail::test_access;
using side = access::side;

constexpr auto patience = 5s;  // far beyond any handoff; only a blocked arrive() waits this long

side other_than(side which)
{
  return which == side::cpu ? side::gpu : side::cpu;
}

/// A value one thread raises and another waits for, within `patience`.
class signal {
 public:
  void raise(std::uint32_t value) { value_.store(value, std::memory_order_release); }
  [[nodiscard]] bool reached(std::uint32_t value) const
  {
    auto const give_up = std::chrono::steady_clock::now() + patience;
    while (value_.load(std::memory_order_acquire) < value) {
      if (std::chrono::steady_clock::now() > give_up) return false;
      std::this_thread::yield();
    }
    return true;
  }

 private:
  std::atomic<std::uint32_t> value_{0};
};

/// Counts its runs: the completion runs once per phase, before anyone is released.
struct counting_completion {
  std::atomic<std::uint32_t>* runs;
  void operator()() const noexcept { runs->fetch_add(1, std::memory_order_relaxed); }
};

template <class Completion>
struct completion_traits;
template <>
struct completion_traits<unisync::empty_completion> {
  static unisync::empty_completion make(std::atomic<std::uint32_t>*) { return {}; }
  static constexpr bool counts = false;
};
template <>
struct completion_traits<counting_completion> {
  static counting_completion make(std::atomic<std::uint32_t>* runs) { return {runs}; }
  static constexpr bool counts = true;
};

template <class Completion>
class PartitionedSides : public ::testing::Test {
 protected:
  using barrier_type = unisync::partitioned_barrier<Completion>;
  std::unique_ptr<barrier_type> make(std::ptrdiff_t expected)
  {
    return std::make_unique<barrier_type>(expected, completion_traits<Completion>::make(&runs));
  }
  /// The completion has run for every phase up to `phase` (numbered from 1), and no more.
  void expect_runs_at_least(std::uint32_t phase)
  {
    if constexpr (completion_traits<Completion>::counts) {
      std::uint32_t const seen = runs.load(std::memory_order_relaxed);
      if (seen < phase) late.fetch_add(1, std::memory_order_relaxed);
    }
  }
  void expect_runs(std::uint32_t phases)
  {
    if constexpr (completion_traits<Completion>::counts) {
      EXPECT_EQ(runs.load(), phases);
    }
    EXPECT_EQ(late.load(), 0u) << "a participant was released before the completion ran";
  }
  std::atomic<std::uint32_t> runs{0};
  std::atomic<std::uint32_t> late{0};
};

using completion_types = ::testing::Types<unisync::empty_completion, counting_completion>;
TYPED_TEST_SUITE(PartitionedSides, completion_types);

// [thread.barrier.class]: arrive() decrements the expected count and returns; it does not
// wait for the phase to complete. The split-phase idiom: arrive, do what the other side
// waits for, then wait; in phases 2..1000 too, where each side counts on its own word,
// with the CPU side first in odd phases and the GPU side first in even ones.
TYPED_TEST(PartitionedSides, ArriveNeverWaitsForTheOtherSide)
{
  constexpr std::uint32_t phases = 1000;
  auto barrier = this->make(2);
  signal arrived[2];
  std::atomic<std::uint32_t> blocked{0};
  std::uint32_t slots[2] = {0, 0};
  std::uint32_t violations = 0;
  std::uint32_t completions = 0;
  unisync::test::phase_record record{slots, 2, &violations, &completions};
  unisync::test::run_cpu_actors(2, [&](unsigned actor) {
    side const mine = actor == 0 ? side::cpu : side::gpu;
    for (std::uint32_t phase = 1; phase <= phases; ++phase) {
      bool const goes_first = (phase % 2 == 1) == (mine == side::cpu);
      if (!goes_first && !arrived[1 - actor].reached(phase)) blocked.fetch_add(1);
      record.before_arriving(actor, phase);
      auto token = access::arrive_as(*barrier, mine);
      arrived[actor].raise(phase);  // what the other side waits for before it arrives
      access::wait_as(*barrier, mine, std::move(token));
      record.after_passing(0, 2, phase);
      this->expect_runs_at_least(phase);
    }
  });
  EXPECT_EQ(blocked.load(), 0u) << "arrive() did not return before the other side arrived";
  EXPECT_EQ(violations, 0u);
  this->expect_runs(phases);
}

// Any thread may wait on a token (it is moved, not bound to its thread), here from the
// other side of the link: in phases with participants on one side only (both ways) and
// with participants on both sides, the waiter returns once, and only once, the phase
// has ended.
TYPED_TEST(PartitionedSides, ATokenIsWaitedOnFromTheOtherSide)
{
  constexpr std::uint32_t phases = 50;
  struct split {
    side first;
    side second;
  };
  for (split const participants : {split{side::cpu, side::cpu}, split{side::gpu, side::gpu},
                                   split{side::cpu, side::gpu}, split{side::gpu, side::cpu}}) {
    SCOPED_TRACE(::testing::Message() << "participants on " << (participants.first == side::cpu ? "cpu" : "gpu")
                                      << " and " << (participants.second == side::cpu ? "cpu" : "gpu"));
    this->runs = 0;
    auto barrier = this->make(2);
    using token_type = typename TestFixture::barrier_type::arrival_token;
    token_type handed;
    signal handed_over;
    signal passed;
    std::atomic<std::uint32_t> second_arrived{0};
    std::atomic<std::uint32_t> early{0};
    std::atomic<std::uint32_t> stuck{0};
    std::thread waiter([&] {
      // Stands on the side other than the first participant's and waits on its tokens.
      for (std::uint32_t phase = 1; phase <= phases; ++phase) {
        if (!handed_over.reached(phase)) {
          stuck.fetch_add(1);
          return;
        }
        access::wait_as(*barrier, other_than(participants.first), std::move(handed));
        if (second_arrived.load() < phase) early.fetch_add(1);
        this->expect_runs_at_least(phase);
        passed.raise(phase);
      }
    });
    std::thread second([&] {
      for (std::uint32_t phase = 1; phase <= phases; ++phase) {
        std::this_thread::yield();  // let the first participant's token reach the waiter first
        second_arrived.store(phase);
        access::wait_as(*barrier, participants.second, access::arrive_as(*barrier, participants.second));
      }
    });
    for (std::uint32_t phase = 1; phase <= phases; ++phase) {
      handed = access::arrive_as(*barrier, participants.first);
      handed_over.raise(phase);
      if (!passed.reached(phase)) {  // the waiter's wait is this participant's wait
        stuck.fetch_add(1);
        break;
      }
    }
    second.join();
    waiter.join();
    EXPECT_EQ(stuck.load(), 0u) << "a waiter on the other side was not released";
    EXPECT_EQ(early.load(), 0u) << "a waiter on the other side left before the phase ended";
    this->expect_runs(phases);
  }
}

// A side's last arriver leaves with arrive_and_drop() and only then does what the other
// side waits for: the phase ends, the remaining participants go on without it.
TYPED_TEST(PartitionedSides, ALeaderThatDropsThenSignalsEndsThePhase)
{
  constexpr std::uint32_t phases = 200;
  auto barrier = this->make(3);
  signal dropped;
  std::atomic<std::uint32_t> stuck{0};
  std::atomic<std::uint32_t> second_cpu_arrived{0};
  std::thread gpu([&] {
    access::wait_as(*barrier, side::gpu, access::arrive_as(*barrier, side::gpu));  // the first phase
    if (!dropped.reached(1)) stuck.fetch_add(1);
    for (std::uint32_t phase = 2; phase <= phases; ++phase) {
      access::wait_as(*barrier, side::gpu, access::arrive_as(*barrier, side::gpu));
    }
  });
  std::thread cpu([&] {
    access::wait_as(*barrier, side::cpu, access::arrive_as(*barrier, side::cpu));
    auto token = access::arrive_as(*barrier, side::cpu);  // the second phase, before the leader
    second_cpu_arrived.store(1);
    access::wait_as(*barrier, side::cpu, std::move(token));
    for (std::uint32_t phase = 3; phase <= phases; ++phase) {
      access::wait_as(*barrier, side::cpu, access::arrive_as(*barrier, side::cpu));
    }
  });
  access::wait_as(*barrier, side::cpu, access::arrive_as(*barrier, side::cpu));
  while (second_cpu_arrived.load() == 0) std::this_thread::yield();
  static_cast<void>(access::arrive_as(*barrier, side::cpu, 1, true));  // the CPU side's leader leaves
  dropped.raise(1);
  cpu.join();
  gpu.join();
  EXPECT_EQ(stuck.load(), 0u);
  this->expect_runs(phases);
}

// A participant told by the other side that the phase ended may arrive in the next phase
// before anyone of its own side added the carry: its arrival adds it, with any weight.
TYPED_TEST(PartitionedSides, AnArrivalBeforeTheCarryCompletesTheSide)
{
  for (std::uint32_t const weight : {1u, 3u}) {
    SCOPED_TRACE(::testing::Message() << "weight " << weight);
    this->runs = 0;
    auto barrier = this->make(1 + weight);
    std::thread gpu([&] {
      for (std::uint32_t phase = 1; phase <= 30; ++phase) {
        access::wait_as(*barrier, side::gpu, access::arrive_as(*barrier, side::gpu));
      }
    });
    // The CPU never waits on its own side: it learns each phase's end from a token of
    // its own, waited on as the GPU side would, which reads only the reports.
    for (std::uint32_t phase = 1; phase <= 30; ++phase) {
      auto token = access::arrive_as(*barrier, side::cpu, weight);
      access::wait_as(*barrier, side::gpu, std::move(token));
    }
    gpu.join();
    this->expect_runs(30);
  }
}

// std: arrive_and_drop() arrives, it does not wait. On a side that has the barrier to
// itself, between a phase's first addition and its arm (that arrival's thread is inside
// arrive()) a drop must return at once, and the phase must still take exactly its
// participants: the drop's arrival and that of every other one, and the next phase one
// participant fewer.
TYPED_TEST(PartitionedSides, ArriveAndDropOnASideAloneReturnsBeforeThePhaseIsArmed)
{
  for (side const alone : {side::cpu, side::gpu}) {
    SCOPED_TRACE(::testing::Message() << "participants on the " << (alone == side::cpu ? "cpu" : "gpu"));
    this->runs = 0;
    auto barrier = this->make(3);
    auto released = [&](auto const& token) { return access::try_wait_for_as(*barrier, alone, token, 0); };
    static_cast<void>(access::arrive_as(*barrier, alone));  // the first phase: all three on one side
    static_cast<void>(access::arrive_as(*barrier, alone));
    access::wait_as(*barrier, alone, access::arrive_as(*barrier, alone));
    std::uint64_t const first = access::add_side_arrival(*barrier, alone);  // its arm still to come
    ASSERT_FALSE(access::side_phase_armed(*barrier, alone));
    std::atomic<bool> dropped{false};
    std::thread dropper([&] {
      static_cast<void>(access::arrive_as(*barrier, alone, 1, true));
      dropped = true;
    });
    bool const returned = unisync::test::eventually([&] { return dropped.load(); });
    auto first_token = access::finish_side_arrival(*barrier, alone, first);  // the arm: lets a waiting drop go on
    dropper.join();
    EXPECT_TRUE(returned) << "arrive_and_drop() waited for the open phase's arm";
    EXPECT_FALSE(released(first_token)) << "the phase completed with two of its three participants";
    auto last = access::arrive_as(*barrier, alone);
    EXPECT_TRUE(released(first_token));
    EXPECT_TRUE(released(last));
    auto next = access::arrive_as(*barrier, alone);
    EXPECT_FALSE(released(next)) << "the next phase completed with one of its two participants";
    access::wait_as(*barrier, alone, access::arrive_as(*barrier, alone));
    EXPECT_TRUE(released(next));
    this->expect_runs(3);
  }
}

// On a side alone, a participant that arrived in a phase may drop in the next while the
// completion of its arrival's phase runs (its arrival is then above the stop): the drop
// must not wait for the completion. The next phase then takes the drop and the other
// participant; when every participant of it drops, it completes with them (the completion
// runs for it too).
TEST(PartitionedSidesAlone, ArriveAndDropReturnsWhileTheCompletionRuns)
{
  for (side const alone : {side::cpu, side::gpu}) {
    for (unsigned drops : {1u, 2u}) {
      SCOPED_TRACE(::testing::Message() << "participants on the " << (alone == side::cpu ? "cpu" : "gpu") << ", "
                                        << drops << " drops");
      // The completion holds its second run: the first phase a side counts alone.
      using holding = unisync::test::completion_holding_a_run;
      holding::state state;
      unisync::partitioned_barrier<holding> barrier(2, holding{&state, 1});
      std::atomic<bool> arrived{false};
      std::thread completer([&] {
        access::wait_as(barrier, alone, access::arrive_as(barrier, alone));  // the first phase
        while (!arrived.load()) std::this_thread::yield();
        access::wait_as(barrier, alone, access::arrive_as(barrier, alone));  // completes the second: held
        if (drops == 1) access::wait_as(barrier, alone, access::arrive_as(barrier, alone));
      });
      access::wait_as(barrier, alone, access::arrive_as(barrier, alone));
      auto mine = access::arrive_as(barrier, alone);
      arrived = true;
      EXPECT_TRUE(unisync::test::eventually([&] { return state.running.load(); })) << "the completion never ran";
      for (unsigned drop = 0; drop < drops; ++drop) {
        static_cast<void>(access::arrive_as(barrier, alone, 1, true));  // above the stop
      }
      state.may_return = true;
      completer.join();
      EXPECT_FALSE(state.held_too_long.load()) << "arrive_and_drop() waited for the completion";
      EXPECT_TRUE(access::try_wait_for_as(barrier, alone, mine, 0));
      EXPECT_EQ(state.runs.load(), 3u) << "the phase the drops arrived in did not complete";
      if (drops == 1) {
        access::wait_as(barrier, alone, access::arrive_as(barrier, alone));  // one participant left
        EXPECT_EQ(state.runs.load(), 4u);
      } else {
        EXPECT_THROW(static_cast<void>(access::arrive_as(barrier, alone)), unisync::error)
            << "every participant dropped";
      }
    }
  }
}

// More threads than the barrier expects, all on one side: arrivals beyond the first phase
// that come while its last arriver runs the completion return at once, without waiting
// for the arm. The last arriver counts them on the side after arming it (here two, in the
// second and third phases of a barrier of one), and each is released when its own phase
// completes.
TEST(PartitionedSidesAlone, ArrivalsBeyondTheFirstPhaseReturnWhileItsCompletionRuns)
{
  for (side const alone : {side::cpu, side::gpu}) {
    SCOPED_TRACE(alone == side::cpu ? "participants on the cpu" : "participants on the gpu");
    using holding = unisync::test::completion_holding_a_run;
    holding::state state;
    unisync::partitioned_barrier<holding> barrier(1, holding{&state, 0});  // holds the first phase's run
    std::thread completer([&] { access::wait_as(barrier, alone, access::arrive_as(barrier, alone)); });
    EXPECT_TRUE(unisync::test::eventually([&] { return state.running.load(); })) << "the completion never ran";
    auto second = access::arrive_as(barrier, alone);
    auto third = access::arrive_as(barrier, alone);
    state.may_return = true;
    completer.join();
    EXPECT_FALSE(state.held_too_long.load()) << "an arrival beyond the first phase waited for its completion";
    access::wait_as(barrier, alone, std::move(third));
    access::wait_as(barrier, alone, std::move(second));
    EXPECT_EQ(state.runs.load(), 3u);
    EXPECT_EQ(access::open_phase(barrier), 3u);
    auto fourth = access::arrive_as(barrier, alone);
    EXPECT_TRUE(access::try_wait_for_as(barrier, alone, fourth, 0)) << "one participant completes its phase";
    EXPECT_EQ(state.runs.load(), 4u);
  }
}

// With participants on both sides in the first phase, an arrival beyond it that comes
// while the last arriver runs the completion cannot be told apart from a participant that
// moved sides: it is refused, by the last arriver and in the arrival's own wait, never
// left waiting.
TEST(PartitionedSidesMixed, AnArrivalBeyondAMixedFirstPhaseIsRefusedInItsWait)
{
  for (side const completing : {side::cpu, side::gpu}) {
    SCOPED_TRACE(completing == side::cpu ? "completed on the cpu" : "completed on the gpu");
    using holding = unisync::test::completion_holding_a_run;
    holding::state state;
    unisync::partitioned_barrier<holding> barrier(2, holding{&state, 0});
    auto first = access::arrive_as(barrier, other_than(completing));
    std::atomic<bool> completer_refused{false};
    std::thread completer([&] {
      try {
        static_cast<void>(access::arrive_as(barrier, completing));
      } catch (unisync::error const&) {
        completer_refused = true;
      }
    });
    EXPECT_TRUE(unisync::test::eventually([&] { return state.running.load(); })) << "the completion never ran";
    auto beyond = access::arrive_as(barrier, other_than(completing));
    state.may_return = true;
    completer.join();
    EXPECT_TRUE(completer_refused.load()) << "the last arriver counted an arrival beyond a mixed first phase";
    EXPECT_THROW(access::wait_as(barrier, other_than(completing), std::move(beyond)), unisync::error);
    access::wait_as(barrier, other_than(completing), std::move(first));
  }
}

}  // namespace
