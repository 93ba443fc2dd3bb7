#pragma once
// A cell of the contention grid: how many CPU threads and GPU blocks x threads contend.

#include <string>
#include <vector>

namespace unisync::bench {

struct mix_cell {
  unsigned cpu_threads = 0;
  unsigned gpu_blocks = 0;
  unsigned gpu_threads = 1;  // per block

  [[nodiscard]] bool has_cpu() const { return cpu_threads > 0; }
  [[nodiscard]] bool has_gpu() const { return gpu_blocks > 0; }
  [[nodiscard]] bool mixed() const { return has_cpu() && has_gpu(); }
  /// "cpu:4/gpu:132x1": the tail of every case name.
  [[nodiscard]] std::string name() const
  {
    return "cpu:" + std::to_string(cpu_threads) + "/gpu:" + std::to_string(gpu_blocks) + "x" +
           std::to_string(gpu_threads);
  }
};

/// Which cells a run covers.
enum class case_set { short_set, full_set };

/// What the machine offers the grid: whether a GPU is there, its multiprocessors, and
/// the CPU threads a cell may use (one core stays free for the timing thread).
struct grid_limits {
  bool has_gpu = false;
  unsigned multiprocessors = 0;
  unsigned max_cpu_threads = 1;
};

/// The grid: CPU threads {0, 1, 2, 4, 8, cores-1} x GPU blocks {0, 1, 8, SMs/4, SMs,
/// 2 SMs, 4 SMs} in the full set, a corner-and-anchor subset in the short set; without a
/// GPU only the CPU-only cells. The empty cell is left out.
std::vector<mix_cell> contention_grid(case_set set, grid_limits const& limits, unsigned gpu_threads);

}  // namespace unisync::bench
