// The barriers against [thread.barrier.class] with CPU and GPU threads on one object in
// managed memory: an arrival token is a plain value, so a token from an arrival on one
// side is waited on by a thread of either side; split-phase use (arrive, do what the
// other participant waits for, then wait) across the link in every phase. Flag waits are
// bounded (flags.hpp); a barrier wait that hangs on the GPU is caught by the kernel
// deadline (gpu.hpp), on the CPU by bounded_thread.

#include "barrier_kinds.hpp"
#include "bounded.hpp"
#include "flags.hpp"
#include "gpu.hpp"

#include <unisync/managed.hpp>

#include <cuda/atomic>
#include <cuda/std/cstdint>
#include <cuda/std/type_traits>
#include <cuda/std/utility>
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

namespace {

using namespace unisync::test;

constexpr unsigned relay_phases = 4;
constexpr std::chrono::seconds relay_deadline{40};

/// Waits for the kernel, which ends the process if a GPU participant hangs in the barrier
/// (flag waits give up in time); then fails if a CPU participant hangs there, leaving it the
/// managed objects it uses.
template <class... Owners>
void finish_both_sides(bool cpu_done, Owners&... owners)
{
  ASSERT_EQ(finish_device_work(relay_deadline), cudaSuccess);
  if (!cpu_done) {
    (static_cast<void>(owners.release()), ...);
    FAIL() << "a CPU participant never returned from the barrier";
  }
}

/// Which side does each of the three roles of a two-participant phase: the participant
/// whose arrive() token is handed over, the thread that waits on that token, and the
/// participant that calls arrive_and_wait().
struct token_roles {
  bool arrive_on_gpu;
  bool wait_on_gpu;
  bool arrive_and_wait_on_gpu;
};

/// A completion function that counts its runs in managed memory, on either side: with
/// one, a partitioned barrier's mixed phases take the path where the two sides' leaders
/// agree on which of them runs it. Atomic, so that two runs of one phase (both leaders)
/// count twice even where they overlap.
struct counting_completion {
  cuda::std::uint32_t* runs;
  UNISYNC_HOST_DEVICE void operator()() const noexcept
  {
    cuda::atomic_ref<cuda::std::uint32_t, cuda::thread_scope_system> counter(*runs);
    counter.fetch_add(1, cuda::std::memory_order_relaxed);
  }
};

/// The barrier type of a kind, with a counting completion or none.
template <class Kind, bool Counted>
using barrier_of =
    typename Kind::template type<cuda::std::conditional_t<Counted, counting_completion, unisync::empty_completion>>;

/// Makes a barrier of `participants` in managed memory; with a counting completion, that
/// counts in `runs`.
template <class Kind, bool Counted>
auto make_barrier(cuda::std::ptrdiff_t participants, cuda::std::uint32_t* runs)
{
  auto barrier = [&] {
    if constexpr (Counted) {
      return unisync::make_managed<barrier_of<Kind, Counted>>(participants, counting_completion{runs});
    } else {
      static_cast<void>(runs);
      return unisync::make_managed<barrier_of<Kind, Counted>>(participants);
    }
  }();
  Kind::prepare(*barrier);
  return barrier;
}

/// The relay's shared state, in managed memory: tokens and flags per phase.
template <class Barrier>
struct token_relay {
  Barrier* barrier;
  typename Barrier::arrival_token tokens[relay_phases];
  cuda::std::uint32_t handed_over = 0;  // phases whose token is in `tokens`
  cuda::std::uint32_t waited = 0;       // phases whose token's wait returned
  cuda::std::uint32_t failures = 0;
};

/// Arrives, hands the token over, and arrives again only once its phase was waited for.
template <class Barrier>
UNISYNC_HOST_DEVICE void arrive_and_hand_over(token_relay<Barrier>& relay)
{
  for (cuda::std::uint32_t phase = 1; phase <= relay_phases; ++phase) {
    relay.tokens[phase - 1] = relay.barrier->arrive();
    raise_flag(relay.handed_over, phase);
    if (!await_flag(relay.waited, phase, relay.failures)) return;
  }
}

/// Waits on each handed-over token: a copy of a value an arrival on either side made.
template <class Barrier>
UNISYNC_HOST_DEVICE void wait_on_handed_tokens(token_relay<Barrier>& relay)
{
  for (cuda::std::uint32_t phase = 1; phase <= relay_phases; ++phase) {
    if (!await_flag(relay.handed_over, phase, relay.failures)) return;
    typename Barrier::arrival_token token = relay.tokens[phase - 1];
    relay.barrier->wait(cuda::std::move(token));
    raise_flag(relay.waited, phase);
  }
}

template <class Barrier>
UNISYNC_HOST_DEVICE void arrive_and_wait_every_phase(token_relay<Barrier>& relay)
{
  for (cuda::std::uint32_t phase = 1; phase <= relay_phases; ++phase) relay.barrier->arrive_and_wait();
}

/// One block of one thread per role the GPU plays.
template <class Barrier>
__global__ void relay_on_gpu(token_relay<Barrier>* relay, token_roles roles)
{
  if (blockIdx.x == 0 && roles.arrive_on_gpu) arrive_and_hand_over(*relay);
  if (blockIdx.x == 1 && roles.wait_on_gpu) wait_on_handed_tokens(*relay);
  if (blockIdx.x == 2 && roles.arrive_and_wait_on_gpu) arrive_and_wait_every_phase(*relay);
}

template <class Kind, bool Counted>
void relay_tokens(token_roles roles)
{
  using barrier_type = barrier_of<Kind, Counted>;
  auto runs = unisync::make_managed<cuda::std::uint32_t>(0u);
  auto barrier = make_barrier<Kind, Counted>(2, runs.get());
  auto relay = unisync::make_managed<token_relay<barrier_type>>();
  relay->barrier = barrier.get();
  relay_on_gpu<<<3, 1>>>(relay.get(), roles);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  token_relay<barrier_type>* const shared = relay.get();
  bounded_thread arriver([shared, roles] {
    if (!roles.arrive_on_gpu) arrive_and_hand_over(*shared);
  });
  bounded_thread waiter([shared, roles] {
    if (!roles.wait_on_gpu) wait_on_handed_tokens(*shared);
  });
  bounded_thread other([shared, roles] {
    if (!roles.arrive_and_wait_on_gpu) arrive_and_wait_every_phase(*shared);
  });
  bool const cpu_done = arriver.returned_within() && waiter.returned_within() && other.returned_within();
  ASSERT_NO_FATAL_FAILURE(finish_both_sides(cpu_done, barrier, relay, runs));
  EXPECT_EQ(relay->failures, 0u) << "a role gave up waiting for the other's flag";
  EXPECT_EQ(relay->waited, relay_phases);
  if (Counted) EXPECT_EQ(*runs, relay_phases) << "the completion runs once per phase";
}

/// A case: the barrier kind (its relay function) and the sides of the three roles.
using relay_case = std::tuple<void (*)(token_roles), std::string, int>;

token_roles roles_of(int bits) { return token_roles{(bits & 1) != 0, (bits & 2) != 0, (bits & 4) != 0}; }

class ConformanceMixedBarrier : public ::testing::TestWithParam<relay_case> {};

// [thread.barrier.class] arrive returns an arrival_token; wait(arrival_token&&) blocks
// until its phase completes: the token is a value, valid in any thread on either side.
// Every assignment of arrive (whose token moves), wait and arrive_and_wait to the CPU or
// the GPU, over several phases.
TEST_P(ConformanceMixedBarrier, TokensMoveAcrossSides)
{
  UNISYNC_REQUIRE_GPU();
  std::get<0>(GetParam())(roles_of(std::get<2>(GetParam())));
}

std::string relay_case_name(::testing::TestParamInfo<relay_case> const& info)
{
  token_roles const roles = roles_of(std::get<2>(info.param));
  auto side = [](bool gpu) { return gpu ? std::string("Gpu") : std::string("Cpu"); };
  return std::get<1>(info.param) + "ArriveOn" + side(roles.arrive_on_gpu) + "WaitOn" + side(roles.wait_on_gpu) +
         "ArriveAndWaitOn" + side(roles.arrive_and_wait_on_gpu);
}

std::vector<relay_case> every_relay_case()
{
  std::vector<relay_case> cases;
  for (int roles = 0; roles < 8; ++roles) {
    cases.emplace_back(&relay_tokens<central_barrier_kind, false>, "Barrier", roles);
    cases.emplace_back(&relay_tokens<partitioned_barrier_kind, false>, "PartitionedBarrier", roles);
    cases.emplace_back(&relay_tokens<flat_partitioned_barrier_kind, false>, "FlatPartitionedBarrier", roles);
    cases.emplace_back(&relay_tokens<central_barrier_kind, true>, "BarrierWithCompletion", roles);
    cases.emplace_back(&relay_tokens<partitioned_barrier_kind, true>, "PartitionedBarrierWithCompletion", roles);
    cases.emplace_back(&relay_tokens<flat_partitioned_barrier_kind, true>, "FlatPartitionedBarrierWithCompletion",
                       roles);
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(EveryAssignment, ConformanceMixedBarrier, ::testing::ValuesIn(every_relay_case()),
                         relay_case_name);

template <class Barrier>
__global__ void arrive_signal_wait_on_gpu(Barrier* barrier, split_phase_signals* signals, cuda::std::uint32_t phases)
{
  arrive_signal_wait(*barrier, *signals, 1, phases);
}

template <class Kind>
class ConformanceMixedSplitPhase : public ::testing::Test {};
TYPED_TEST_SUITE(ConformanceMixedSplitPhase, barrier_kinds_tested, type_names);

/// Split-phase use, the CPU leading in odd phases and the GPU in even ones, phases 1 to
/// 1000 (each crosses the link several times): flags.hpp's arrive_signal_wait.
template <class Kind, bool Counted>
void arrive_signal_wait_across_the_link()
{
  constexpr cuda::std::uint32_t phases = 1000;
  auto runs = unisync::make_managed<cuda::std::uint32_t>(0u);
  auto barrier = make_barrier<Kind, Counted>(2, runs.get());
  auto signals = unisync::make_managed<split_phase_signals>();
  if (Counted) signals->completions = runs.get();
  arrive_signal_wait_on_gpu<<<1, 1>>>(barrier.get(), signals.get(), phases);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  auto* const shared_barrier = barrier.get();
  split_phase_signals* const shared_signals = signals.get();
  bounded_thread cpu(
      [shared_barrier, shared_signals] { arrive_signal_wait(*shared_barrier, *shared_signals, 0, phases); });
  ASSERT_NO_FATAL_FAILURE(finish_both_sides(cpu.returned_within(), barrier, signals, runs));
  EXPECT_EQ(signals->failures, 0u) << "a participant's arrive() waited for the other side";
  EXPECT_EQ(signals->raised[0], phases);
  EXPECT_EQ(signals->raised[1], phases);
  if (Counted) EXPECT_EQ(*runs, phases) << "the completion runs once per phase";
  EXPECT_EQ(signals->released_early, 0u) << "a participant was released before its phase's completion ran";
}

// [thread.barrier.class] arrive does not block: a CPU participant and a GPU participant
// arrive, then do what the other waits for before it arrives, then wait.
TYPED_TEST(ConformanceMixedSplitPhase, ArriveSignalWaitAcrossTheLinkInEveryPhase)
{
  UNISYNC_REQUIRE_GPU();
  arrive_signal_wait_across_the_link<TypeParam, false>();
}

// [thread.barrier.class] the completion step runs exactly once per phase, before any
// participant of the phase is released: the same with a completion function, which runs
// on whichever side the barrier chooses (for a partitioned barrier, after its two leaders
// agree).
TYPED_TEST(ConformanceMixedSplitPhase, ArriveSignalWaitWithACompletionInEveryPhase)
{
  UNISYNC_REQUIRE_GPU();
  arrive_signal_wait_across_the_link<TypeParam, true>();
}

/// Split-phase use with drops that all come from one side, `drops_on` (0: CPU, 1: GPU),
/// which carries every extra participant (a partitioned barrier's participants stay on
/// their side). In each phase that side arrives for itself and all extras still in but
/// one, lets that one leave with arrive_and_drop(), and waits; in the phases it leads (odd
/// ones for the CPU, even ones for the GPU) it raises its flag between the drop and the
/// wait, and the other participant arrives only once the flag is up, so the drop must
/// return before the other side arrives. The other side leads the remaining phases with a
/// plain arrive().
template <class Barrier>
UNISYNC_HOST_DEVICE void drop_from_one_side_signal_wait(Barrier& barrier, split_phase_signals& signals, unsigned me,
                                                        unsigned drops_on, cuda::std::uint32_t phases)
{
  for (cuda::std::uint32_t phase = 1; phase <= phases; ++phase) {
    bool const leads = (phase & 1u) == (me == 0 ? 1u : 0u);
    if (!leads && !await_flag(signals.raised[1 - me], phase, signals.failures)) return;
    cuda::std::uint32_t const extras = phases - phase + 1;  // extra participants in this phase
    auto token = me == drops_on && extras > 1 ? barrier.arrive(extras) : barrier.arrive();
    if (me == drops_on) barrier.arrive_and_drop();
    if (leads) raise_flag(signals.raised[me], phase);
    barrier.wait(cuda::std::move(token));
  }
}

template <class Barrier>
__global__ void drop_from_one_side_on_gpu(Barrier* barrier, split_phase_signals* signals, unsigned drops_on,
                                          cuda::std::uint32_t phases)
{
  drop_from_one_side_signal_wait(*barrier, *signals, 1, drops_on, phases);
}

template <class Kind, bool Counted>
void drop_from_one_side_across_the_link(unsigned drops_on)
{
  constexpr cuda::std::uint32_t phases = 200;
  static_assert(phases % 2 == 0, "each side leads the last phase of its parity: 2 * phases - 1 below");
  auto runs = unisync::make_managed<cuda::std::uint32_t>(0u);
  auto barrier = make_barrier<Kind, Counted>(2 + phases, runs.get());
  auto signals = unisync::make_managed<split_phase_signals>();
  drop_from_one_side_on_gpu<<<1, 1>>>(barrier.get(), signals.get(), drops_on, phases);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  auto* const shared_barrier = barrier.get();
  split_phase_signals* const shared_signals = signals.get();
  bounded_thread cpu([shared_barrier, shared_signals, drops_on] {
    drop_from_one_side_signal_wait(*shared_barrier, *shared_signals, 0, drops_on, phases);
  });
  ASSERT_NO_FATAL_FAILURE(finish_both_sides(cpu.returned_within(), barrier, signals, runs));
  EXPECT_EQ(signals->failures, 0u) << "an arrive_and_drop() waited for the other side";
  EXPECT_EQ(signals->raised[0] + signals->raised[1], 2 * phases - 1);
  if (Counted) EXPECT_EQ(*runs, phases) << "the completion runs once per phase";
}

// [thread.barrier.class] arrive_and_drop arrives, it does not wait: a side that lets one
// participant leave and then does what the other side waits for before it arrives, one
// participant fewer every phase, the drops on the CPU.
TYPED_TEST(ConformanceMixedSplitPhase, ArriveAndDropOnTheCpuThenSignalInEveryOtherPhase)
{
  UNISYNC_REQUIRE_GPU();
  drop_from_one_side_across_the_link<TypeParam, false>(0);
}

// The same with the drops on the GPU.
TYPED_TEST(ConformanceMixedSplitPhase, ArriveAndDropOnTheGpuThenSignalInEveryOtherPhase)
{
  UNISYNC_REQUIRE_GPU();
  drop_from_one_side_across_the_link<TypeParam, false>(1);
}

// [thread.barrier.class] arrive_and_drop arrives, and the completion step runs once per
// phase: drops from either side with a completion function (a partitioned barrier's
// dropping leader then takes the path where the two leaders agree on who runs it).
TYPED_TEST(ConformanceMixedSplitPhase, ArriveAndDropThenSignalWithACompletion)
{
  UNISYNC_REQUIRE_GPU();
  drop_from_one_side_across_the_link<TypeParam, true>(0);
  drop_from_one_side_across_the_link<TypeParam, true>(1);
}

/// Split-phase use with drops: participant `me` (0: CPU, 1: GPU) leads in odd phases (0)
/// or even ones (1) and carries the barrier's extra participants: it arrives for itself
/// and all but one of them, lets that one leave with arrive_and_drop(), raises the flag,
/// and only then waits; the follower arrives once the flag is up. So the phase's drop
/// must return before the other participant arrives, on either side, in every phase.
/// (The drop finds its phase armed here; DropWhileTheOtherSideRunsTheCompletion puts one
/// where it used to wait.)
UNISYNC_HOST_DEVICE inline void drop_signal_wait(unisync::barrier<>& barrier, split_phase_signals& signals,
                                                 unsigned me, cuda::std::uint32_t phases)
{
  for (cuda::std::uint32_t phase = 1; phase <= phases; ++phase) {
    bool const leads = (phase & 1u) == (me == 0 ? 1u : 0u);
    if (!leads) {
      if (!await_flag(signals.raised[1 - me], phase, signals.failures)) return;
      barrier.wait(barrier.arrive());
      continue;
    }
    cuda::std::uint32_t const extras = phases - phase + 1;  // extra participants in this phase
    auto token = extras > 1 ? barrier.arrive(extras) : barrier.arrive();  // itself and extras - 1
    barrier.arrive_and_drop();
    raise_flag(signals.raised[me], phase);
    barrier.wait(cuda::std::move(token));
  }
}

__global__ void drop_signal_wait_on_gpu(unisync::barrier<>* barrier, split_phase_signals* signals,
                                        cuda::std::uint32_t phases)
{
  drop_signal_wait(*barrier, *signals, 1, phases);
}

// [thread.barrier.class] arrive_and_drop arrives, it does not wait: a participant that
// lets one leave and then does what the other side waits for before it arrives, the CPU
// leading in odd phases and the GPU in even ones, one participant fewer in every phase.
TEST(ConformanceMixedSplitPhase, ArriveAndDropThenSignalAcrossTheLinkInEveryPhase)
{
  UNISYNC_REQUIRE_GPU();
  constexpr cuda::std::uint32_t phases = 200;
  auto barrier = unisync::make_managed<unisync::barrier<>>(2 + phases);
  auto signals = unisync::make_managed<split_phase_signals>();
  drop_signal_wait_on_gpu<<<1, 1>>>(barrier.get(), signals.get(), phases);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  unisync::barrier<>* const shared_barrier = barrier.get();
  split_phase_signals* const shared_signals = signals.get();
  bounded_thread cpu([shared_barrier, shared_signals] { drop_signal_wait(*shared_barrier, *shared_signals, 0, phases); });
  ASSERT_NO_FATAL_FAILURE(finish_both_sides(cpu.returned_within(), barrier, signals));
  EXPECT_EQ(signals->failures, 0u) << "a participant's arrive_and_drop() waited for the other side";
  EXPECT_EQ(signals->raised[0] + signals->raised[1], 2 * phases - 1);
}

/// What a completion function and two participants on different sides share, in managed
/// memory. Flags hold 1 + the phase they are about.
struct completion_drop_flags {
  cuda::std::uint32_t runs = 0;      // completions run (written by one completion at a time)
  cuda::std::uint32_t first_drop = 0;  // the completions of phases first_drop .. drops - 1
  cuda::std::uint32_t drops = 0;       // each await a drop
  cuda::std::uint32_t arrived = 0;   // the dropping side has arrived in the phase
  cuda::std::uint32_t running = 0;   // the phase's completion runs
  cuda::std::uint32_t dropped = 0;   // a drop came in while it ran
  cuda::std::uint32_t failures = 0;  // a flag wait that gave up
};

/// Runs once per phase, on the side of the phase's last arriver: says it runs, then waits
/// for the other side's drop before it returns (bounded: a drop that waits for the
/// completion counts a failure instead of hanging).
struct completion_awaiting_a_drop {
  completion_drop_flags* flags;
  UNISYNC_HOST_DEVICE void operator()() const noexcept
  {
    cuda::std::uint32_t const phase = flags->runs++;
    if (phase < flags->first_drop || phase >= flags->drops) return;
    raise_flag(flags->running, phase + 1);
    // After a failure, run on without waiting, so that the test ends soon.
    if (flags->failures == 0) static_cast<void>(await_flag(flags->dropped, phase + 1, flags->failures));
  }
};
using completion_drop_barrier = unisync::barrier<completion_awaiting_a_drop>;

/// Phase k's dropping side (the CPU, 0, in even phases, the GPU, 1, in odd ones) arrives
/// for itself and the extra participants still in, except the slot of the drop that came
/// into the phase while the completion of k - 1 ran; then it waits until phase k's
/// completion runs on the other side, lets one extra participant leave with
/// arrive_and_drop() (an arrival in phase k + 1, above the stop), says so, and waits. The
/// other side arrives last and runs the completion, which returns only after the drop.
template <class Barrier>
UNISYNC_HOST_DEVICE void drop_while_the_other_side_completes(Barrier& barrier, completion_drop_flags& flags,
                                                             unsigned me)
{
  cuda::std::uint32_t const drops = flags.drops;
  cuda::std::uint32_t const first_drop = flags.first_drop;
  for (cuda::std::uint32_t phase = 0; phase <= drops; ++phase) {
    if ((phase & 1u) != me) {
      if (!await_flag(flags.arrived, phase + 1, flags.failures)) return;
      barrier.wait(barrier.arrive());  // the last arrival: runs the completion on this side
      continue;
    }
    // Each drop arrives in the phase after the one whose completion it came in during,
    // and takes its participant away from the phases after that.
    cuda::std::uint32_t const drops_before = phase > first_drop + 1 ? phase - 1 - first_drop : 0;
    cuda::std::uint32_t const drop_in_this_phase = phase > first_drop ? 1 : 0;
    cuda::std::uint32_t const participants = 2 + drops - drops_before;
    auto token = barrier.arrive(participants - 1 - drop_in_this_phase);
    raise_flag(flags.arrived, phase + 1);
    if (phase >= first_drop && phase < drops) {
      if (!await_flag(flags.running, phase + 1, flags.failures)) return;
      barrier.arrive_and_drop();
      raise_flag(flags.dropped, phase + 1);
    }
    barrier.wait(cuda::std::move(token));
  }
}

__global__ void drop_while_the_cpu_completes(completion_drop_barrier* barrier, completion_drop_flags* flags)
{
  drop_while_the_other_side_completes(*barrier, *flags, 1);
}

// [thread.barrier.class] arrive_and_drop arrives, it does not wait, not even for the
// completion step of the phase before, which runs on the other side: the drop comes in
// while that completion runs (its arrival counts in the next phase) and the completion
// returns only once the drop has returned; the sides take turns, one participant fewer
// every phase.
TEST(ConformanceMixedSplitPhase, DropWhileTheOtherSideRunsTheCompletion)
{
  UNISYNC_REQUIRE_GPU();
  constexpr cuda::std::uint32_t drops = 100;
  auto flags = unisync::make_managed<completion_drop_flags>();
  flags->drops = drops;
  auto barrier = unisync::make_managed<completion_drop_barrier>(2 + drops, completion_awaiting_a_drop{flags.get()});
  drop_while_the_cpu_completes<<<1, 1>>>(barrier.get(), flags.get());
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  completion_drop_barrier* const shared_barrier = barrier.get();
  completion_drop_flags* const shared_flags = flags.get();
  bounded_thread cpu([shared_barrier, shared_flags] {
    drop_while_the_other_side_completes(*shared_barrier, *shared_flags, 0);
  });
  ASSERT_NO_FATAL_FAILURE(finish_both_sides(cpu.returned_within(), barrier, flags));
  EXPECT_EQ(flags->failures, 0u) << "an arrive_and_drop() waited for the completion on the other side";
  EXPECT_EQ(flags->runs, drops + 1) << "every phase completes once";
  EXPECT_EQ(flags->dropped, drops);
}

using partitioned_completion_drop_barrier = unisync::partitioned_barrier<completion_awaiting_a_drop>;

__global__ void drop_while_the_other_block_completes(partitioned_completion_drop_barrier* barrier,
                                                     completion_drop_flags* flags)
{
  drop_while_the_other_side_completes(*barrier, *flags, blockIdx.x);
}

// The same turns between two GPU threads (two blocks) of a partitioned barrier, whose
// participants are then all on the GPU: each drop lands on the GPU side's word above the
// stop while the other block runs the completion, and must not wait for it. (No drop
// while the first phase's completion runs: its word is the central one, and a drop
// beyond the first phase is refused.)
TEST(ConformanceMixedSplitPhase, PartitionedDropOnTheGpuAloneWhileTheCompletionRuns)
{
  UNISYNC_REQUIRE_GPU();
  constexpr cuda::std::uint32_t drops = 100;
  auto flags = unisync::make_managed<completion_drop_flags>();
  flags->first_drop = 1;
  flags->drops = drops;
  auto barrier =
      unisync::make_managed<partitioned_completion_drop_barrier>(2 + drops, completion_awaiting_a_drop{flags.get()});
  drop_while_the_other_block_completes<<<2, 1>>>(barrier.get(), flags.get());
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(flags->failures, 0u) << "an arrive_and_drop() waited for the completion in the other block";
  EXPECT_EQ(flags->runs, drops + 1) << "every phase completes once";
  EXPECT_EQ(flags->dropped, drops);
}

}  // namespace
