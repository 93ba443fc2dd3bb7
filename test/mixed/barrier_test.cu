// barrier with CPU threads and GPU blocks as participants of the same phases, on one
// object in managed memory: the phase checker and the completion function (which runs on
// whichever side arrives last) for 1x1, 4 x multiprocessors and 15 x every resident block.

#include "device_actors.cuh"
#include "gpu.hpp"
#include "mixed.hpp"

#include <unisync/barrier.hpp>
#include <unisync/co_resident_launch.hpp>
#include <unisync/managed.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <thread>
#include <vector>

namespace {

using namespace unisync::test;
using checked_barrier = unisync::barrier<checking_completion>;

struct mixed_cell {
  unsigned cpu_threads;
  int gpu_blocks;  // -1: every block that can be resident
  unsigned phases;
};

class MixedBarrier : public ::testing::TestWithParam<mixed_cell> {};

TEST_P(MixedBarrier, NoParticipantLeavesPhaseEarly)
{
  UNISYNC_REQUIRE_GPU();
  mixed_cell const cell = GetParam();
  constexpr int threads_per_block = 128;
  int const blocks =
      cell.gpu_blocks >= 0 ? cell.gpu_blocks
                           : unisync::max_resident_blocks(phases_per_block<checked_barrier>, threads_per_block);
  unsigned const cpu_threads = std::min(cell.cpu_threads, std::max(1u, std::thread::hardware_concurrency() - 1));
  unsigned const participants = cpu_threads + static_cast<unsigned>(blocks);  // checker slots
  std::vector<std::uint32_t, unisync::managed_allocator<std::uint32_t>> slots(participants, 0);
  auto violations = unisync::make_managed<std::uint32_t>(0u);
  auto completions = unisync::make_managed<std::uint32_t>(0u);
  phase_record const record{slots.data(), participants, violations.get(), completions.get()};
  auto barrier = unisync::make_managed<checked_barrier>(cpu_threads + blocks * threads_per_block,
                                                        checking_completion{record});
  cudaError_t const status = run_mixed(
      cpu_threads,
      [&](unsigned actor) {
        for (unsigned phase = 1; phase <= cell.phases; ++phase) {
          record.before_arriving(actor, phase);
          barrier->arrive_and_wait();
          record.after_passing(actor + 1, 8, phase);
        }
      },
      [&] {
        unisync::launch_co_resident(phases_per_block<checked_barrier>, dim3(blocks), dim3(threads_per_block), 0,
                                    nullptr, barrier.get(), record, cpu_threads, cell.phases);
      });
  ASSERT_EQ(status, cudaSuccess);
  EXPECT_EQ(*violations, 0u);
  EXPECT_EQ(*completions, cell.phases);
}

INSTANTIATE_TEST_SUITE_P(Cells, MixedBarrier,
                         ::testing::Values(mixed_cell{1, 1, 2000}, mixed_cell{4, 132, 1000},
                                           mixed_cell{15, -1, 300}),
                         [](auto const& info) {
                           return "cpu" + std::to_string(info.param.cpu_threads) + "_gpu" +
                                  (info.param.gpu_blocks < 0 ? std::string("MaxResident")
                                                             : std::to_string(info.param.gpu_blocks));
                         });

}  // namespace
