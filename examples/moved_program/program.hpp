#pragma once
// A small std::thread program, written once for both versions: workers that compute in
// rounds, at most `slots` of them at a time (a counting semaphore), add their results to
// one total under a mutex, and meet at a barrier between reading the total and adding to
// it. The std version runs every worker on a CPU thread (std_version.cpp); the unisync
// version changes only the three types and the allocation and runs part of the workers
// on the GPU (moved_program.cu). Both must print the same total.

#if defined(__CUDACC__)
#define MOVED_PROGRAM_HOST_DEVICE __host__ __device__
#else
#define MOVED_PROGRAM_HOST_DEVICE
#endif  // defined(__CUDACC__)

namespace moved_program {

constexpr int slots = 3;  // workers computing at once

/// What the workers share, each object allocated on its own (the versions differ in the
/// template arguments and in how the four objects are allocated, nothing else).
template <class Mutex, class Semaphore, class Barrier, template <class> class Guard>
struct shared_state {
  using guard = Guard<Mutex>;

  Mutex* lock;
  Semaphore* computing;    // made with `slots` permits
  Barrier* round_end;      // made with one participant per worker
  long long* total;        // starts at 1; written under `lock`, read between barriers
};

/// A worker's result in a round: depends on the worker, the round and the total so far,
/// so that a lost update, or a read of the total that a barrier failed to separate from
/// the additions, changes the final total.
MOVED_PROGRAM_HOST_DEVICE inline long long contribution(int worker, int round, long long total_so_far)
{
  return (total_so_far % 9973) * (worker + 1) + round;
}

template <class State>
MOVED_PROGRAM_HOST_DEVICE void run_worker(State state, int worker, int rounds)
{
  using guard = typename State::guard;
  for (int round = 0; round < rounds; ++round) {
    long long const seen = *state.total;  // every worker sees the same total in a round
    state.computing->acquire();
    long long const mine = contribution(worker, round, seen);
    state.computing->release();
    state.round_end->arrive_and_wait();  // nobody adds before everyone has read
    {
      guard hold(*state.lock);
      *state.total += mine;
    }
    state.round_end->arrive_and_wait();  // every addition is in before the next read
  }
}

/// The total the program must end with, computed sequentially.
inline long long expected_total(int workers, int rounds)
{
  long long total = 1;
  for (int round = 0; round < rounds; ++round) {
    long long added = 0;
    for (int worker = 0; worker < workers; ++worker) added += contribution(worker, round, total);
    total += added;
  }
  return total;
}

}  // namespace moved_program
