#pragma once
// Every family's cases, peers beside ours, declared for the cells of a run.

#include "../mix/cell.hpp"

namespace unisync::bench {

void declare_lock_cases(case_set set, grid_limits const& limits);
/// Shared mutexes at 90% and 99% reads, beside locks that take every section exclusively.
void declare_shared_mutex_cases(case_set set, grid_limits const& limits);
void declare_semaphore_cases(case_set set, grid_limits const& limits);
void declare_barrier_cases(case_set set, grid_limits const& limits);
/// Application workloads (examples/*.cuh) against the alternatives users have; GPU only.
void declare_application_cases(case_set set, grid_limits const& limits);
/// Latch rounds (mix/rounds.cuh): one fresh latch per round.
void declare_latch_cases(case_set set, grid_limits const& limits);
/// The machine's physical limits (after the seed paper's Table 1); GPU only.
void declare_machine_cases(case_set set);

}  // namespace unisync::bench
